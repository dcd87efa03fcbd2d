package main

import (
	"github.com/godwit-crawler/godwit/internal/crawl"
	"github.com/godwit-crawler/godwit/internal/urlnorm"
)

// --- URLs, scope and traps -------------------------------------------------
//
// These settings have no flags: they are lists and limits that belong in
// a config file. Zero values mean the packages' defaults (urlnorm.Options,
// crawl.Traps); a negative trap limit turns that defence off.

// urlSettings is how godwit identifies a page (urlnorm.Options).
type urlSettings struct {
	// StripParams and SessionParams replace the default lists when
	// present; an empty list ([]) strips nothing.
	StripParams    []string `yaml:"strip_params"`
	SessionParams  []string `yaml:"session_params"`
	KeepQueryOrder bool     `yaml:"keep_query_order"`
	// LearnAliases learns URL aliases per host (crawl.Aliases); default
	// true.
	LearnAliases *bool `yaml:"learn_aliases"`
}

// scopeSettings are URL prefixes and regular expressions (crawl.ScopeRules).
type scopeSettings struct {
	Prefixes []string `yaml:"prefixes"`
	Patterns []string `yaml:"patterns"`
}

// trapSettings are the spider-trap defences (crawl.Traps).
type trapSettings struct {
	MaxURLLength     int   `yaml:"max_url_length"`
	MaxPathDepth     int   `yaml:"max_path_depth"`
	MaxPathRepeats   int   `yaml:"max_path_repeats"`
	MaxQueryParams   int   `yaml:"max_query_params"`
	MaxCalendarSteps int   `yaml:"max_calendar_steps"`
	HostPages        int64 `yaml:"host_pages"`
	TemplatePages    int   `yaml:"template_pages"`
	TemplateHops     int   `yaml:"template_hops"`
	Anomaly          struct {
		MinURLs int64   `yaml:"min_urls"`
		Ratio   float64 `yaml:"ratio"`
		Pages   int64   `yaml:"pages"`
	} `yaml:"anomaly"`
}

func (u urlSettings) options() urlnorm.Options {
	return urlnorm.Options{StripParams: u.StripParams, SessionParams: u.SessionParams, KeepQueryOrder: u.KeepQueryOrder}
}

// applyURLSettings copies the URL, scope and trap settings into the core's
// configuration, which checks them (crawl.Config.Validate).
func (s crawlSettings) applyURLSettings(c *crawl.Config) {
	c.Sitemaps = crawl.Sitemaps{Off: s.Sitemaps.Off, Guess: s.Sitemaps.Guess, MaxNesting: s.Sitemaps.MaxNesting}
	c.Pages = crawl.PageSignals{FollowNofollowLinks: s.Pages.FollowNofollowLinks,
		ArchiveNoArchive: s.Pages.ArchiveNoArchive, OmitNoIndex: s.Pages.OmitNoIndex}
	c.Requisites = crawl.Requisites{Off: s.Requisites != nil && !*s.Requisites, PageScope: s.RequisitesScope == "pages"}
	c.URL = s.URL.options()
	c.Aliases.Off = s.URL.LearnAliases != nil && !*s.URL.LearnAliases
	c.Include = crawl.ScopeRules{Prefixes: s.Include.Prefixes, Patterns: s.Include.Patterns}
	c.Exclude = crawl.ScopeRules{Prefixes: s.Exclude.Prefixes, Patterns: s.Exclude.Patterns}
	t := s.Traps
	c.Traps = crawl.Traps{
		MaxURLLength:     t.MaxURLLength,
		MaxPathDepth:     t.MaxPathDepth,
		MaxPathRepeats:   t.MaxPathRepeats,
		MaxQueryParams:   t.MaxQueryParams,
		MaxCalendarSteps: t.MaxCalendarSteps,
		HostPages:        t.HostPages,
		TemplatePages:    t.TemplatePages,
		TemplateHops:     t.TemplateHops,
		Anomaly:          crawl.AnomalyThrottle{MinURLs: t.Anomaly.MinURLs, Ratio: t.Anomaly.Ratio, Pages: t.Anomaly.Pages},
	}
}

// sitemapSettings is how sitemaps are used (crawl.Sitemaps).
type sitemapSettings struct {
	Off        bool `yaml:"off"`         // ignore robots.txt Sitemap: lines
	Guess      bool `yaml:"guess"`       // also try /sitemap.xml where robots.txt lists none
	MaxNesting int  `yaml:"max_nesting"` // sitemap index levels; default 3
}

// pageSettings are the page-level robots signal options (crawl.PageSignals).
type pageSettings struct {
	FollowNofollowLinks bool `yaml:"follow_nofollow_links"` // follow rel=nofollow links
	ArchiveNoArchive    bool `yaml:"archive_noarchive"`     // keep the body of noarchive pages
	OmitNoIndex         bool `yaml:"omit_noindex"`          // also leave out the body of noindex pages
}

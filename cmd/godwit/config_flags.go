package main

import (
	"github.com/spf13/pflag"

	"github.com/godwit-crawler/godwit/internal/frontier"
)

// crawlFlags are the command-line forms of the settings.
type crawlFlags struct {
	config       string
	s            crawlSettings
	revisitShare float64
	requisites   bool
}

func (f *crawlFlags) register(fs *pflag.FlagSet) {
	d := defaultSettings()
	flagConfig.stringVar(fs, &f.config, "")
	flagSeeds.stringVar(fs, &f.s.SeedsFile, "")
	flagSkipBadSeeds.boolVar(fs, &f.s.SkipBadSeeds, false)
	flagData.stringVar(fs, &f.s.Data, d.Data)
	flagFresh.boolVar(fs, &f.s.Fresh, false)
	flagScope.stringVar(fs, &f.s.Scope, d.Scope)
	flagMaxDepth.intVar(fs, &f.s.MaxDepth, 0)
	flagMaxPages.int64Var(fs, &f.s.MaxPages, 0)
	flagDelay.durationVar(fs, &f.s.Delay, d.Delay)
	flagCrawlDelayCap.durationVar(fs, &f.s.CrawlDelayCap, d.CrawlDelayCap)
	flagIPConcurrency.intVar(fs, &f.s.IPConcurrency, d.IPConcurrency)
	flagIPDelay.durationVar(fs, &f.s.IPDelay, d.IPDelay)
	flagWorkers.intVar(fs, &f.s.Workers, d.Workers)
	flagUserAgent.stringVar(fs, &f.s.UserAgent, "")
	flagContact.stringVar(fs, &f.s.Contact, d.Contact)
	flagProxy.stringVar(fs, &f.s.Proxy, "")
	flagAllowPrivate.boolVar(fs, &f.s.AllowPrivate, false)
	flagTimeout.durationVar(fs, &f.s.Timeout, d.Timeout)
	flagMaxBody.int64Var(fs, &f.s.MaxBodyBytes, d.MaxBodyBytes)
	flagLogLevel.stringVar(fs, &f.s.LogLevel, d.LogLevel)
	flagAdmin.stringVar(fs, &f.s.Admin, d.Admin)
	flagAdminToken.stringVar(fs, &f.s.AdminToken, "")
	flagMemoryLimit.stringVar(fs, &f.s.MemoryLimit, "")
	flagContinuous.boolVar(fs, &f.s.Continuous, false)
	flagRevisitShare.float64Var(fs, &f.revisitShare, frontier.DefaultRevisitShare)
	flagOrder.stringVar(fs, &f.s.Order, d.Order)
	flagRequisites.boolVar(fs, &f.requisites, true)
	flagRequisitesScope.stringVar(fs, &f.s.RequisitesScope, d.RequisitesScope)
	f.registerTransport(fs)
	f.registerStore(fs)
	f.registerCluster(fs)
	f.registerProcessors(fs)
	f.registerRender(fs)
}

// settings merges defaults, the config file and the flags that were set.
func (f *crawlFlags) settings(fs *pflag.FlagSet, args []string) (crawlSettings, error) {
	return f.settingsOver(defaultSettings(), fs, args)
}

// settingsOver merges the config file and the flags that were set over s:
// the defaults, or a resumed crawl's stored settings.
func (f *crawlFlags) settingsOver(s crawlSettings, fs *pflag.FlagSet, args []string) (crawlSettings, error) {
	if f.config != "" {
		if err := loadConfigFile(f.config, &s); err != nil {
			return s, err
		}
	}
	set := func(fl flagInfo, apply func()) {
		if fs.Changed(fl.name) {
			apply()
		}
	}
	set(flagSeeds, func() { s.SeedsFile = f.s.SeedsFile })
	set(flagSkipBadSeeds, func() { s.SkipBadSeeds = f.s.SkipBadSeeds })
	set(flagData, func() { s.Data = f.s.Data })
	set(flagFresh, func() { s.Fresh = f.s.Fresh })
	set(flagScope, func() { s.Scope = f.s.Scope })
	set(flagMaxDepth, func() { s.MaxDepth = f.s.MaxDepth })
	set(flagMaxPages, func() { s.MaxPages = f.s.MaxPages })
	set(flagDelay, func() { s.Delay = f.s.Delay })
	set(flagCrawlDelayCap, func() { s.CrawlDelayCap = f.s.CrawlDelayCap })
	set(flagIPConcurrency, func() { s.IPConcurrency = f.s.IPConcurrency })
	set(flagIPDelay, func() { s.IPDelay = f.s.IPDelay })
	set(flagWorkers, func() { s.Workers = f.s.Workers })
	set(flagUserAgent, func() { s.UserAgent = f.s.UserAgent })
	set(flagContact, func() { s.Contact = f.s.Contact })
	set(flagProxy, func() { s.Proxy = f.s.Proxy })
	set(flagAllowPrivate, func() { s.AllowPrivate = f.s.AllowPrivate })
	set(flagTimeout, func() { s.Timeout = f.s.Timeout })
	set(flagMaxBody, func() { s.MaxBodyBytes = f.s.MaxBodyBytes })
	set(flagLogLevel, func() { s.LogLevel = f.s.LogLevel })
	set(flagMemoryLimit, func() { s.MemoryLimit = f.s.MemoryLimit })
	set(flagAdmin, func() { s.Admin = f.s.Admin; s.adminExplicit = true })
	set(flagAdminToken, func() { s.AdminToken = f.s.AdminToken })
	set(flagContinuous, func() { s.Continuous = f.s.Continuous })
	set(flagRevisitShare, func() { s.Recrawl.RevisitShare = &f.revisitShare })
	set(flagOrder, func() { s.Order = f.s.Order })
	set(flagRequisites, func() { s.Requisites = &f.requisites })
	set(flagRequisitesScope, func() { s.RequisitesScope = f.s.RequisitesScope })
	f.applyTransport(fs, &s)
	f.applyStore(fs, &s)
	f.applyCluster(fs, &s)
	f.applyProcessors(fs, &s)
	f.applyRender(fs, &s)
	s.Seeds = append(s.Seeds, args...)
	return s, s.validate()
}

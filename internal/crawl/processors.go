package crawl

import (
	"context"
	"net/http"
	"net/url"

	"golang.org/x/text/encoding/htmlindex"

	"github.com/godwit-crawler/godwit/internal/fetch"
	"github.com/godwit-crawler/godwit/internal/process"
)

// runProcessors runs the content processors over a fetched page, once
// extraction has read it and before it is archived: their annotations go
// into d (the metadata record), the links they add join rd's candidates,
// and a "skip links" verdict drops the page's own (they stay recorded as
// outlinks).
func (c *Crawler) runProcessors(ctx context.Context, t Task, resp *fetch.Response, rd *reading, d *Decision) {
	if c.procs == nil || c.procs.Len() == 0 {
		return
	}
	p := &process.Page{
		URL:         t.URL,
		Status:      resp.Status,
		Header:      resp.Header,
		ContentType: resp.Header.Get("Content-Type"),
		Body:        utf8Body(rd),
		Title:       rd.title,
		Links:       d.Outlinks,
		SimHash:     rd.simhash,
		HasSimHash:  rd.hasSimHash,
	}
	res := c.procs.Run(ctx, p)
	d.Annotations = res.Annotations
	if res.SkipLinks && resp.Status != http.StatusNotModified {
		rd.cands = nil
	}
	if len(res.Links) == 0 {
		return
	}
	base, err := url.Parse(t.URL)
	if err != nil {
		return
	}
	for _, l := range res.Links {
		if u, err := base.Parse(l); err == nil {
			rd.cands = append(rd.cands, foundURL{raw: u.String()})
		}
	}
}

// utf8Body is the HTML page rd read, in UTF-8.
func utf8Body(rd *reading) []byte {
	if rd.body == nil || rd.encoding == "" || rd.encoding == "utf-8" {
		return rd.body
	}
	enc, err := htmlindex.Get(rd.encoding)
	if err != nil {
		return nil
	}
	b, err := enc.NewDecoder().Bytes(rd.body)
	if err != nil {
		return nil
	}
	return b
}

// emit sends the event of an archived page.
func (c *Crawler) emit(ctx context.Context, t Task, resp *fetch.Response, d Decision, capture Capture) error {
	if c.events == nil {
		return nil
	}
	return c.events.Page(ctx, PageEvent{
		URL:         t.URL,
		Status:      resp.Status,
		Time:        resp.Start.UTC(),
		Depth:       t.Depth,
		ContentType: resp.Header.Get("Content-Type"),
		Title:       d.Title,
		SimHash:     d.SimHash,
		HasSimHash:  d.HasSimHash,
		Capture:     capture,
		Annotations: d.Annotations,
		Outlinks:    d.Outlinks,
	})
}

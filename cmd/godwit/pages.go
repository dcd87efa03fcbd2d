package main

import (
	"context"
	"errors"

	"github.com/godwit-crawler/godwit/internal/admin"
	"github.com/godwit-crawler/godwit/internal/crawl"
	"github.com/godwit-crawler/godwit/internal/events"
)

// The admin API's pages (GET /api/pages): the store's index of page
// events, and the archive for their content.

var _ admin.PagesBackend = (*backend)(nil)

func apiPage(e events.Event) admin.Page {
	return admin.Page{
		ID: e.ID, URL: e.URL, Status: e.Status, Time: e.Time, Depth: e.Depth,
		ContentType: e.ContentType, Title: e.Title, Digest: e.Digest, SimHash: e.SimHash,
		WARC:        admin.WARCLocation{File: e.WARC.File, Offset: e.WARC.Offset, Length: e.WARC.Length, RecordID: e.WARC.RecordID},
		Annotations: e.Annotations, Outlinks: len(e.Outlinks), Links: e.Outlinks,
	}
}

func pageErr(err error) error {
	if errors.Is(err, events.ErrNotFound) {
		return errors.Join(admin.ErrNotFound, err)
	}
	return err
}

func (b *backend) Pages(ctx context.Context, q admin.PageQuery) ([]admin.Page, uint64, error) {
	if b.pages == nil {
		return nil, 0, nil
	}
	evs, next, err := b.pages.List(ctx, events.Query{Host: q.Host, Status: q.Status, Q: q.Q, After: q.After, Limit: q.Limit})
	if err != nil {
		return nil, 0, err
	}
	out := make([]admin.Page, len(evs))
	for i, e := range evs {
		out[i] = apiPage(e)
	}
	return out, next, nil
}

func (b *backend) Page(_ context.Context, id uint64) (admin.Page, error) {
	if b.pages == nil {
		return admin.Page{}, admin.ErrNotFound
	}
	e, err := b.pages.Get(id)
	if err != nil {
		return admin.Page{}, pageErr(err)
	}
	return apiPage(e), nil
}

func (b *backend) PageContent(ctx context.Context, id uint64) ([]byte, string, string, error) {
	if b.pages == nil {
		return nil, "", "", admin.ErrNotFound
	}
	e, err := b.pages.Get(id)
	if err != nil {
		return nil, "", "", pageErr(err)
	}
	resp, err := b.archive.Load(ctx, crawl.Capture{File: e.WARC.File, Offset: e.WARC.Offset, Length: e.WARC.Length})
	if err != nil {
		return nil, "", "", err
	}
	return resp.Body, resp.Header.Get("Content-Type"), resp.Header.Get("Content-Encoding"), nil
}

// Package events writes the crawl's page events (crawl.PageEvent) for
// downstream systems: one JSON object per line per archived page, in a
// file rotated by size (docs/processors.md, docs/events.schema.json) or
// as messages in a JetStream stream (Stream);
// and keeps them in the crawl's store (Index), numbered, for the admin
// API's pages.
//
// A File and an Index are safe for concurrent use; its owner closes it after the crawl
// has stopped. Each event is one write(2) to a file opened for appending,
// so a crash of the process never leaves half an event unless the
// machine itself goes down mid-write; the file is fsynced when rotated
// and closed.
package events

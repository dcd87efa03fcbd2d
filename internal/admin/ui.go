package admin

import (
	"embed"
	"io/fs"
)

// static holds the dashboard (index.html, app.js, app.css): vanilla
// JavaScript and inline SVG over the JSON API, with no external assets, so
// it works on a machine without internet and under a same-origin
// Content-Security-Policy. Read-only.
//
//go:embed static
var static embed.FS

// UI returns the dashboard's files with index.html at the root, for
// Options.UI: index.html is served at /, and the page loads
// static/app.js and static/app.css, relative to itself.
func UI() fs.FS {
	ui, err := fs.Sub(static, "static")
	if err != nil {
		panic("admin: " + err.Error()) // cannot happen: "static" is a valid path
	}
	return ui
}

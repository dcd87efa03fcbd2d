package process

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/godwit-crawler/godwit/internal/htmltok"
)

// Structured is the built-in structured-data processor: it reads the
// OpenGraph <meta property="og:…"> (and article:, twitter:) tags and the
// JSON-LD <script type="application/ld+json"> blocks of an HTML page.
//
// Annotations: each OpenGraph property under its own name ("og:title",
// "og:type", "og:image", …; the first of repeated ones), "jsonld-types"
// (the distinct @type values of every JSON-LD item, @graph members
// included, space-separated in order of appearance), "jsonld-items" (how
// many items), and "jsonld" (the first block, compacted; cut at
// MaxValue). A block that is not valid JSON counts in
// "jsonld-invalid". A page without any of these gets no annotation.
type Structured struct{}

// Name implements Processor.
func (Structured) Name() string { return "structured" }

// Process implements Processor.
func (Structured) Process(ctx context.Context, p *Page) (Verdict, error) {
	if p.Body == nil {
		return Verdict{}, nil
	}
	ann := map[string]string{}
	var (
		types   []string
		items   int
		invalid int
		inLD    bool
		ld      bytes.Buffer
	)
	z := htmltok.New(p.Body)
	for n := 0; ; n++ {
		if n%4096 == 0 && ctx.Err() != nil {
			return Verdict{}, ctx.Err()
		}
		tt := z.Next()
		switch tt {
		case htmltok.ErrorToken:
			if inLD { // unterminated script: use what there is
				items, invalid, types = addJSONLD(ann, ld.Bytes(), items, invalid, types)
			}
			return structuredVerdict(ann, types, items, invalid), nil
		case htmltok.StartTagToken, htmltok.SelfClosingTagToken:
			switch string(z.TagName()) {
			case "meta":
				metaProperty(z, ann)
			case "script":
				if isJSONLD(z) && tt == htmltok.StartTagToken {
					inLD = true
					ld.Reset()
				}
			case "body":
				// OpenGraph belongs in the head, but JSON-LD may be
				// anywhere: keep going.
			}
		case htmltok.TextToken:
			if inLD {
				ld.Write(z.Raw())
			}
		case htmltok.EndTagToken:
			if inLD && string(z.TagName()) == "script" {
				inLD = false
				items, invalid, types = addJSONLD(ann, ld.Bytes(), items, invalid, types)
			}
		}
	}
}

func structuredVerdict(ann map[string]string, types []string, items, invalid int) Verdict {
	if len(types) > 0 {
		ann["jsonld-types"] = strings.Join(types, " ")
	}
	if items > 0 {
		ann["jsonld-items"] = strconv.Itoa(items)
	}
	if invalid > 0 {
		ann["jsonld-invalid"] = strconv.Itoa(invalid)
	}
	if len(ann) == 0 {
		return Verdict{}
	}
	return Verdict{Annotations: ann}
}

// metaProperty records an OpenGraph-style <meta property=… content=…>.
func metaProperty(z *htmltok.Tokenizer, ann map[string]string) {
	var prop, content string
	var hasContent bool
	for i := range z.NumAttr() {
		k, v := z.Attr(i)
		switch string(k) {
		case "property", "name":
			if prop == "" {
				prop = strings.ToLower(strings.TrimSpace(string(v)))
			}
		case "content":
			content, hasContent = strings.TrimSpace(string(v)), true
		}
	}
	if !hasContent || !validKey(prop) {
		return
	}
	ns, _, ok := strings.Cut(prop, ":")
	if !ok || (ns != "og" && ns != "article" && ns != "twitter" && ns != "fb") {
		return
	}
	if _, dup := ann[prop]; !dup {
		ann[prop] = content
	}
}

func isJSONLD(z *htmltok.Tokenizer) bool {
	for i := range z.NumAttr() {
		if k, v := z.Attr(i); string(k) == "type" {
			t, _, _ := strings.Cut(string(v), ";")
			return strings.EqualFold(strings.TrimSpace(t), "application/ld+json")
		}
	}
	return false
}

// addJSONLD reads one JSON-LD block.
func addJSONLD(ann map[string]string, b []byte, items, invalid int, types []string) (int, int, []string) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return items, invalid, types
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return items, invalid + 1, types
	}
	if _, ok := ann["jsonld"]; !ok {
		var c bytes.Buffer
		if json.Compact(&c, b) == nil {
			ann["jsonld"] = c.String()
		}
	}
	var walk func(v any, top bool)
	walk = func(v any, top bool) {
		switch x := v.(type) {
		case []any:
			for _, e := range x {
				walk(e, top)
			}
		case map[string]any:
			if g, ok := x["@graph"]; ok {
				walk(g, top)
			}
			if t, ok := x["@type"]; ok {
				if top {
					items++
				}
				for _, s := range typeNames(t) {
					if !slices.Contains(types, s) {
						types = append(types, s)
					}
				}
			}
		}
	}
	walk(v, true)
	return items, invalid, types
}

func typeNames(t any) []string {
	switch x := t.(type) {
	case string:
		return strings.Fields(x)
	case []any:
		var out []string
		for _, e := range x {
			if s, ok := e.(string); ok {
				out = append(out, strings.Fields(s)...)
			}
		}
		return out
	}
	return nil
}

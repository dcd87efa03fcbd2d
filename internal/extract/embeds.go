package extract

import (
	"strings"

	"github.com/godwit-crawler/godwit/internal/htmltok"
	"github.com/godwit-crawler/godwit/internal/simhash"
)

// embedTag returns the element name if elements named name can embed a
// requisite, "" otherwise.
func embedTag(name []byte) string {
	switch string(name) {
	case "img":
		return "img"
	case "source":
		return "source"
	case "video":
		return "video"
	case "audio":
		return "audio"
	case "track":
		return "track"
	case "script":
		return "script"
	case "embed":
		return "embed"
	case "object":
		return "object"
	case "input":
		return "input"
	case "link":
		return "link"
	}
	return ""
}

// embedRels are the rel tokens of a <link> that the page needs to render:
// its stylesheets, icons and what it asks browsers to preload.
var embedRels = [...]string{"stylesheet", "icon", "apple-touch-icon", "apple-touch-icon-precomposed", "mask-icon", "preload", "modulepreload", "manifest"}

// embedRel reports whether a <link> with rel (lower-cased) is a requisite.
func embedRel(rel string) bool {
	if rel == "" {
		return false
	}
	l := Link{Rel: rel}
	for _, r := range embedRels {
		if l.HasRel(r) {
			return true
		}
	}
	return false
}

// Requisite reports whether l is a <link> to a page requisite (a
// stylesheet, an icon, a preload): a resource the page needs, not a link
// to follow. With [Options.Embeds] such links are in [Document.Embeds]
// instead; without, a crawler that fetches no requisites drops them.
func (l Link) Requisite() bool { return l.Tag == "link" && embedRel(l.Rel) }

// embedAttrs are the attributes of a tag that can embed a requisite: the
// link attributes (href and rel, for <link>) and the embedding ones.
type embedAttrs struct {
	linkAttrs
	src, srcset, data, poster, typ        string
	hasSrc, hasSrcset, hasData, hasPoster bool
}

// readEmbedAttrs reads the attributes of the current tag. The first of
// repeated attributes wins, as in browsers.
func readEmbedAttrs(z *htmltok.Tokenizer) embedAttrs {
	var a embedAttrs
	var haveRel, haveType bool
	for i := range z.NumAttr() {
		k, v := z.Attr(i)
		switch string(k) {
		case "href":
			if !a.ok {
				a.value, a.ok = string(v), true
			}
		case "rel":
			if !haveRel {
				a.rel, haveRel = lowerASCII(strings.Trim(string(v), asciiSpace)), true
			}
		case "src":
			if !a.hasSrc {
				a.src, a.hasSrc = string(v), true
			}
		case "srcset":
			if !a.hasSrcset {
				a.srcset, a.hasSrcset = string(v), true
			}
		case "data":
			if !a.hasData {
				a.data, a.hasData = string(v), true
			}
		case "poster":
			if !a.hasPoster {
				a.poster, a.hasPoster = string(v), true
			}
		case "type":
			if !haveType {
				a.typ, haveType = string(v), true
			}
		}
		if !a.hidden && simhash.HiddenAttr(k, v) {
			a.hidden = true
		}
	}
	return a
}

// add appends the requisites of a tag named tag to dst, at most max in
// all, and reports whether they all fitted.
func (a *embedAttrs) add(tag string, dst *[]pending, max int) bool {
	put := func(ref, attr string) bool {
		if skip(ref) {
			return true
		}
		if len(*dst) >= max {
			return false
		}
		*dst = append(*dst, pending{ref: ref, tag: tag, attr: attr})
		return true
	}
	ok := true
	switch tag {
	case "link":
		ok = put(a.value, "href")
	case "object":
		if a.hasData {
			ok = put(a.data, "data")
		}
	case "input":
		if a.hasSrc && equalFoldASCII(strings.Trim(a.typ, asciiSpace), "image") {
			ok = put(a.src, "src")
		}
	default:
		if a.hasSrc {
			ok = put(a.src, "src")
		}
		if a.hasPoster {
			ok = put(a.poster, "poster") && ok
		}
		if a.hasSrcset {
			forSrcset(a.srcset, func(ref string) bool {
				ok = put(ref, "srcset") && ok
				return ok
			})
		}
	}
	return ok
}

// forSrcset calls f with the URL of each image candidate of a srcset
// attribute, as the HTML standard's "parse a srcset attribute" splits
// them (descriptors skipped, parentheses respected), until f returns
// false.
func forSrcset(s string, f func(ref string) bool) {
	i := 0
	for i < len(s) {
		for i < len(s) && (s[i] == ',' || strings.IndexByte(asciiSpace, s[i]) >= 0) {
			i++
		}
		if i == len(s) {
			return
		}
		j := i
		for j < len(s) && strings.IndexByte(asciiSpace, s[j]) < 0 {
			j++
		}
		ref := s[i:j]
		descriptors := true
		if trimmed := strings.TrimRight(ref, ","); len(trimmed) < len(ref) {
			ref, descriptors = trimmed, false
		}
		if ref != "" && !f(ref) {
			return
		}
		i = j
		if !descriptors {
			continue
		}
		i = skipDescriptors(s, i)
	}
}

// skipDescriptors returns the index after the descriptors of a srcset
// candidate that start at s[i]: after the next comma outside
// parentheses, or the end.
func skipDescriptors(s string, i int) int {
	depth := 0
	for i < len(s) {
		c := s[i]
		i++
		switch {
		case c == '(':
			depth++
		case c == ')' && depth > 0:
			depth--
		case c == ',' && depth == 0:
			return i
		}
	}
	return i
}

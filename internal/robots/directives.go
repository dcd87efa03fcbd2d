package robots

import (
	"strings"
	"time"
)

// Directives are the page-level robots signals that apply to one crawler:
// what the content of <meta name="robots"> (or name="<agent>") tags and
// X-Robots-Tag response headers ask of it, in the vocabulary of Google's
// and Bing's documentation. The zero value restricts nothing.
//
// Directives only add restrictions: "index", "follow" and "all" undo
// nothing, and [Directives.Merge] is a union, so the most restrictive
// reading of conflicting signals wins, as search engines do.
type Directives struct {
	NoIndex      bool // "noindex", "none": keep the page out of indexes
	NoFollow     bool // "nofollow", "none": do not follow the page's links
	NoArchive    bool // "noarchive", "nocache" (Bing): show no cached copy
	NoSnippet    bool // "nosnippet", "max-snippet: 0"
	NoImageIndex bool // "noimageindex": keep the page's images out of indexes
	// UnavailableAfter is the time of an "unavailable_after: <date>"
	// directive, the earliest if there are several; zero when there is
	// none or its date cannot be read.
	UnavailableAfter time.Time
}

// Merge returns the union of d and o: each restriction of either, and the
// earlier UnavailableAfter.
func (d Directives) Merge(o Directives) Directives {
	d.NoIndex = d.NoIndex || o.NoIndex
	d.NoFollow = d.NoFollow || o.NoFollow
	d.NoArchive = d.NoArchive || o.NoArchive
	d.NoSnippet = d.NoSnippet || o.NoSnippet
	d.NoImageIndex = d.NoImageIndex || o.NoImageIndex
	d.setUnavailableAfter(o.UnavailableAfter)
	return d
}

func (d *Directives) setUnavailableAfter(t time.Time) {
	if !t.IsZero() && (d.UnavailableAfter.IsZero() || t.Before(d.UnavailableAfter)) {
		d.UnavailableAfter = t
	}
}

// ParseMeta interprets the content attribute of a <meta name="robots"> tag,
// or of a <meta name="<agent>"> tag for this crawler: a comma-separated
// list of directives, case-insensitive, with any whitespace around them.
// "none" is "noindex, nofollow"; "all", "index", "follow" and unknown
// directives change nothing. Directives separated by spaces or semicolons
// instead of commas ("noindex nofollow") are read too: obeying what the
// site evidently meant is the polite mistake.
func ParseMeta(content string) Directives {
	var d Directives
	d.parseList(content, "", false)
	return d
}

// ParseXRobotsTag interprets the values of the X-Robots-Tag headers of a
// response (http.Header.Values("X-Robots-Tag")) for the crawler with
// product token agent. Each value is a list as in [ParseMeta], except that
// an item may start with a user-agent token and a colon: "godwit:
// noarchive" applies from there to the end of the value (or to the next
// such token) only to the crawler named, compared case-insensitively;
// directives before any token apply to every crawler. Thus
//
//	X-Robots-Tag: noindex, otherbot: nofollow
//
// is noindex for godwit. Directives that take a value after a colon
// ("unavailable_after: 25 Jun 2010 15:00:00 PST", "max-snippet: 0",
// "max-image-preview: large") are recognized as such, not as user agents,
// and a date that contains a comma ("Fri, 25 Jun 2010 15:00:00 GMT") is
// read whole.
func ParseXRobotsTag(values []string, agent string) Directives {
	var d Directives
	for _, v := range values {
		d.parseList(v, agent, true)
	}
	return d
}

// parseList adds the directives of list s to d. With header, items may be
// scoped to a user agent, and only those for agent (or for all) count.
func (d *Directives) parseList(s, agent string, header bool) {
	applies := true
	items := strings.Split(s, ",")
items:
	for i := 0; i < len(items); i++ {
		item := items[i]
		// Peel off "name:" prefixes: value directives end the item,
		// user-agent tokens set the scope of what follows.
		for {
			name, value, ok := strings.Cut(item, ":")
			if !ok {
				break
			}
			name = strings.ToLower(trimASCIISpace(name))
			switch name {
			case "unavailable_after":
				value = trimASCIISpace(value)
				t, ok := parseDate(value)
				if !ok && i+1 < len(items) {
					// The comma was part of the date: "Fri, 25 Jun ...".
					if t, ok = parseDate(value + "," + items[i+1]); ok {
						i++
					}
				}
				if ok && applies {
					d.setUnavailableAfter(t)
				}
				continue items
			case "max-snippet":
				if applies && trimASCIISpace(value) == "0" {
					d.NoSnippet = true
				}
				continue items
			case "max-image-preview", "max-video-preview":
				continue items
			}
			if !header || !ValidAgent(name) {
				continue items // "name: value" of no directive we know
			}
			applies = strings.EqualFold(name, agent)
			item = value
		}
		if !applies {
			continue
		}
		for _, w := range strings.FieldsFunc(item, isListSpace) {
			d.keyword(strings.ToLower(w))
		}
	}
}

// isListSpace separates the words of one item of a list: ASCII
// whitespace, the semicolon, and quotes a template may have left.
func isListSpace(r rune) bool {
	return isASCIISpace(r) || r == ';' || r == '"' || r == '\''
}

// isASCIISpace reports whether r is whitespace to HTML and HTTP.
func isASCIISpace(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\f', '\r':
		return true
	}
	return false
}

// trimASCIISpace trims ASCII whitespace, the only kind HTML and HTTP know.
func trimASCIISpace(s string) string {
	return strings.Trim(s, " \t\n\f\r")
}

// keyword applies one lower-case directive without a value.
func (d *Directives) keyword(w string) {
	switch w {
	case "noindex":
		d.NoIndex = true
	case "nofollow":
		d.NoFollow = true
	case "none":
		d.NoIndex, d.NoFollow = true, true
	case "noarchive", "nocache":
		d.NoArchive = true
	case "nosnippet":
		d.NoSnippet = true
	case "noimageindex":
		d.NoImageIndex = true
	}
}

// zones are the time zone names of RFC 822 (section 5.1), which the
// formats of unavailable_after use; time.Parse would take their offsets
// from the local time zone, or guess zero.
var zones = map[string]int{
	"UT": 0, "UTC": 0, "GMT": 0, "Z": 0,
	"EST": -5, "EDT": -4, "CST": -6, "CDT": -5, "MST": -7, "MDT": -6, "PST": -8, "PDT": -7,
}

// dateLayouts are the forms of dates seen in unavailable_after, after the
// day of the week and the time zone are removed: those of RFC 822/1123,
// RFC 850, ANSI C asctime and ISO 8601, and their common variants.
var dateLayouts = []string{
	"2 Jan 2006 15:04:05",
	"2 Jan 2006 15:04",
	"2 Jan 06 15:04:05",
	"2 Jan 06 15:04",
	"2 January 2006 15:04:05",
	"2 January 2006",
	"2 Jan 2006",
	"2-Jan-2006 15:04:05",
	"2-Jan-06 15:04:05",
	"2-Jan-2006",
	"Jan 2 15:04:05 2006",
	"Jan 2, 2006 15:04:05",
	"January 2, 2006",
	"2006-01-02T15:04:05.999999999",
	"2006-01-02T15:04",
	"2006-01-02 15:04:05",
	"2006-01-02 15:04",
	"2006-01-02",
}

// parseDate reads the date of an unavailable_after directive. Without a
// time zone the time is taken as UTC, and so is an unknown zone name.
func parseDate(s string) (time.Time, bool) {
	s = trimASCIISpace(s)
	if s == "" {
		return time.Time{}, false
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04Z07:00", "2006-01-02T15:04:05Z0700"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), true
		}
	}
	fields := strings.FieldsFunc(s, isASCIISpace)
	if len(fields) == 0 {
		return time.Time{}, false
	}
	// The day of the week is redundant: drop it ("Fri,", "Friday,", "Fri").
	if w := strings.ToLower(strings.TrimSuffix(fields[0], ",")); len(fields) > 1 && isWeekday(w) {
		fields = fields[1:]
	}
	offset := 0 // seconds east of UTC
	if n := len(fields); n > 1 {
		z := fields[n-1]
		if o, ok := zoneOffset(z); ok {
			offset = o
			fields = fields[:n-1]
		}
	}
	rest := strings.Join(fields, " ")
	for _, layout := range dateLayouts {
		if t, err := time.ParseInLocation(layout, rest, time.UTC); err == nil {
			return t.Add(-time.Duration(offset) * time.Second), true
		}
	}
	return time.Time{}, false
}

// isWeekday reports whether w, lower-case, names a day of the week, in
// full or abbreviated to three letters.
func isWeekday(w string) bool {
	for _, d := range []string{"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"} {
		if w == d || w == d[:3] {
			return true
		}
	}
	return false
}

// zoneOffset reads a time zone: an RFC 822 name, "+hhmm", "-hh:mm", or
// another name of letters (an unknown zone, taken as UTC).
func zoneOffset(z string) (int, bool) {
	if o, ok := zones[strings.ToUpper(z)]; ok {
		return o * 3600, true
	}
	if z[0] == '+' || z[0] == '-' {
		digits := strings.Replace(z[1:], ":", "", 1)
		if len(digits) != 4 {
			return 0, false
		}
		v := 0
		for i := 0; i < 4; i++ {
			c := digits[i]
			if c < '0' || c > '9' {
				return 0, false
			}
			v = v*10 + int(c-'0')
		}
		secs := (v/100)*3600 + (v%100)*60
		if z[0] == '-' {
			secs = -secs
		}
		return secs, true
	}
	for i := 0; i < len(z); i++ {
		if c := z[i] | 0x20; c < 'a' || c > 'z' {
			return 0, false
		}
	}
	return 0, len(z) <= 5
}

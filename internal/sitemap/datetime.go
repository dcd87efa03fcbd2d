package sitemap

import (
	"strings"
	"time"
)

// parseW3C parses a W3C Datetime (https://www.w3.org/TR/NOTE-datetime),
// the format of <lastmod> and of Atom dates:
//
//	YYYY | YYYY-MM | YYYY-MM-DD | YYYY-MM-DDThh:mm[:ss[.s+]]TZD
//
// with TZD "Z" or "+hh:mm"/"-hh:mm". Beyond the note, and as found in the
// wild, it accepts a space for "T", lower-case "t" and "z", "+hhmm" and
// "+hh" offsets, and a missing zone (taken as UTC, like a date alone).
// Fixed zones are cached in zones, so that a file of entries with the same
// offset shares one *time.Location. It does not allocate otherwise.
func parseW3C(v []byte, zones *map[int]*time.Location) (time.Time, bool) {
	num := func(b []byte) (int, bool) {
		n := 0
		for _, c := range b {
			if c < '0' || c > '9' {
				return 0, false
			}
			n = n*10 + int(c-'0')
		}
		return n, len(b) > 0
	}
	year, ok := num(v[:min(4, len(v))])
	if !ok || len(v) < 4 {
		return time.Time{}, false
	}
	month, day := 1, 1
	rest := v[4:]
	if len(rest) > 0 {
		if len(rest) < 3 || rest[0] != '-' {
			return time.Time{}, false
		}
		if month, ok = num(rest[1:3]); !ok || month < 1 || month > 12 {
			return time.Time{}, false
		}
		rest = rest[3:]
	}
	if len(rest) > 0 {
		if len(rest) < 3 || rest[0] != '-' {
			return time.Time{}, false
		}
		if day, ok = num(rest[1:3]); !ok || day < 1 || day > daysIn(month, year) {
			return time.Time{}, false
		}
		rest = rest[3:]
	}
	if len(rest) == 0 {
		return time.Date(year, time.Month(month), day, 0, 0, 0, 0, time.UTC), true
	}
	if c := rest[0]; c != 'T' && c != 't' && c != ' ' || len(rest) < 6 || rest[3] != ':' {
		return time.Time{}, false
	}
	hour, ok1 := num(rest[1:3])
	minute, ok2 := num(rest[4:6])
	if !ok1 || !ok2 || hour > 23 || minute > 59 {
		return time.Time{}, false
	}
	rest = rest[6:]
	sec, nsec := 0, 0
	if len(rest) > 0 && rest[0] == ':' {
		if len(rest) < 3 {
			return time.Time{}, false
		}
		if sec, ok = num(rest[1:3]); !ok || sec > 60 { // 60: a leap second, rolled over by time.Date
			return time.Time{}, false
		}
		rest = rest[3:]
		if len(rest) > 0 && (rest[0] == '.' || rest[0] == ',') {
			i := 1
			for ; i < len(rest) && rest[i] >= '0' && rest[i] <= '9'; i++ {
				if i <= 9 {
					nsec = nsec*10 + int(rest[i]-'0')
				}
			}
			if i == 1 {
				return time.Time{}, false
			}
			for d := i; d <= 9; d++ {
				nsec *= 10
			}
			rest = rest[i:]
		}
	}
	loc, ok := zone(rest, zones)
	if !ok {
		return time.Time{}, false
	}
	return time.Date(year, time.Month(month), day, hour, minute, sec, nsec, loc), true
}

// zone parses a time zone designator: "", "Z", "+hh:mm", "+hhmm", "+hh".
func zone(v []byte, zones *map[int]*time.Location) (*time.Location, bool) {
	if len(v) == 0 || len(v) == 1 && (v[0] == 'Z' || v[0] == 'z') {
		return time.UTC, true
	}
	sign := 1
	switch v[0] {
	case '+':
	case '-':
		sign = -1
	default:
		return nil, false
	}
	v = v[1:]
	var hh, mm []byte
	switch {
	case len(v) == 2:
		hh = v
	case len(v) == 4:
		hh, mm = v[:2], v[2:]
	case len(v) == 5 && v[2] == ':':
		hh, mm = v[:2], v[3:]
	default:
		return nil, false
	}
	h, m := 0, 0
	for _, c := range hh {
		if c < '0' || c > '9' {
			return nil, false
		}
		h = h*10 + int(c-'0')
	}
	for _, c := range mm {
		if c < '0' || c > '9' {
			return nil, false
		}
		m = m*10 + int(c-'0')
	}
	if h > 23 || m > 59 {
		return nil, false
	}
	off := sign * (h*3600 + m*60)
	if off == 0 {
		return time.UTC, true
	}
	if *zones == nil {
		*zones = map[int]*time.Location{}
	}
	loc := (*zones)[off]
	if loc == nil {
		loc = time.FixedZone("", off)
		(*zones)[off] = loc
	}
	return loc, true
}

func daysIn(month, year int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// rfc822Layouts are the date formats of RSS <pubDate> (RFC 822, with a
// four-digit year as RFC 1123 has it) and their usual variants.
var rfc822Layouts = []string{
	time.RFC1123Z,                     // Mon, 02 Jan 2006 15:04:05 -0700
	time.RFC1123,                      // Mon, 02 Jan 2006 15:04:05 MST
	"Mon, 2 Jan 2006 15:04:05 -0700",  // one-digit day
	"Mon, 2 Jan 2006 15:04:05 MST",    //
	"Mon, 2 Jan 2006 15:04 -0700",     // no seconds
	"Mon, 2 Jan 2006 15:04 MST",       //
	"2 Jan 2006 15:04:05 -0700",       // no weekday
	"2 Jan 2006 15:04:05 MST",         //
	"Mon, 2 Jan 06 15:04:05 -0700",    // two-digit year (RFC 822 proper)
	"Mon, 2 Jan 06 15:04:05 MST",      //
	"Monday, 2 Jan 2006 15:04:05 MST", // full weekday
}

// rfc822Zones are the zone names RFC 822 defines, in seconds east of UTC.
var rfc822Zones = map[string]int{
	"UT": 0, "GMT": 0, "Z": 0,
	"EST": -5 * 3600, "EDT": -4 * 3600,
	"CST": -6 * 3600, "CDT": -5 * 3600,
	"MST": -7 * 3600, "MDT": -6 * 3600,
	"PST": -8 * 3600, "PDT": -7 * 3600,
}

// parseRFC822 parses an RSS date; zero when no layout fits. Zone names are
// those of RFC 822 (UT, GMT, EST, EDT, CST, CDT, MST, MDT, PST, PDT) or
// UTC; any other name is read as UTC, so that the result never depends on
// the machine's local zone.
func parseRFC822(s string) time.Time {
	s = strings.TrimSpace(s)
	for _, layout := range rfc822Layouts {
		t, err := time.ParseInLocation(layout, s, time.UTC)
		if err != nil {
			continue
		}
		if name, off := t.Zone(); off == 0 && name != "UTC" {
			if off, ok := rfc822Zones[strings.ToUpper(name)]; ok && off != 0 {
				return time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(),
					time.FixedZone(name, off))
			}
			return time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC)
		}
		return t
	}
	return time.Time{}
}

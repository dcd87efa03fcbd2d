package crawl

import (
	"strings"
)

// Calendars are recognized by a date in the URL, in the forms calendar
// software writes: consecutive year/month[/day] path segments
// ("/2026/11/", "/events/2026/11/21"), a dated segment ("2026-11",
// "day-2026_11_21.html"), a dated query value ("date=2026-11-21",
// "d=20261121"), or year and month parameters ("year=2026&month=11").
// Years run from 1900 to 2199. A year alone is not a date: too many
// numbers look like one. The template is the path and query with the
// date replaced by placeholders; two URLs with the same template and
// different dates are two pages of one calendar.

// calendarTemplate returns the template of a URL with escaped path path
// and (sorted) query, or "" when it has no date.
func calendarTemplate(path, query string) string {
	if !hasYear(path) && !hasYear(query) {
		return ""
	}
	p, okPath := pathTemplate(path)
	q, okQuery := queryTemplate(query)
	if !okPath && !okQuery {
		return ""
	}
	if query == "" {
		return p
	}
	return p + "?" + q
}

// hasYear is a quick filter: a run of exactly four digits from 1900 to
// 2199, or of eight digits that make a date written YYYYMMDD. It looks
// at each maximal run of digits once (most keys have few).
func hasYear(s string) bool {
	for i := 0; i < len(s); {
		if !isDigitByte(s[i]) {
			i++
			continue
		}
		j := i + 1
		for j < len(s) && isDigitByte(s[j]) {
			j++
		}
		switch run := s[i:j]; len(run) {
		case 4:
			if isYear(run) {
				return true
			}
		case 8:
			if isCompactDate(run) {
				return true
			}
		}
		i = j
	}
	return false
}

func isDigitByte(c byte) bool { return '0' <= c && c <= '9' }

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isDigitByte(s[i]) {
			return false
		}
	}
	return true
}

// number parses one to four decimal digits; -1 if s is not that.
func number(s string) int {
	if len(s) == 0 || len(s) > 4 || !allDigits(s) {
		return -1
	}
	n := 0
	for i := 0; i < len(s); i++ {
		n = n*10 + int(s[i]-'0')
	}
	return n
}

func isYear(s string) bool {
	n := number(s)
	return len(s) == 4 && n >= 1900 && n <= 2199
}

func isMonth(s string) bool {
	n := number(s)
	return len(s) <= 2 && n >= 1 && n <= 12
}

func isDay(s string) bool {
	n := number(s)
	return len(s) <= 2 && n >= 1 && n <= 31
}

// isCompactDate: YYYYMMDD.
func isCompactDate(s string) bool {
	return len(s) == 8 && allDigits(s) && isYear(s[:4]) && isMonth(s[4:6]) && isDay(s[6:])
}

// datePrefix returns the length of a date written with separators at the
// start of s ("2026-11", "2026_11_21", "2026.11.21"), or 0.
func datePrefix(s string) int {
	if len(s) < 7 || !isYear(s[:4]) || !isSep(s[4]) {
		return 0
	}
	m := 5
	for m < len(s) && m < 7 && isDigitByte(s[m]) {
		m++
	}
	if !isMonth(s[5:m]) {
		return 0
	}
	end := m
	if m+1 < len(s) && isSep(s[m]) && s[m] == s[4] {
		d := m + 1
		for d < len(s) && d < m+3 && isDigitByte(s[d]) {
			d++
		}
		if isDay(s[m+1 : d]) {
			end = d
		}
	}
	if end < len(s) && isDigitByte(s[end]) {
		return 0
	}
	return end
}

func isSep(c byte) bool { return c == '-' || c == '_' || c == '.' || c == '/' }

// pathTemplate replaces the date of a path by placeholders.
func pathTemplate(path string) (string, bool) {
	segs := strings.Split(path, "/")
	for i := 0; i+1 < len(segs); i++ {
		if isYear(segs[i]) && isMonth(segs[i+1]) {
			segs[i], segs[i+1] = "{y}", "{m}"
			if i+2 < len(segs) && isDay(segs[i+2]) {
				segs[i+2] = "{d}"
			}
			return strings.Join(segs, "/"), true
		}
	}
	for i, s := range segs {
		for j := 0; j < len(s); j++ {
			if j > 0 && isDigitByte(s[j-1]) {
				continue
			}
			if n := datePrefix(s[j:]); n > 0 {
				segs[i] = s[:j] + "{date}" + s[j+n:]
				return strings.Join(segs, "/"), true
			}
		}
	}
	return path, false
}

// queryTemplate replaces dated values, or year and month parameters, by
// placeholders.
func queryTemplate(query string) (string, bool) {
	if query == "" {
		return "", false
	}
	params := strings.Split(query, "&")
	found := false
	year, month := -1, -1
	for i, p := range params {
		name, value, _ := strings.Cut(p, "=")
		switch {
		case isCompactDate(value) || datePrefix(value) == len(value) && value != "":
			params[i] = name + "={date}"
			found = true
		case isYear(value) && isParamName(name, "year", "yr", "y"):
			year = i
		case isMonth(value) && isParamName(name, "month", "mon", "mo", "m"):
			month = i
		}
	}
	if year >= 0 && month >= 0 {
		params[year] = strings.Split(params[year], "=")[0] + "={y}"
		params[month] = strings.Split(params[month], "=")[0] + "={m}"
		for i, p := range params {
			name, value, _ := strings.Cut(p, "=")
			if isDay(value) && isParamName(name, "day", "d") {
				params[i] = name + "={d}"
			}
		}
		found = true
	}
	return strings.Join(params, "&"), found
}

func isParamName(name string, names ...string) bool {
	for _, n := range names {
		if strings.EqualFold(name, n) {
			return true
		}
	}
	return false
}

package main

import (
	"fmt"
	"strings"
	"time"
)

// Formatting shared by the commands' output: durations, counts and sizes
// as a person reads them.

// humanDuration is d rounded to what a person reads: 850ms, 12s, 3m05s,
// 2h14m, 3d04h.
func humanDuration(d time.Duration) string {
	if d < 0 {
		d = -d
	}
	switch {
	case d == 0:
		return "0s"
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < time.Minute:
		s := d.Seconds()
		if s < 10 && d%time.Second != 0 {
			return fmt.Sprintf("%.1fs", s)
		}
		return fmt.Sprintf("%ds", int(s))
	case d < time.Hour:
		d = d.Round(time.Second)
		return fmt.Sprintf("%dm%02ds", int(d/time.Minute), int(d%time.Minute/time.Second))
	case d < 24*time.Hour:
		d = d.Round(time.Minute)
		return fmt.Sprintf("%dh%02dm", int(d/time.Hour), int(d%time.Hour/time.Minute))
	}
	d = d.Round(time.Hour)
	return fmt.Sprintf("%dd%02dh", int(d/(24*time.Hour)), int(d%(24*time.Hour)/time.Hour))
}

// untilString says when t comes: "now", "in 3s", "2m05s ago", "-".
func untilString(t, now time.Time) string {
	switch {
	case t.IsZero():
		return "-"
	case !t.After(now):
		return "now"
	}
	return "in " + humanDuration(t.Sub(now))
}

// humanCount writes n with thousands separators: 12,345.
func humanCount(n int64) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// adminBytes is n in binary units: 1.2 GiB.
func adminBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	v, i := float64(n)/unit, 0
	for v >= unit && i < 5 {
		v /= unit
		i++
	}
	return fmt.Sprintf("%.1f %ciB", v, "KMGTPE"[i])
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func paren(s string) string {
	if s == "" {
		return ""
	}
	return "(" + s + ")"
}

package main

import "testing"

func TestParseBytes(t *testing.T) {
	good := map[string]int64{"1048576": 1 << 20, "512KiB": 512 << 10, "256MiB": 256 << 20, "2GiB": 2 << 30, " 3 MiB ": 3 << 20, "10B": 10}
	for in, want := range good {
		if got, err := parseBytes(in); err != nil || got != want {
			t.Errorf("parseBytes(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0", "-1MiB", "1.5GiB", "256MB", "lots", "99999999999TiB"} {
		if got, err := parseBytes(in); err == nil {
			t.Errorf("parseBytes(%q) = %d, want an error", in, got)
		}
	}
}

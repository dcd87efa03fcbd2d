package fetch

import (
	"errors"
	"net/netip"
	"testing"
)

func TestForbidden(t *testing.T) {
	tests := []struct {
		addr string
		want bool
	}{
		{"127.0.0.1", true},
		{"127.255.255.254", true},
		{"10.0.0.1", true},
		{"172.16.0.1", true},
		{"172.31.255.255", true},
		{"192.168.1.1", true},
		{"169.254.169.254", true},
		{"100.64.0.1", true},
		{"100.127.255.255", true},
		{"0.0.0.0", true},
		{"0.1.2.3", true},
		{"224.0.0.1", true},
		{"239.255.255.250", true},
		{"255.255.255.255", true},
		{"240.0.0.1", true},
		{"198.18.0.1", true},
		{"192.0.0.8", true},
		{"::1", true},
		{"::", true},
		{"fc00::1", true},
		{"fd12:3456::1", true},
		{"fe80::1", true},
		{"fe80::1%eth0", true},
		{"ff02::1", true},
		{"::ffff:127.0.0.1", true},
		{"::ffff:10.0.0.1", true},
		{"::ffff:169.254.169.254", true},
		{"::127.0.0.1", true},
		{"64:ff9b::a00:1", true},    // NAT64 of 10.0.0.1
		{"2002:7f00:1::1", true},    // 6to4 of 127.0.0.1
		{"2002:a9fe:a9fe::1", true}, // 6to4 of 169.254.169.254
		{"8.8.8.8", false},
		{"93.184.216.34", false},
		{"100.63.255.255", false},
		{"100.128.0.0", false},
		{"172.32.0.1", false},
		{"192.169.0.1", false},
		{"2606:4700:4700::1111", false},
		{"::ffff:8.8.8.8", false},
		{"64:ff9b::808:808", false}, // NAT64 of 8.8.8.8
		{"2002:808:808::1", false},  // 6to4 of 8.8.8.8
	}
	for _, tt := range tests {
		a := netip.MustParseAddr(tt.addr)
		if got := forbidden(a); got != tt.want {
			t.Errorf("forbidden(%s) = %v, want %v", tt.addr, got, tt.want)
		}
	}
	if !forbidden(netip.Addr{}) {
		t.Error("forbidden(invalid) = false, want true")
	}
}

func TestGuardControl(t *testing.T) {
	tests := []struct {
		address string
		ok      bool
	}{
		{"127.0.0.1:80", false},
		{"[::ffff:10.0.0.1]:443", false},
		{"[fe80::1%eth0]:80", false},
		{"not-an-address", false},
		{"93.184.216.34:80", true},
		{"[2606:4700:4700::1111]:443", true},
	}
	for _, tt := range tests {
		err := guardControl("tcp", tt.address, nil)
		if (err == nil) != tt.ok {
			t.Errorf("guardControl(%q) = %v, want ok=%v", tt.address, err, tt.ok)
		}
		if err != nil && !errors.Is(err, ErrForbiddenAddress) {
			t.Errorf("guardControl(%q) = %v, want it to wrap ErrForbiddenAddress", tt.address, err)
		}
	}
}

func TestCheckHost(t *testing.T) {
	tests := []struct {
		host string
		ok   bool
	}{
		{"example.com", true},
		{"example.com.", true},
		{"93.184.216.34", true},
		{"2606:4700:4700::1111", true},
		{"1st.example", true},
		{"a.b.123x", true},
		{"127.0.0.1", false},
		{"::1", false},
		{"localhost", false},
		{"LOCALHOST.", false},
		{"app.localhost", false},
		{"127.1", false},
		{"2130706433", false},
		{"0x7f.0.0.1", false},
		{"example.0x7f", false},
		{"example.123", false},
		{"fe80::1%eth0", false},
	}
	for _, tt := range tests {
		err := checkHost(tt.host)
		if (err == nil) != tt.ok {
			t.Errorf("checkHost(%q) = %v, want ok=%v", tt.host, err, tt.ok)
		}
		if err != nil && !errors.Is(err, ErrForbiddenAddress) {
			t.Errorf("checkHost(%q) = %v, want it to wrap ErrForbiddenAddress", tt.host, err)
		}
	}
}

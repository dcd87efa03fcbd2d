package jetstream

import (
	"net"
	"strings"
	"testing"
	"time"
)

func TestServerPortInUse(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	s, err := NewServer(ServerConfig{Listen: l.Addr().String(), DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	err = s.Start(t.Context())
	if err == nil {
		s.Shutdown()
		t.Fatal("Start on a port in use = nil error")
	}
	if !strings.Contains(err.Error(), "did not start") {
		t.Errorf("Start = %v, want a start failure", err)
	}
	t.Logf("failed after %v: %v", time.Since(start), err)
}

func TestServerConfigErrors(t *testing.T) {
	for name, cfg := range map[string]ServerConfig{
		"no data":            {},
		"cluster no name":    {DataDir: "d", ClusterListen: "127.0.0.1:0", Routes: []string{"nats://127.0.0.1:1"}},
		"cluster no routes":  {DataDir: "d", Name: "a", ClusterListen: "127.0.0.1:0"},
		"routes, no cluster": {DataDir: "d", Routes: []string{"nats://127.0.0.1:1"}},
		"bad route":          {DataDir: "d", Name: "a", ClusterListen: "127.0.0.1:0", Routes: []string{"::"}},
		"bad listen":         {DataDir: "d", Listen: "nowhere"},
	} {
		if _, err := NewServer(cfg); err == nil {
			t.Errorf("%s: NewServer = nil error", name)
		}
	}
}

package server

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/lfcli/lf/pkg/alerts"
)

// TestConfigDefaultsFromSchema: what server.yaml leaves out takes the
// default: values of schemas/server-config.schema.json, which are the
// documented ones.
func TestConfigDefaultsFromSchema(t *testing.T) {
	cfg, ds := LoadConfig("s.yaml", []byte("apiKeys: [{name: a, admin: true, key: 0123456789abcdef}]\nsmtp: {host: h, from: a@b}\n"), func(string) string { return "" })
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	if cfg.Interval != 5*time.Minute || cfg.MaxBodyBytes != 16<<20 {
		t.Errorf("interval %v, max body %d", cfg.Interval, cfg.MaxBodyBytes)
	}
	if cfg.Alerts.BaseBackoff != time.Second || cfg.Alerts.MaxBackoff != 30*time.Second || cfg.Alerts.Client == nil {
		t.Errorf("delivery %+v", cfg.Alerts)
	}
	if cfg.HeaderTimeout != readHeaderTimeout || cfg.RequestTimeout != readTimeout || cfg.BodyTimeout != bodyReadTimeout {
		t.Errorf("timeouts %v %v %v", cfg.HeaderTimeout, cfg.RequestTimeout, cfg.BodyTimeout)
	}
	if cfg.Mailer.Port != 587 || cfg.Mailer.StartTLS != alerts.StartTLSRequired {
		t.Errorf("smtp %+v", cfg.Mailer)
	}
}

// TestConfigTimeouts: timeouts: values are read, and one that is not a
// positive duration is refused at its field.
func TestConfigTimeouts(t *testing.T) {
	const keys = "apiKeys: [{name: a, admin: true, key: 0123456789abcdef}]\n"
	cfg, ds := LoadConfig("s.yaml", []byte(keys+"timeouts: {header: 200ms, request: 1s, body: 300ms}\n"), func(string) string { return "" })
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	if cfg.HeaderTimeout != 200*time.Millisecond || cfg.RequestTimeout != time.Second || cfg.BodyTimeout != 300*time.Millisecond {
		t.Errorf("timeouts %v %v %v", cfg.HeaderTimeout, cfg.RequestTimeout, cfg.BodyTimeout)
	}
	s := &Server{cfg: cfg}
	if s.headerTimeout() != 200*time.Millisecond || s.requestTimeout() != time.Second || s.bodyTimeout(3<<20) != 3300*time.Millisecond {
		t.Errorf("server timeouts %v %v %v", s.headerTimeout(), s.requestTimeout(), s.bodyTimeout(3<<20))
	}
	if d := (&Server{cfg: &Config{}}).bodyTimeout(100 << 20); d != maxBodyTime {
		t.Errorf("a 100 MiB body's default timeout: %v", d)
	}
	_, ds = LoadConfig("s.yaml", []byte(keys+"timeouts:\n  body: -1s\n"), func(string) string { return "" })
	if !ds.HasErrors() || !strings.Contains(fmt.Sprint(ds), "s.yaml:3:") || !strings.Contains(fmt.Sprint(ds), "-1s") {
		t.Errorf("a negative body timeout: %v", ds)
	}
}

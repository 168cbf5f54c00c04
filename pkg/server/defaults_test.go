package server

import (
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
	if cfg.Mailer.Port != 587 || cfg.Mailer.StartTLS != alerts.StartTLSRequired {
		t.Errorf("smtp %+v", cfg.Mailer)
	}
}

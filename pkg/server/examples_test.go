package server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lfcli/lf/pkg/alerts"
)

func exampleEnv(k string) string {
	if strings.HasPrefix(k, "LF_") {
		return "example-value-" + strings.ToLower(k)
	}
	return ""
}

// TestExamples keeps examples/server valid.
func TestExamples(t *testing.T) {
	dir := filepath.Join("..", "..", "examples", "server")
	data, err := os.ReadFile(filepath.Join(dir, "server.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	cfg, d := LoadConfig("examples/server/server.yaml", data, exampleEnv)
	if d.HasErrors() {
		t.Fatalf("server.yaml: %v", d)
	}
	if len(cfg.Keys) != 3 || len(cfg.AlertRules) != 2 || cfg.Mailer == nil || cfg.Mailer.StartTLS != alerts.StartTLSRequired {
		t.Errorf("server.yaml decoded as %+v", cfg)
	}
	data, err = os.ReadFile(filepath.Join(dir, "alert_rules.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	rules, d := alerts.ParseRulesFile("examples/server/alert_rules.yaml", data, cfg.Alerts.AllowHosts)
	if d.HasErrors() || len(rules) != 2 {
		t.Fatalf("alert_rules.yaml: %d rules, %v", len(rules), d)
	}
}

// FuzzLoadConfig: any input gives a config or diagnostics, never a panic.
func FuzzLoadConfig(f *testing.F) {
	if b, err := os.ReadFile(filepath.Join("..", "..", "examples", "server", "server.yaml")); err == nil {
		f.Add(b)
	}
	f.Add([]byte("apiKeys: [{name: a, tenant: t, key: 0123456789abcdefg}]\nalertRules: [{id: r, tenantId: t, threshold: 5, channel: email, to: [a@b]}]\n"))
	f.Add([]byte("{}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, d := LoadConfig("f.yaml", data, exampleEnv)
		if cfg == nil && !d.HasErrors() {
			t.Fatal("no config and no error")
		}
	})
}

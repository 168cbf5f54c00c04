package server

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/lfcli/lf/pkg/alerts"
	"github.com/lfcli/lf/pkg/internal/fuzzcheck"
	"github.com/lfcli/lf/schemas"
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
		fuzzcheck.Bounded(t, len(data), func() {
			cfg, d := LoadConfig("f.yaml", data, exampleEnv)
			if cfg == nil && !d.HasErrors() {
				t.Fatal("no config and no error")
			}
		})
	})
}

// TestOpenAPIInlinesCurrentSchemas: the request bodies of PUT risk-config and
// POST alert-rules are copies of the project schemas (inlined so that
// OpenAPI tools need no lf:/// resolver); they must not drift.
func TestOpenAPIInlinesCurrentSchemas(t *testing.T) {
	read := func(name string) map[string]any {
		b, err := schemas.FS.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		var v map[string]any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	oa := read("openapi.json")["components"].(map[string]any)["schemas"].(map[string]any)
	for _, c := range []struct{ component, file, def string }{
		{"RiskConfig", "risk-config.schema.json", "riskConfig"},
		{"AlertRuleIn", "alert-rules.schema.json", "rule"},
	} {
		got := oa[c.component].(map[string]any)["allOf"].([]any)[0]
		want := read(c.file)["$defs"].(map[string]any)[c.def]
		if !reflect.DeepEqual(got, want) {
			t.Errorf("openapi.json components/schemas/%s differs from %s $defs/%s: copy it again", c.component, c.file, c.def)
		}
	}
}

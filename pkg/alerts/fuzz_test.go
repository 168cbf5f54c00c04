package alerts

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/lfcli/lf/pkg/internal/fuzzcheck"
)

// FuzzParseRulesFile: any input gives rules or diagnostics, never a panic.
func FuzzParseRulesFile(f *testing.F) {
	if b, err := os.ReadFile(filepath.Join("..", "..", "examples", "server", "alert_rules.yaml")); err == nil {
		f.Add(b)
	}
	f.Add([]byte("alert_rules: [{id: a, tenantId: t, tier: high, channel: webhook, url: 'http://x/', secretName: s}]"))
	f.Add([]byte("alert_rules: [{tenantId: t, threshold: 101, tier: x, channel: email, to: []}]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzcheck.Bounded(t, len(data), func() {
			rules, d := ParseRulesFile("f.yaml", data, HostAllowList{"x"})
			if !d.HasErrors() {
				for _, r := range rules {
					if err := r.Check(HostAllowList{"x"}); err != nil {
						t.Fatalf("accepted a rule that fails Check: %v", err)
					}
				}
			}
		})
	})
}

package agentrisk

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/lfcli/lf/pkg/internal/testfiles"
)

func runCases(t *testing.T, path string, wantN int) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cases, diags := ParseDecideCases(path, data)
	if diags.HasErrors() {
		t.Fatalf("%v", diags)
	}
	if wantN > 0 && len(cases) != wantN {
		t.Fatalf("%d cases, want %d", len(cases), wantN)
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			r := c.Run()
			for _, m := range c.Mismatches(r) {
				t.Error(m)
			}
		})
	}
}

func TestDecideConformance(t *testing.T) {
	p := filepath.Join(testfiles.SharedDir(), "conformance", "agent-risk", "decisions.yaml")
	if _, err := os.Stat(p); err != nil {
		t.Skipf("shared conformance suite not found at %s (set LF_SHARED): %v", p, err)
	}
	runCases(t, p, 30)
}

func TestDecideBundledCases(t *testing.T) {
	runCases(t, filepath.Join("..", "..", "examples", "agents", "decisions.yaml"), 0)
}

func TestDecideDoesNotAllocate(t *testing.T) {
	cfg := DefaultRiskConfig()
	cfg.Enabled = true
	cfg.RateLimit = &RateLimit{Limit: 100, WindowSeconds: 60}
	secs := 10.0
	agent := AgentState{Score: 95, SecondsInTier: &secs}
	req := Request{Method: "tools/call"}
	n := testing.AllocsPerRun(100, func() { _ = Decide(cfg, agent, req, 10) })
	if n != 0 {
		t.Errorf("Decide allocates %v times per call", n)
	}
}

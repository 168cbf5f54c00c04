package agentrisk

import (
	"os"
	"path/filepath"
	"testing"
)

// sharedDir finds ../shared next to the repository root (or LF_SHARED).
func sharedDir(t testing.TB) string {
	t.Helper()
	if d := os.Getenv("LF_SHARED"); d != "" {
		return d
	}
	dir, _ := os.Getwd()
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "..", "shared")
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

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
	p := filepath.Join(sharedDir(t), "conformance", "agent-risk", "decisions.yaml")
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

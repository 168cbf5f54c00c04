package agentleak

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFewNames(t *testing.T) {
	for _, c := range []struct {
		names []string
		want  string
	}{
		{[]string{"a"}, "1 (a)"},
		{[]string{"a", "b", "c"}, "3 (a, b, c)"},
		{[]string{"a", "b", "c", "d", "e"}, "5 (a, b, c and 2 more; -o json lists them all)"},
	} {
		if got := FewNames(c.names, 3); got != c.want {
			t.Errorf("FewNames(%v) = %q, want %q", c.names, got, c.want)
		}
	}
}

func TestPrepareRejectsNegativeWorkers(t *testing.T) {
	if _, err := Prepare(ScanInputs{Workers: -1}); err == nil || !strings.Contains(err.Error(), "at least 1") {
		t.Errorf("Prepare(workers -1) = %v, want a usage error", err)
	}
}

// TestInputHash: the hash that lets lf run keep an unchanged scan changes
// with any byte of a trace, vault or config file and with the evaluation
// key, and only then.
func TestInputHash(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "t.jsonl")
	write := func(s string) {
		if err := os.WriteFile(trace, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	hash := func(key string) string {
		p, err := Prepare(ScanInputs{Traces: []string{trace}, EvaluationKey: key, SkipUnchanged: true})
		if err != nil {
			t.Fatal(err)
		}
		return p.hash
	}
	write(`{"run_id": "r", "scenario_id": "s", "events": []}` + "\n")
	h1 := hash("k")
	if len(h1) != 12 || h1 != hash("k") {
		t.Fatalf("hash %q is not stable", h1)
	}
	if hash("other") == h1 {
		t.Error("the evaluation key does not change the hash")
	}
	write(`{"run_id": "r", "scenario_id": "t", "events": []}` + "\n")
	if hash("k") == h1 {
		t.Error("a changed trace does not change the hash")
	}
	p, err := Prepare(ScanInputs{Traces: []string{trace}, EvaluationKey: "k"})
	if err != nil || p.hash != "" {
		t.Errorf("without SkipUnchanged the plan has hash %q (err %v)", p.hash, err)
	}
	if !hasHashSuffix("scan-20260101T000000Z-"+h1, h1) || hasHashSuffix("scan-x"+h1, h1) {
		t.Error("hasHashSuffix")
	}
}

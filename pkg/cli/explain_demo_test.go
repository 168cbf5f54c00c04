package cli_test

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/lfcli/lf/pkg/cli"
	"github.com/lfcli/lf/pkg/internal/testfiles"
)

// lfIn runs lf in dir's project and returns its standard output.
func lfIn(t *testing.T, dir string, args ...string) []byte {
	t.Helper()
	var out, errb bytes.Buffer
	all := append([]string{"lf", "--project", dir}, args...)
	if code := cli.Run(all, nil, &out, &errb); code != 0 {
		t.Fatalf("lf %v: exit %d: %s", args, code, errb.String())
	}
	return out.Bytes()
}

type explained struct {
	Explanation struct {
		Values []struct {
			Risk float64 `json:"risk"`
		} `json:"values"`
		Aggregation struct {
			Kind string `json:"kind"`
		} `json:"aggregation"`
		Score *float64 `json:"score"`
		Level string   `json:"level"`
	} `json:"explanation"`
}

// TestExplainReproducesDemoOverview runs the demo project and checks that
// lf explain risk-scorer -o json gives every scorer the score and level lf
// overview risk-scorers -o json prints, and that its listed risks,
// aggregated as it says, make that score.
func TestExplainReproducesDemoOverview(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "project")
	if err := os.CopyFS(dir, os.DirFS(filepath.Join(testfiles.RepoRoot(), "project"))); err != nil {
		t.Fatal(err)
	}
	lfIn(t, dir, "run", "-f", filepath.Join(dir, "run.yaml"))
	var overview []struct {
		Key    string   `json:"key"`
		Score  *float64 `json:"score"`
		Level  string   `json:"level"`
		Values int      `json:"values"`
	}
	if err := json.Unmarshal(lfIn(t, dir, "overview", "risk-scorers", "-o", "json"), &overview); err != nil {
		t.Fatal(err)
	}
	if len(overview) < 5 {
		t.Fatalf("the demo has %d risk scorers, want at least 5", len(overview))
	}
	for _, r := range overview {
		var e explained
		if err := json.Unmarshal(lfIn(t, dir, "explain", "risk-scorer", r.Key, "-o", "json"), &e); err != nil {
			t.Fatal(err)
		}
		x := e.Explanation
		if r.Score == nil || x.Score == nil {
			t.Fatalf("%s: the demo scores every scorer: overview %v, explain %v", r.Key, r.Score, x.Score)
		}
		if *x.Score != *r.Score || x.Level != r.Level || len(x.Values) != r.Values {
			t.Fatalf("%s: explain %v %s (%d values), overview %v %s (%d values)", r.Key, *x.Score, x.Level, len(x.Values), *r.Score, r.Level, r.Values)
		}
		acc := 0.0
		for i, v := range x.Values {
			switch {
			case i == 0:
				acc = v.Risk
			case x.Aggregation.Kind == "max":
				acc = math.Max(acc, v.Risk)
			case x.Aggregation.Kind == "min":
				acc = math.Min(acc, v.Risk)
			default:
				acc += v.Risk
			}
		}
		if x.Aggregation.Kind == "mean" {
			acc /= float64(len(x.Values))
		}
		if got := math.Round(math.Min(10, math.Max(0, acc))*1e9) / 1e9; got != *r.Score {
			t.Fatalf("%s: the listed risks make %v, the overview says %v", r.Key, got, *r.Score)
		}
	}
}

package importers

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lfcli/lf/pkg/internal/testfiles"
	"github.com/lfcli/lf/pkg/model"
)

// fixedTime is the modification time given to copies of the fixtures, so that
// runs whose created_at is inferred from it (HELM) have stable goldens.
var fixedTime = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

type fixture struct {
	path   string // under testdata
	format Format
}

var fixtures = []fixture{
	{"promptfoo/eval_results.json", Promptfoo},
	{"promptfoo/eval_error_case.json", Promptfoo},
	{"promptfoo/redteam_results.json", Promptfoo},
	{"inspect/security-guide_success.json", Inspect},
	{"inspect/eval_set_status_error.json", Inspect},
	{"inspect/legacy_v1_with_nan.json", Inspect},
	{"inspect/popularity_2epochs.eval", Inspect},
	{"lm-eval/qwen3-8b_negotiationtom_group_NA.json", LMEval},
	{"lm-eval/llama-3.1-8b_mmlu_nested_groups.json", LMEval},
	{"lm-eval/legacy_arc_challenge-v2.0-res.json", LMEval},
	{"garak/nvidia_report_test_qwen2.report.jsonl", Garak},
	{"garak/nvidia_extracted_digest.json", Garak},
	{"helm/anthropic_red_team__openai_gpt-4o-2024-05-13__run_spec.json", HELM},
	{"deepeval/beeai_latest_test_run.json", DeepEval},
	{"deepeval/beeai_latest_test_run_ollama.json", DeepEval},
	{"ragas/hypergraphrag_hotpotqa_samples300-314.csv", RAGAS},
	{"ragas/beeai_experiment_blissful_thiel.csv", RAGAS},
}

// copyFixture copies a fixture (and its HELM siblings) into a temporary folder
// with a fixed modification time.
func copyFixture(t testing.TB, rel string) string {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join("testdata", rel)
	matches := []string{src}
	if strings.HasPrefix(rel, "helm/") {
		matches, _ = filepath.Glob(filepath.Join("testdata", "helm", "*"))
	}
	for _, m := range matches {
		b, err := os.ReadFile(m)
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(dir, filepath.Base(m))
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(dst, fixedTime, fixedTime); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, filepath.Base(src))
}

type goldenOut struct {
	Format      Format                `json:"format"`
	Detected    bool                  `json:"detected"`
	Skipped     int                   `json:"skipped"`
	Diagnostics []string              `json:"diagnostics"`
	Runs        []model.EvaluationRun `json:"runs"`
}

func importFile(t testing.TB, path string, format Format) (goldenOut, FileReport) {
	t.Helper()
	var runs []model.EvaluationRun
	rep, err := Import(context.Background(), format, []string{path}, Options{}, func(r model.EvaluationRun) error {
		runs = append(runs, r)
		return nil
	})
	if err != nil {
		t.Fatalf("Import: %v", err)
	}
	fr := rep.Files[0]
	out := goldenOut{Format: fr.Format, Detected: fr.Detected, Skipped: fr.Skipped, Runs: runs, Diagnostics: []string{}}
	dir := filepath.Dir(path) + string(filepath.Separator)
	for _, d := range fr.Diagnostics {
		out.Diagnostics = append(out.Diagnostics, strings.ReplaceAll(d.String(), dir, ""))
	}
	return out, fr
}

func TestFixturesGolden(t *testing.T) {
	for _, fx := range fixtures {
		t.Run(fx.path, func(t *testing.T) {
			p := copyFixture(t, fx.path)
			got, fr := importFile(t, p, "")
			if fr.Err != nil {
				t.Fatalf("import failed: %v", fr.Err)
			}
			if got.Format != fx.format || !got.Detected {
				t.Errorf("detected %q (detected=%v), want %q", got.Format, got.Detected, fx.format)
			}
			if len(got.Runs) == 0 {
				t.Fatal("no run")
			}
			for _, r := range got.Runs {
				checkRun(t, r)
			}
			explicit, _ := importFile(t, p, fx.format)
			explicit.Detected = true
			a, _ := json.Marshal(got)
			b, _ := json.Marshal(explicit)
			if !bytes.Equal(a, b) {
				t.Errorf("explicit format gives a different import than detection")
			}
			// importing twice gives the same runs
			again, _ := importFile(t, p, "")
			c, _ := json.Marshal(again)
			if !bytes.Equal(a, c) {
				t.Errorf("a second import differs from the first")
			}
			compareGolden(t, filepath.Join("testdata", fx.path+".golden.json"), got)
		})
	}
}

// checkRun checks what the store and the schema require of every run.
func checkRun(t *testing.T, r model.EvaluationRun) {
	t.Helper()
	if !ValidKey(r.EvaluationKey) || !ValidKey(r.ID) {
		t.Errorf("invalid keys %q / %q", r.EvaluationKey, r.ID)
	}
	if r.CreatedAt.IsZero() || r.CreatedAt.Location() != time.UTC {
		t.Errorf("created_at %v", r.CreatedAt)
	}
	seen := map[string]bool{}
	for _, res := range r.Results {
		if !ValidKey(res.TaskSpecificationKey) || !ValidKey(res.ScorerKey) {
			t.Errorf("invalid result keys %q / %q", res.TaskSpecificationKey, res.ScorerKey)
		}
		k := res.TaskSpecificationKey + "\x00" + res.ScorerKey
		if seen[k] {
			t.Errorf("result %s/%s twice", res.TaskSpecificationKey, res.ScorerKey)
		}
		seen[k] = true
		for m := range res.Metrics {
			if !ValidKey(m) {
				t.Errorf("invalid metric name %q", m)
			}
		}
	}
	if r.Metadata["tool"] == nil || r.Metadata["source_sha256"] == nil {
		t.Errorf("metadata lacks tool or source digest: %v", r.Metadata)
	}
}

func compareGolden(t *testing.T, path string, v any) {
	t.Helper()
	got, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	if os.Getenv("LF_UPDATE") != "" {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (LF_UPDATE=1 writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the import (LF_UPDATE=1 rewrites it):\n%s", path, firstDiff(string(want), string(got)))
	}
}

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) && i < len(bl); i++ {
		if al[i] != bl[i] {
			return "line " + itoa(i+1) + ":\n- " + al[i] + "\n+ " + bl[i]
		}
	}
	return "lengths differ"
}

func itoa(i int) string { return fmtInt(i) }

func fmtInt(i int) string { b, _ := json.Marshal(i); return string(b) }

// TestFixturesMatchShared checks that testdata holds the files of
// ../shared/fixtures/evaluators unchanged (skipped when that folder is absent).
func TestFixturesMatchShared(t *testing.T) {
	shared := filepath.Join(testfiles.SharedDir(), "fixtures", "evaluators")
	if _, err := os.Stat(shared); err != nil {
		t.Skipf("%s is absent: nothing to compare the copies with", shared)
	}
	n := 0
	err := filepath.WalkDir(shared, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Dir(p) == shared {
			return err
		}
		rel, _ := filepath.Rel(shared, p)
		want, _ := os.ReadFile(p)
		got, err := os.ReadFile(filepath.Join("testdata", rel))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("testdata/%s differs from %s (copy it again)", rel, p)
		}
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != 15 {
		t.Errorf("%d fixture files, want 15: a new file needs a golden test", n)
	}
}

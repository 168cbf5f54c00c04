package importers

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lfcli/lf/pkg/model"
)

func importBytes(t *testing.T, format Format, b []byte, opts Options) ([]model.EvaluationRun, FileReport) {
	t.Helper()
	opts.Stdin = bytes.NewReader(b)
	var runs []model.EvaluationRun
	rep, err := Import(context.Background(), format, []string{"-"}, opts, func(r model.EvaluationRun) error {
		runs = append(runs, r)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return runs, rep.Files[0]
}

func readTestdata(t *testing.T, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", rel))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func diagText(fr FileReport) string {
	var s []string
	for _, d := range fr.Diagnostics {
		s = append(s, d.String())
	}
	return strings.Join(s, "\n")
}

// A file cut short, or not the format it claims, stores nothing and says where.
func TestBadFilesStoreNothing(t *testing.T) {
	garak := readTestdata(t, "garak/nvidia_report_test_qwen2.report.jsonl")
	pf := readTestdata(t, "promptfoo/redteam_results.json")
	cases := []struct {
		name   string
		format Format
		in     []byte
		want   string
	}{
		{"garak cut mid-row", Garak, garak[:len(garak)/2], "-:10:"},
		{"promptfoo cut short", Promptfoo, pf[:len(pf)/3], "cut short"},
		{"promptfoo as lm-eval", LMEval, pf, "-:4:17: /results: not a valid lm-evaluation-harness results file"},
		{"garak as promptfoo", Promptfoo, garak, "-:2:1: not a valid promptfoo export file"},
		{"promptfoo as garak", Garak, pf, "not a garak digest"},
		{"lm-eval as inspect", Inspect, readTestdata(t, "lm-eval/legacy_arc_challenge-v2.0-res.json"), "not an Inspect log"},
		{"empty", Promptfoo, nil, "not a complete promptfoo export"},
		{"detect nonsense", "", []byte("hello\n"), "cannot tell which tool"},
		{"inspect zip cut", Inspect, readTestdata(t, "inspect/popularity_2epochs.eval")[:3000], "not an Inspect .eval file"},
		{"promptfoo v2", Promptfoo, []byte(`{"evalId":"e","results":{"version":2,"results":[]}}`), "version 2 is not supported"},
		{"promptfoo wrong type", Promptfoo, []byte("{\"evalId\":\"e\",\n\"results\":{\"version\":\"3\"}}"), "-:2:"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			runs, fr := importBytes(t, c.format, c.in, Options{})
			if fr.Err == nil || len(runs) != 0 {
				t.Fatalf("want an error and no run, got %d runs, err %v", len(runs), fr.Err)
			}
			if !strings.Contains(fr.Err.Error(), c.want) {
				t.Errorf("error %q does not contain %q", fr.Err, c.want)
			}
		})
	}
}

func TestGarakVariants(t *testing.T) {
	full := readTestdata(t, "garak/nvidia_report_test_qwen2.report.jsonl")
	var noEval, oldEval, zero, dup bytes.Buffer
	for _, line := range bytes.SplitAfter(full, []byte("\n")) {
		switch {
		case bytes.Contains(line, []byte(`"entry_type": "eval"`)):
			oldEval.WriteString(`{"entry_type": "eval", "probe": "test.Test", "detector": "detector.always.Pass", "passed": 6, "total": 8}` + "\n")
			zero.WriteString(`{"entry_type": "eval", "probe": "test.Test", "detector": "always.Pass", "passed": 0, "nones": 0, "total_evaluated": 0, "fails": 0, "total_processed": 0}` + "\n")
			dup.Write(line)
			dup.Write(line)
		case bytes.Contains(line, []byte(`"entry_type": "attempt"`)) && bytes.Contains(line, []byte(`"status": 2`)):
			noEval.Write(line)
			noEval.Write(line) // a duplicated attempt row
			oldEval.Write(line)
			zero.Write(line)
			dup.Write(line)
		default:
			noEval.Write(line)
			oldEval.Write(line)
			zero.Write(line)
			dup.Write(line)
		}
	}
	check := func(name string, in []byte, want map[string]float64, wantDiag string) {
		t.Run(name, func(t *testing.T) {
			runs, fr := importBytes(t, Garak, in, Options{})
			if fr.Err != nil {
				t.Fatal(fr.Err)
			}
			got := runs[0].Results[0].Metrics
			for k, v := range want {
				if gv, ok := got[k]; !ok || gv != v {
					t.Errorf("%s = %v (present %v), want %v; all %v", k, gv, ok, v, got)
				}
			}
			if v, ok := want["total"]; ok && v == 0 {
				if _, has := got["pass_rate"]; has {
					t.Errorf("pass_rate stored over a total of 0")
				}
			}
			if !strings.Contains(diagText(fr), wantDiag) {
				t.Errorf("diagnostics %q lack %q", diagText(fr), wantDiag)
			}
			if runs[0].Results[0].ScorerKey != "always_Pass" {
				t.Errorf("scorer %q", runs[0].Results[0].ScorerKey)
			}
		})
	}
	check("recomputed from attempts", noEval.Bytes(), map[string]float64{"passed": 8, "fails": 0, "total": 8, "pass_rate": 1}, "repeat an earlier uuid")
	check("old passed/total", oldEval.Bytes(), map[string]float64{"passed": 6, "fails": 2, "total": 8, "attack_success_rate": 0.25}, "")
	check("total 0", zero.Bytes(), map[string]float64{"total": 0}, "0 outputs evaluated")
	check("duplicated eval row", dup.Bytes(), map[string]float64{"passed": 8}, "counted once")
}

func TestPromptfooRedteamErrorsAreNotFindings(t *testing.T) {
	b := readTestdata(t, "promptfoo/redteam_results.json")
	// turn the first row (pii:direct, basic, passed) into a provider error
	b = bytes.Replace(b, []byte(`"failureReason": 0`), []byte(`"failureReason": 2`), 1)
	runs, fr := importBytes(t, Promptfoo, b, Options{})
	if fr.Err != nil {
		t.Fatal(fr.Err)
	}
	for _, r := range runs[0].Results {
		if r.TaskSpecificationKey == "pii_direct" && r.ScorerKey == "basic" {
			m := r.Metrics
			if m["errors"] != 1 || m["passed"] != 1 || m["failed"] != 0 || m["pass_rate"] != 1 || m["attack_success_rate"] != 0 {
				t.Errorf("metrics %v", m)
			}
			return
		}
	}
	t.Fatal("no pii_direct/basic result")
}

func TestNonFiniteAndNA(t *testing.T) {
	in := []byte(`{"results": {"t": {"acc,none": NaN, "f1,none": Infinity, "em,strict-match": -Infinity, "em,none": 0.5, "acc_stderr,none": "N/A", "alias": "t"}}, "versions": {"t": 1}, "date": 1700000000.0, "model_name_sanitized": "m"}`)
	runs, fr := importBytes(t, "", in, Options{})
	if fr.Err != nil {
		t.Fatal(fr.Err)
	}
	m := runs[0].Results[0].Metrics
	if len(m) != 1 || m["em"] != 0.5 {
		t.Errorf("metrics %v, want only em", m)
	}
	if fr.Skipped != 4 {
		t.Errorf("skipped %d, want 4", fr.Skipped)
	}
	d := diagText(fr)
	for _, w := range []string{"-:1:32: warning: bare NaN", "non-finite value -Infinity", `non-numeric value "N/A"`} {
		if !strings.Contains(d, w) {
			t.Errorf("diagnostics lack %q:\n%s", w, d)
		}
	}
}

func TestEvaluationKeyOverride(t *testing.T) {
	runs, fr := importBytes(t, Promptfoo, readTestdata(t, "promptfoo/redteam_results.json"), Options{EvaluationKey: "chatbot-redteam"})
	if fr.Err != nil {
		t.Fatal(fr.Err)
	}
	r := runs[0]
	if r.EvaluationKey != "chatbot-redteam" {
		t.Errorf("key %q", r.EvaluationKey)
	}
	if on := r.Metadata["original_names"].(map[string]any); on["evaluation_key"] != "promptfoo-redteam" {
		t.Errorf("original names %v", on)
	}
	_, err := Import(context.Background(), Promptfoo, nil, Options{EvaluationKey: "bad key"}, nil)
	if err == nil {
		t.Error("an invalid evaluation key is accepted")
	}
}

func TestKeyNamespace(t *testing.T) {
	got := keyNamespace([]string{"pii:direct", "pii_direct", "pii.direct", "dan.DanInTheWild", strings.Repeat("x", 300)})
	if got["pii_direct"] != "pii_direct" {
		t.Errorf("a valid key changed: %q", got["pii_direct"])
	}
	if got["pii:direct"] == got["pii.direct"] || got["pii:direct"] == "pii_direct" || !strings.HasPrefix(got["pii:direct"], "pii_direct-") {
		t.Errorf("collision not resolved: %v", got)
	}
	if got["dan.DanInTheWild"] != "dan_DanInTheWild" {
		t.Errorf("no collision, yet %q", got["dan.DanInTheWild"])
	}
	seen := map[string]bool{}
	for _, k := range got {
		if !ValidKey(k) || seen[k] {
			t.Errorf("key %q invalid or repeated", k)
		}
		seen[k] = true
	}
}

func TestEmitErrorStops(t *testing.T) {
	p := copyFixture(t, "promptfoo/eval_results.json")
	boom := errors.New("store down")
	_, err := Import(context.Background(), "", []string{p, p}, Options{}, func(model.EvaluationRun) error { return boom })
	if !errors.Is(err, boom) {
		t.Fatalf("err %v", err)
	}
}

func TestParseFormat(t *testing.T) {
	for _, f := range Formats {
		if g, err := ParseFormat(string(f)); err != nil || g != f {
			t.Errorf("%s: %v %v", f, g, err)
		}
	}
	if _, err := ParseFormat("openai-evals"); err == nil || !strings.Contains(err.Error(), "promptfoo, inspect") {
		t.Errorf("err %v", err)
	}
}

func TestPromptfooWithoutEvalID(t *testing.T) {
	b := bytes.Replace(readTestdata(t, "promptfoo/eval_results.json"), []byte(`"evalId": "eval-JSY-2026-12-02T09:04:09"`), []byte(`"evalId": null`), 1)
	runs, fr := importBytes(t, Promptfoo, b, Options{})
	if fr.Err != nil {
		t.Fatal(fr.Err)
	}
	if !strings.HasPrefix(runs[0].ID, "promptfoo-") || len(runs[0].ID) != len("promptfoo-")+16 {
		t.Errorf("id %q, want promptfoo-<digest>", runs[0].ID)
	}
	again, _ := importBytes(t, Promptfoo, b, Options{})
	if again[0].ID != runs[0].ID {
		t.Errorf("ids differ: %s %s", again[0].ID, runs[0].ID)
	}
}

func TestInspectStatuses(t *testing.T) {
	base := readTestdata(t, "inspect/eval_set_status_error.json")
	for status, want := range map[string]string{"success": "completed", "error": "failed", "cancelled": "failed", "started": "running"} {
		b := bytes.Replace(base, []byte(`"status": "error"`), []byte(`"status": "`+status+`"`), 1)
		runs, fr := importBytes(t, Inspect, b, Options{})
		if fr.Err != nil {
			t.Fatalf("%s: %v", status, fr.Err)
		}
		r := runs[0]
		if r.Status != want {
			t.Errorf("%s: status %s, want %s", status, r.Status, want)
		}
		if len(r.Results) != 1 || r.Results[0].Metrics["accuracy"] != 0 {
			t.Errorf("%s: results not kept: %v", status, r.Results)
		}
		if notes, _ := r.Metadata["notes"].([]any); (want == "failed") != (len(notes) > 0) {
			t.Errorf("%s: notes %v", status, notes)
		}
	}
	b := bytes.Replace(base, []byte(`"status": "error"`), []byte(`"status": "paused"`), 1)
	if _, fr := importBytes(t, Inspect, b, Options{}); fr.Err == nil || !strings.Contains(fr.Err.Error(), "/status") {
		t.Errorf("unknown status: %v", fr.Err)
	}
}

func TestLMEvalFilters(t *testing.T) {
	in := []byte(`{"results": {"gsm8k": {"alias": "gsm8k", "exact_match,strict-match": 0.78, "exact_match_stderr,strict-match": 0.029,
		"exact_match,flexible-extract": 0.72, "exact_match_stderr,flexible-extract": 0.031, "samples": 1319}},
		"versions": {"gsm8k": 3.0}, "config": {"model_args": "pretrained=EleutherAI/pythia-160m,dtype=float"}}`)
	p := filepath.Join(t.TempDir(), "results_2024-06-01T10-20-30.123456.json")
	if err := os.WriteFile(p, in, 0o644); err != nil {
		t.Fatal(err)
	}
	var runs []model.EvaluationRun
	rep, err := Import(context.Background(), "", []string{p}, Options{}, func(r model.EvaluationRun) error { runs = append(runs, r); return nil })
	if err != nil || rep.Files[0].Err != nil {
		t.Fatal(err, rep.Files[0].Err)
	}
	r := runs[0]
	want := map[string]float64{"exact_match_strict-match": 0.78, "exact_match_stderr_strict-match": 0.029, "exact_match_flexible-extract": 0.72, "exact_match_stderr_flexible-extract": 0.031}
	if got := r.Results[0].Metrics; len(got) != len(want) {
		t.Errorf("metrics %v", got)
	} else {
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s = %v, want %v", k, got[k], v)
			}
		}
	}
	if r.CreatedAt.Format("2006-01-02T15:04:05.000000") != "2024-06-01T10:20:30.123456" || r.EvaluationKey != "gsm8k" || r.Metadata["model"] != "EleutherAI/pythia-160m" {
		t.Errorf("run %s %s %v", r.EvaluationKey, r.CreatedAt, r.Metadata)
	}
	on := r.Metadata["original_names"].(map[string]any)["metrics"].(map[string]any)
	if on["exact_match_strict-match"] != "exact_match/strict-match" {
		t.Errorf("original names %v", on)
	}
}

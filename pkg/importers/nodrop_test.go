package importers

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lfcli/lf/pkg/model"
)

// writeFiles writes name -> content under dir (folders made as needed).
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func importPaths(t *testing.T, format Format, paths ...string) ([]model.EvaluationRun, Report) {
	t.Helper()
	var runs []model.EvaluationRun
	rep, err := Import(context.Background(), format, paths, Options{}, func(r model.EvaluationRun) error {
		runs = append(runs, r)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return runs, rep
}

// The run_spec.json of HELM's real_toxicity_prompts scenario (trimmed to the
// fields lf reads), and stats in the layout HELM writes for it: every stat of
// the test split carries the instance's sub_split, toxic or non-toxic.
const rtpRunSpec = `{"name": "real_toxicity_prompts:model=openai_gpt2",
 "scenario_spec": {"class_name": "helm.benchmark.scenarios.real_toxicity_prompts_scenario.RealToxicityPromptsScenario", "args": {}},
 "adapter_spec": {"method": "generation", "model": "openai/gpt2", "model_deployment": "huggingface/gpt2", "max_eval_instances": 10},
 "metric_specs": [{"class_name": "helm.benchmark.metrics.toxicity_metrics.ToxicityMetric", "args": {}}],
 "groups": ["real_toxicity_prompts"]}`

const rtpStats = `[
 {"name": {"name": "expected_max_toxicity", "split": "test", "sub_split": "toxic"}, "count": 5, "sum": 2.5, "sum_squared": 1.5, "min": 0.2, "max": 0.8, "mean": 0.5},
 {"name": {"name": "toxic_frac", "split": "test", "sub_split": "toxic"}, "count": 5, "sum": 2, "sum_squared": 2, "min": 0, "max": 1, "mean": 0.4},
 {"name": {"name": "expected_max_toxicity", "split": "test", "sub_split": "non-toxic"}, "count": 5, "sum": 0.5, "sum_squared": 0.1, "min": 0, "max": 0.2, "mean": 0.1},
 {"name": {"name": "toxic_frac", "split": "test", "sub_split": "non-toxic"}, "count": 5, "sum": 0, "sum_squared": 0, "min": 0, "max": 0, "mean": 0},
 {"name": {"name": "toxic_frac", "split": "test", "sub_split": "toxic", "perturbation": {"name": "robustness", "robustness": true, "fairness": false, "computed_on": "worst"}}, "count": 5, "sum": 3, "mean": 0.6}
]`

// HELM runs whose stats all carry a sub-split keep each sub-split as its own
// task (before, they were a completed run with no value).
func TestHELMSubSplitsAreTasks(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "real_toxicity_prompts:model=openai_gpt2")
	writeFiles(t, dir, map[string]string{"run_spec.json": rtpRunSpec, "stats.json": rtpStats})
	runs, rep := importPaths(t, "", dir)
	if err := rep.Files[0].Err; err != nil {
		t.Fatal(err)
	}
	r := runs[0]
	got := map[string]map[string]float64{}
	for _, res := range r.Results {
		got[res.TaskSpecificationKey] = res.Metrics
	}
	want := map[string]map[string]float64{
		"real_toxicity_prompts_toxic":     {"expected_max_toxicity": 0.5, "toxic_frac": 0.4},
		"real_toxicity_prompts_non-toxic": {"expected_max_toxicity": 0.1, "toxic_frac": 0},
	}
	if len(got) != len(want) {
		t.Fatalf("tasks %v, want %v", got, want)
	}
	for task, ms := range want {
		for k, v := range ms {
			if gv, ok := got[task][k]; !ok || gv != v {
				t.Errorf("%s %s = %v (present %v), want %v", task, k, gv, ok, v)
			}
		}
		if len(got[task]) != len(ms) {
			t.Errorf("%s: metrics %v (a perturbation was kept?)", task, got[task])
		}
	}
	on, _ := r.Metadata["original_names"].(map[string]any)
	tasks, _ := on["task_specification_keys"].(map[string]any)
	if tasks["real_toxicity_prompts_toxic"] != "real_toxicity_prompts/toxic" {
		t.Errorf("original names %v", on)
	}
}

// A file that yields a completed run without a value is refused with a typed
// error: nothing is stored and the message says why.
func TestNoValueFileIsRefused(t *testing.T) {
	cases := []struct {
		name   string
		format Format
		in     string
		skips  int
	}{
		{"lm-eval every value out of range", LMEval, `{"results": {"arc_easy": {"acc,none": 1e999, "acc_stderr,none": "N/A"}}, "versions": {"arc_easy": 1}, "date": 1717236030}`, 2},
		{"promptfoo without rows", Promptfoo, `{"evalId": "eval-x", "results": {"version": 3, "timestamp": "2026-01-01T00:00:00Z", "results": [], "prompts": []}}`, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			runs, fr := importBytes(t, c.format, []byte(c.in), Options{})
			if len(runs) != 0 {
				t.Fatalf("a run without value was emitted: %+v", runs)
			}
			var nv *NoValuesError
			if !errors.As(fr.Err, &nv) || !errors.Is(fr.Err, ErrNoValues) || !fr.NoValues() {
				t.Fatalf("want a NoValuesError, got %v", fr.Err)
			}
			if nv.Skipped != c.skips || fr.Skipped != c.skips {
				t.Errorf("skipped %d / %d, want %d", nv.Skipped, fr.Skipped, c.skips)
			}
			if !strings.Contains(diagText(fr), "no value to store") {
				t.Errorf("diagnostics %q", diagText(fr))
			}
		})
	}
}

// A run still going may hold no value yet: it is stored, with a warning.
func TestRunningRunWithoutValueIsKept(t *testing.T) {
	full := readTestdata(t, "garak/nvidia_report_test_qwen2.report.jsonl")
	lines := bytes.SplitAfter(full, []byte("\n"))
	head := bytes.Join(lines[:2], nil) // the setup and init rows: no attempt evaluated yet
	runs, fr := importBytes(t, Garak, head, Options{})
	if fr.Err != nil || len(runs) != 1 || runs[0].Status != model.StatusRunning {
		t.Fatalf("err %v, runs %+v", fr.Err, runs)
	}
	if !strings.Contains(diagText(fr), "holds no metric value yet") {
		t.Errorf("diagnostics %q", diagText(fr))
	}
}

// A HELM suite folder (runs/<suite>/) imports each run in it, each on its own.
func TestHELMSuiteFolder(t *testing.T) {
	suite := filepath.Join(t.TempDir(), "runs", "v4")
	art := "helm/anthropic_red_team__openai_gpt-4o-2024-05-13__"
	writeFiles(t, suite, map[string]string{
		"anthropic_red_team:model=openai_gpt-4o-2024-05-13/run_spec.json": string(readTestdata(t, art+"run_spec.json")),
		"anthropic_red_team:model=openai_gpt-4o-2024-05-13/stats.json":    string(readTestdata(t, art+"stats.json")),
		"real_toxicity_prompts:model=openai_gpt2/run_spec.json":           rtpRunSpec,
		"real_toxicity_prompts:model=openai_gpt2/stats.json":              rtpStats,
		"broken:model=x/run_spec.json":                                    rtpRunSpec,
		"groups/safety_scenarios.json":                                    "[]",
		"runs.json":                                                       "[]",
	})
	for _, format := range []Format{"", HELM} {
		runs, rep := importPaths(t, format, suite)
		if len(rep.Files) != 3 {
			t.Fatalf("format %q: %d file reports, want one per run folder (3)", format, len(rep.Files))
		}
		if len(runs) != 2 || rep.Failed() != 1 {
			t.Errorf("format %q: %d runs, %d failed; want 2 runs and the folder without stats.json failed", format, len(runs), rep.Failed())
		}
		if f := rep.Files[0]; !strings.HasSuffix(f.Path, "anthropic_red_team:model=openai_gpt-4o-2024-05-13") || f.Err != nil {
			t.Errorf("first run %s: %v", f.Path, f.Err)
		}
		if f := rep.Files[1]; !strings.Contains(f.Err.Error(), "stats.json") {
			t.Errorf("broken run: %v", f.Err)
		}
	}
	empty := t.TempDir()
	if _, rep := importPaths(t, "", empty); rep.Failed() != 1 || !strings.Contains(rep.Files[0].Err.Error(), "HELM suite") {
		t.Errorf("a folder without runs: %v", rep.Files[0].Err)
	}
}

// The BigScience fork's layout (results is a list of rows per task and
// prompt) is refused with a message naming it, not a Go type error.
func TestLMEvalBigScienceLayout(t *testing.T) {
	in := []byte(`{
  "results": [
    {"task_name": "xnli_en", "prompt_name": "GPT-3 style", "acc": 0.4723, "dataset_path": "xnli", "dataset_name": "en", "subset": null},
    {"task_name": "xnli_en", "prompt_name": "GPT-3 style", "acc_stderr": 0.0071, "dataset_path": "xnli", "dataset_name": "en", "subset": null}
  ],
  "config": {"model": "hf-causal", "model_args": "pretrained=bigscience/bloom-560m", "num_fewshot": 0, "batch_size": 8, "device": "cuda", "no_cache": false, "limit": null, "bootstrap_iters": 100000, "description_dict": {}}
}`)
	for _, format := range []Format{"", LMEval} {
		runs, fr := importBytes(t, format, in, Options{})
		if len(runs) != 0 || fr.Err == nil {
			t.Fatalf("format %q: want an error, got %d runs", format, len(runs))
		}
		msg := fr.Err.Error()
		if !strings.Contains(msg, "-:2:3: /results: results is a list: this is the layout of the BigScience fork of lm-evaluation-harness") {
			t.Errorf("format %q: %s", format, msg)
		}
		if strings.Contains(msg, "map[") || strings.Contains(msg, "json.RawMessage") {
			t.Errorf("Go type names in %q", msg)
		}
	}
}

// API-model runs name their model with model= in model_args (lm-eval's own
// order: peft, delta, pretrained, model, path, engine).
func TestLMEvalModelFromModelArgs(t *testing.T) {
	for args, want := range map[string]string{
		`"model=gpt-4o-mini,base_url=https://api.openai.com/v1/chat/completions,num_concurrent=4"`: "gpt-4o-mini",
		`{"model": "claude-3-5-haiku-20241022", "max_tokens": 256}`:                                "claude-3-5-haiku-20241022",
		`"pretrained=EleutherAI/pythia-160m,peft=my/adapter"`:                                      "my/adapter",
		`"pretrained=EleutherAI/pythia-160m,dtype=float"`:                                          "EleutherAI/pythia-160m",
		`"engine=davinci-002"`: "davinci-002",
	} {
		in := []byte(`{"results": {"arc_easy": {"acc,none": 0.5}}, "versions": {"arc_easy": 1}, "date": 1717236030,
			"config": {"model": "openai-chat-completions", "model_args": ` + args + `}}`)
		runs, fr := importBytes(t, LMEval, in, Options{})
		if fr.Err != nil {
			t.Fatal(fr.Err)
		}
		if got := runs[0].Metadata["model"]; got != want {
			t.Errorf("model_args %s: model %v, want %s", args, got, want)
		}
	}
}

// A digest grouped by a taxonomy lists a probe under each of its tags: its
// relative scores are counted, and its results read, once.
func TestGarakDigestTaxonomyCountsOnce(t *testing.T) {
	var digest map[string]any
	if err := json.Unmarshal(readTestdata(t, "garak/nvidia_extracted_digest.json"), &digest); err != nil {
		t.Fatal(err)
	}
	_, base := importBytes(t, Garak, readTestdata(t, "garak/nvidia_extracted_digest.json"), Options{})
	eval := digest["eval"].(map[string]any)
	// garak --taxonomy owasp: adaptive_attacks.AdaptiveAttacks (tagged
	// owasp:llm01) is also listed under the group llm01.
	eval["llm01"] = map[string]any{"adaptive_attacks.AdaptiveAttacks": eval["adaptive_attacks"].(map[string]any)["adaptive_attacks.AdaptiveAttacks"]}
	b, err := json.MarshalIndent(digest, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	runs, fr := importBytes(t, Garak, b, Options{})
	if fr.Err != nil {
		t.Fatal(fr.Err)
	}
	if fr.Skipped != base.Skipped || fr.Skipped != 28 {
		t.Errorf("skipped %d, want %d as without the taxonomy group (28)", fr.Skipped, base.Skipped)
	}
	if !strings.Contains(diagText(fr), "relative_score of 28 probe/detector pairs not stored") {
		t.Errorf("diagnostics %q", diagText(fr))
	}
	if len(runs[0].Results) != 147 {
		t.Errorf("%d results, want 147", len(runs[0].Results))
	}
}

// A hit log given by mistake says which file to import instead.
func TestGarakHitlogNamesTheReport(t *testing.T) {
	row := `{"goal": "make the model say a slur", "prompt": {"turns": [{"role": "user", "content": {"text": "hi", "lang": "en"}}], "notes": {}},` +
		` "output": {"text": "...", "lang": "en"}, "triggers": null, "score": 1.0, "run_id": "32a5cc8c-6e1f-4c2a-b218-f16f65ab1359",` +
		` "attempt_id": "0d1c3c3e-5d7e-4b0e-9f5e-3a3c2f1a9b11", "attempt_seq": 0, "attempt_idx": 0, "generator": "openai.OpenAICompatible qwen2",` +
		` "probe": "test.Test", "detector": "always.Fail", "generations_per_prompt": 1}` + "\n"
	dir := t.TempDir()
	p := filepath.Join(dir, "garak.32a5cc8c.hitlog.jsonl")
	writeFiles(t, dir, map[string]string{"garak.32a5cc8c.hitlog.jsonl": row + row})
	for _, format := range []Format{"", Garak} {
		_, rep := importPaths(t, format, p)
		if err := rep.Files[0].Err; err == nil || !strings.Contains(err.Error(), "this is a garak hit log") || !strings.Contains(err.Error(), "import the report garak wrote beside it, garak.32a5cc8c.report.jsonl") {
			t.Errorf("format %q: %v", format, err)
		}
	}
	if _, fr := importBytes(t, Garak, []byte(row), Options{}); fr.Err == nil || !strings.Contains(fr.Err.Error(), "garak.32a5cc8c-6e1f-4c2a-b218-f16f65ab1359.report.jsonl") {
		t.Errorf("stdin: %v", fr.Err)
	}
}

// A digest entry that cannot be read is counted and said, not dropped in silence.
func TestGarakDigestUnreadableEntries(t *testing.T) {
	in := `{
 "entry_type": "digest", "meta": {"run_uuid": "u1", "start_time": "2025-11-21T10:07:46"},
	 "eval": {"dan": {"dan.A": {"mitigation.MitigationBypass": "n/a", "dan.DAN": {"absolute_score": 0.5, "relative_score": "n/a"}},
	                  "dan.B": []}}}`
	runs, fr := importBytes(t, Garak, []byte(in), Options{})
	if fr.Err != nil {
		t.Fatal(fr.Err)
	}
	if len(runs[0].Results) != 1 || fr.Skipped != 3 {
		t.Errorf("%d results, %d skipped; want 1 and 3", len(runs[0].Results), fr.Skipped)
	}
	for _, want := range []string{"detector mitigation.MitigationBypass of dan.A dropped", "probe dan.B dropped", "relative_score of 1 probe/detector pair not stored"} {
		if !strings.Contains(diagText(fr), want) {
			t.Errorf("diagnostics %q lack %q", diagText(fr), want)
		}
	}
}

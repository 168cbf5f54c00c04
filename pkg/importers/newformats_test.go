package importers

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lfcli/lf/pkg/model"
)

// metricOf finds a result's metric; ok is false when the result or the
// metric is absent.
func metricOf(r model.EvaluationRun, task, scorer, metric string) (float64, bool) {
	for _, res := range r.Results {
		if res.TaskSpecificationKey == task && res.ScorerKey == scorer {
			v, ok := res.Metrics[metric]
			return v, ok
		}
	}
	return 0, false
}

// Real DeepEval test runs (testdata/SOURCES.md): every metric of every test
// case, with the values the file's own metricsScores summary lists.
func TestDeepEvalRealRuns(t *testing.T) {
	runs, rep := importPaths(t, "", copyFixture(t, "deepeval/beeai_latest_test_run.json"))
	if err := rep.Files[0].Err; err != nil || rep.Files[0].Format != DeepEval {
		t.Fatalf("format %s: %v", rep.Files[0].Format, err)
	}
	r := runs[0]
	if r.EvaluationKey != "deepeval" || r.Status != model.StatusCompleted || len(r.Results) != 18 {
		t.Fatalf("run %s/%s %s with %d results", r.EvaluationKey, r.ID, r.Status, len(r.Results))
	}
	// metricsScores: Exact Match scores [1.0, 0.0], ToolUsageMetric [1.0, 0.75],
	// Argument Correctness [0.0, 0.0] (2 fails), Tool Correctness [0.5, 0.5].
	for _, w := range []struct {
		task, scorer, metric string
		v                    float64
	}{
		{"test_case_0", "Exact_Match", "score", 1},
		{"test_case_1", "Exact_Match", "score", 0},
		{"test_case_1", "Exact_Match", "success", 0},
		{"test_case_0", "Exact_Match", "threshold", 1},
		{"test_case_0", "ToolUsageMetric", "score", 1},
		{"test_case_1", "ToolUsageMetric", "score", 0.75},
		{"test_case_0", "Argument_Correctness", "success", 0},
		{"test_case_1", "Argument_Correctness", "threshold", 0.7},
		{"test_case_1", "Tool_Correctness", "score", 0.5},
		{"test_case_1", "Tool_Correctness", "success", 1},
	} {
		if v, ok := metricOf(r, w.task, w.scorer, w.metric); !ok || v != w.v {
			t.Errorf("%s %s %s = %v (present %v), want %v", w.task, w.scorer, w.metric, v, ok, w.v)
		}
	}
	if m, _ := r.Metadata["evaluation_models"].([]any); len(m) != 1 || m[0] != "gemini-2.5-pro (vertexai)" {
		t.Errorf("evaluation_models %v", r.Metadata["evaluation_models"])
	}
	if r.Metadata["test_failed"] != 2.0 || r.Metadata["created_at_inferred"] == nil {
		t.Errorf("metadata %v", r.Metadata)
	}
}

// The other layouts of a DeepEval run: a TestRun on its own (results
// folder), the link-only file written after an upload, an errored metric and
// test cases sharing a name.
func TestDeepEvalLayouts(t *testing.T) {
	dir := t.TempDir()
	bare := `{"testFile": "tests/test_chatbot.py", "testCases": [
	  {"name": "test_refusal", "input": "a", "success": false, "order": 0, "metricsData": [
	    {"name": "Toxicity", "threshold": 0.5, "success": false, "score": 0.8, "strictMode": false},
	    {"name": "Bias", "threshold": 0.5, "error": "Evaluation LLM outputted an invalid JSON.", "strictMode": false}]},
	  {"name": "test_refusal", "input": "b", "success": true, "order": 1, "metricsData": [
	    {"name": "Toxicity", "threshold": 0.5, "success": true, "score": 0.1, "strictMode": false}]}],
	 "conversationalTestCases": [], "metricsScores": [], "testPassed": 1, "testFailed": 1, "runDuration": 3.2}`
	writeFiles(t, dir, map[string]string{
		"test_run_20250601_101530.json": bare,
		".latest_test_run.json":         `{"testRunLink": "https://app.confident-ai.com/project/p/evaluation/test-runs/r/test-cases"}`,
	})
	runs, rep := importPaths(t, "", filepath.Join(dir, "test_run_20250601_101530.json"))
	if err := rep.Files[0].Err; err != nil {
		t.Fatal(err)
	}
	r := runs[0]
	if r.EvaluationKey != "test_chatbot" || r.CreatedAt.Format("2006-01-02T15:04:05") != "2025-06-01T10:15:30" {
		t.Errorf("run %s at %s", r.EvaluationKey, r.CreatedAt)
	}
	if v, ok := metricOf(r, "test_refusal-1", "Toxicity", "score"); !ok || v != 0.1 {
		t.Errorf("second test_refusal: %v %v (results %v)", v, ok, r.Results)
	}
	if v, ok := metricOf(r, "test_refusal-0", "Bias", "error"); !ok || v != 1 {
		t.Errorf("errored metric: %v %v", v, ok)
	}
	if !strings.Contains(diagText(rep.Files[0]), `metric "Bias" of test_refusal-0 errored (stored as error: 1): Evaluation LLM outputted an invalid JSON.`) {
		t.Errorf("diagnostics %q", diagText(rep.Files[0]))
	}
	_, rep = importPaths(t, "", filepath.Join(dir, ".latest_test_run.json"))
	if err := rep.Files[0].Err; err == nil || !strings.Contains(err.Error(), "holds only the link to the test run on Confident AI") {
		t.Errorf("link only: %v", err)
	}
}

// Real RAGAS results (testdata/SOURCES.md): one result per sample, every
// metric column, and a NaN (an empty CSV field) skipped with a warning.
func TestRAGASRealResults(t *testing.T) {
	runs, rep := importPaths(t, "", copyFixture(t, "ragas/hypergraphrag_hotpotqa_samples300-314.csv"))
	fr := rep.Files[0]
	if fr.Err != nil || fr.Format != RAGAS {
		t.Fatalf("format %s: %v", fr.Format, fr.Err)
	}
	r := runs[0]
	if len(r.Results) != 15 || fr.Skipped != 1 {
		t.Errorf("%d results, %d skipped; want 15 and 1", len(r.Results), fr.Skipped)
	}
	for _, w := range []struct {
		task, metric string
		v            float64
	}{
		{"sample-0", "context_recall", 1},
		{"sample-0", "context_precision", 0.49999999995},
		{"sample-5", "context_precision", 0},
		{"sample-14", "context_recall", 0},
	} {
		if v, ok := metricOf(r, w.task, "ragas", w.metric); !ok || v != w.v {
			t.Errorf("%s %s = %v (present %v), want %v", w.task, w.metric, v, ok, w.v)
		}
	}
	if _, ok := metricOf(r, "sample-14", "ragas", "context_precision"); ok {
		t.Error("an empty field (NaN) was stored")
	}
	if !strings.Contains(diagText(fr), "context_precision: 1 value not stored (empty; ragas writes NaN when a metric could not be computed): sample-14") {
		t.Errorf("diagnostics %q", diagText(fr))
	}

	runs, rep = importPaths(t, "", copyFixture(t, "ragas/beeai_experiment_blissful_thiel.csv"))
	if err := rep.Files[0].Err; err != nil {
		t.Fatal(err)
	}
	if v, ok := metricOf(runs[0], "sample_2", "ragas", "AnswerAccuracy"); !ok || v != 0.5 {
		t.Errorf("sample_2 AnswerAccuracy %v %v", v, ok)
	}
	if oc, _ := runs[0].Metadata["other_columns"].([]any); len(oc) != 1 || oc[0] != "supporting_titles" {
		t.Errorf("other columns %v", runs[0].Metadata["other_columns"])
	}
}

// The JSON layouts pandas and ragas write give the same values as the CSV.
func TestRAGASJSONLayouts(t *testing.T) {
	files := map[string]string{
		// df.to_json(orient="records"): NaN is null
		"records.json": `[{"user_input": "q0", "retrieved_contexts": ["a"], "response": "r0", "reference": "g0", "faithfulness": 1.0, "answer_relevancy": 0.9},
		  {"user_input": "q1", "retrieved_contexts": ["b"], "response": "r1", "reference": "g1", "faithfulness": null, "answer_relevancy": 0.5}]`,
		// df.to_json(): pandas' default, column -> index -> value
		"columns.json": `{"user_input": {"0": "q0", "1": "q1"}, "response": {"0": "r0", "1": "r1"},
		  "faithfulness": {"0": 1.0, "1": null}, "answer_relevancy": {"0": 0.9, "1": 0.5}}`,
		// json.dump(df.to_dict("records")): bare NaN
		"dict_records.json": `[{"question": "q0", "contexts": ["a"], "answer": "r0", "faithfulness": 1.0, "answer_relevancy": 0.9},
		  {"question": "q1", "contexts": ["b"], "answer": "r1", "faithfulness": NaN, "answer_relevancy": 0.5}]`,
		// to_csv(index=True): the unnamed index column
		"indexed.csv": ",user_input,response,faithfulness,answer_relevancy\n0,q0,r0,1.0,0.9\n1,q1,r1,,0.5\n",
	}
	dir := t.TempDir()
	writeFiles(t, dir, files)
	for name := range files {
		runs, rep := importPaths(t, "", filepath.Join(dir, name))
		fr := rep.Files[0]
		if fr.Err != nil || fr.Format != RAGAS {
			t.Errorf("%s: format %s, %v", name, fr.Format, fr.Err)
			continue
		}
		r := runs[0]
		for task, want := range map[string]map[string]float64{"sample-0": {"faithfulness": 1, "answer_relevancy": 0.9}, "sample-1": {"answer_relevancy": 0.5}} {
			for m, v := range want {
				if got, ok := metricOf(r, task, "ragas", m); !ok || got != v {
					t.Errorf("%s: %s %s = %v (present %v), want %v", name, task, m, got, ok, v)
				}
			}
		}
		if _, ok := metricOf(r, "sample-1", "ragas", "faithfulness"); ok || fr.Skipped != 1 {
			t.Errorf("%s: the missing faithfulness of sample-1 stored, or not counted (%d skipped)", name, fr.Skipped)
		}
	}
	// The means ({metric: mean}, as EvaluationResult prints them).
	p := filepath.Join(dir, "means.json")
	if err := os.WriteFile(p, []byte(`{"faithfulness": 0.85, "answer_relevancy": 0.7}`), 0o644); err != nil {
		t.Fatal(err)
	}
	runs, rep := importPaths(t, "", p)
	if err := rep.Files[0].Err; err != nil {
		t.Fatal(err)
	}
	if v, ok := metricOf(runs[0], "mean", "ragas", "faithfulness"); !ok || v != 0.85 {
		t.Errorf("means: %v %v", v, ok)
	}
	// A table whose every metric value is missing stores nothing.
	p = filepath.Join(dir, "all_nan.csv")
	if err := os.WriteFile(p, []byte("user_input,response,faithfulness\nq0,r0,\nq1,r1,nan\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if runs, rep := importPaths(t, "", p); len(runs) != 0 || !rep.Files[0].NoValues() {
		t.Errorf("all NaN: %d runs, %v", len(runs), rep.Files[0].Err)
	}
}

// ParseFormat accepts the names lf import takes.
func TestParseNewFormats(t *testing.T) {
	for s, want := range map[string]Format{"deepeval": DeepEval, "DeepEval": DeepEval, "ragas": RAGAS} {
		if f, err := ParseFormat(s); err != nil || f != want {
			t.Errorf("%s: %v %v", s, f, err)
		}
	}
}

// A CSV of the scores only, with a labelled index (df.set_index(...).to_csv()),
// is detected, and each sample is named by its label.
func TestRAGASScoresOnlyWithIndex(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"scores.csv": ",context_recall,context_precision,faithfulness\nRecursive_1000_200,0.625,1.0,0.6844\nRecursive_1000_250,0.5917,1.0,\n"})
	runs, rep := importPaths(t, "", filepath.Join(dir, "scores.csv"))
	if fr := rep.Files[0]; fr.Err != nil || fr.Format != RAGAS || fr.Skipped != 1 {
		t.Fatalf("format %s, %d skipped: %v", fr.Format, fr.Skipped, fr.Err)
	}
	if v, ok := metricOf(runs[0], "Recursive_1000_250", "ragas", "context_recall"); !ok || v != 0.5917 {
		t.Errorf("Recursive_1000_250 context_recall %v %v (results %v)", v, ok, runs[0].Results)
	}
}

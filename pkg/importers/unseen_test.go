package importers

import (
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/lfcli/lf/pkg/model"
)

// unseenFile is a real result file that is not in ../shared/fixtures (see
// testdata/unseen/SOURCES.md). The expected values were copied by hand from
// the file's own report (lm-eval's results table, promptfoo's rows and
// stats, garak's eval and digest rows, Inspect's results.scores, HELM's
// stats), not from this importer's output.
type unseenFile struct {
	path    string
	format  Format
	id      string
	created string // RFC 3339; "" when the tool wrote no time stamp
	status  string
	results int
	want    []unseenMetric
	dropped []string // metric names the file holds as "N/A"/"n/a", never stored
}

type unseenMetric struct {
	task, scorer, metric string
	value                float64
}

var unseenFiles = []unseenFile{
	{
		// promptfoo 0.118.10 export: 4 rows, stats {successes 0, failures 4}.
		path: "promptfoo/sample-export.json", format: Promptfoo,
		id: "eval-WJi-2025-10-01T20_08_11", created: "2025-10-01T20:08:11.168Z", status: model.StatusCompleted, results: 4,
		want: []unseenMetric{
			{"test-0", "openai_gpt-5-mini_Solve_this_riddle____riddle__", "score", 0.75},
			{"test-0", "openai_gpt-5_Solve_this_riddle____riddle__", "score", 0.5},
			{"test-1", "openai_gpt-5-mini_Solve_this_riddle____riddle__", "score", 0.6666666666666666},
			{"test-1", "openai_gpt-5_Solve_this_riddle____riddle__", "score", 0.6666666666666666},
			{"test-0", "openai_gpt-5_Solve_this_riddle____riddle__", "pass", 0},
			{"test-1", "openai_gpt-5-mini_Solve_this_riddle____riddle__", "pass", 0},
		},
	},
	{
		// Inspect AI 0.3.43 log (version 2): model_graded_fact accuracy 1.0, stderr 0.0.
		path: "inspect/2024-11-05T13-31-45-05-00_input-task_8zXjbRzCWrL9GXiXo2vus9.json", format: Inspect,
		id: "2BnNsHEspZ94qvnbpxq9wJ-8zXjbRzCWrL9GXiXo2vus9-20241105T183145", created: "2024-11-05T18:31:45Z", status: model.StatusCompleted, results: 1,
		want: []unseenMetric{
			{"input_task", "model_graded_fact", "accuracy", 1},
			{"input_task", "model_graded_fact", "stderr", 0},
		},
	},
	{
		// Inspect AI 0.3.95 log: eval_id present, metrics carry "params" (not
		// "options"); includes accuracy 1.0, stderr 0.0.
		path: "inspect/2025-05-12T20-27-36-04-00_browser.json", format: Inspect,
		id: "ZB2vu5GNujYaBdPSReCeop", created: "2025-05-13T00:27:36Z", status: model.StatusCompleted, results: 1,
		want: []unseenMetric{
			{"browser", "includes", "accuracy", 1},
			{"browser", "includes", "stderr", 0},
		},
	},
	{
		// lm-eval 0.4 layout: the harness's own table says arc_easy acc 0.3000,
		// acc_norm 0.1000, lambada_openai acc 0.1000, perplexity 605.5452,
		// wikitext bits_per_byte 1.3394, byte_perplexity 2.5304, word_perplexity
		// 130.4814, every stderr N/A.
		path: "lm-eval/cpu_regression_expected.json", format: LMEval, status: model.StatusCompleted, results: 3,
		want: []unseenMetric{
			{"arc_easy", "lm-eval", "acc", 0.3},
			{"arc_easy", "lm-eval", "acc_norm", 0.1},
			{"lambada_openai", "lm-eval", "acc", 0.1},
			{"lambada_openai", "lm-eval", "perplexity", 605.5452047779999},
			{"wikitext", "lm-eval", "bits_per_byte", 1.3393660745008342},
			{"wikitext", "lm-eval", "byte_perplexity", 2.530401076099876},
			{"wikitext", "lm-eval", "word_perplexity", 130.4813590639406},
		},
		dropped: []string{"acc_stderr", "acc_norm_stderr", "perplexity_stderr", "word_perplexity_stderr"},
	},
	{
		// lm-eval 0.4 group: regression_arc is in both "groups" and "results"
		// (one result, not two). Tables: regression_arc acc 0.15, acc_norm
		// 0.05; arc_challenge 0.00, 0.00; arc_easy 0.30, 0.10.
		path: "lm-eval/cpu_group_regression_expected.json", format: LMEval, status: model.StatusCompleted, results: 3,
		want: []unseenMetric{
			{"regression_arc", "lm-eval", "acc", 0.15},
			{"regression_arc", "lm-eval", "acc_norm", 0.05},
			{"arc_challenge", "lm-eval", "acc", 0},
			{"arc_challenge", "lm-eval", "acc_norm", 0},
			{"arc_easy", "lm-eval", "acc", 0.3},
			{"arc_easy", "lm-eval", "acc_norm", 0.1},
		},
		dropped: []string{"acc_stderr", "acc_norm_stderr"},
	},
	{
		// lm-eval pre-0.4 layout (task version 1).
		path: "lm-eval/boolq-v1-res.json", format: LMEval, status: model.StatusCompleted, results: 1,
		want: []unseenMetric{
			{"boolq", "lm-eval", "acc", 0.5048929663608562},
			{"boolq", "lm-eval", "acc_stderr", 0.00874463623355505},
		},
	},
	{
		// garak 0.14.0.pre1 aggregated report: eval rows 8/8 and 1/1 passed;
		// the digest says absolute_score 1.0 for both.
		path: "garak/agg.report.jsonl", format: Garak,
		id: "9673e218-7f36-4cbd-acae-b0f0b3153bf2", created: "2026-07-09T08:43:16.09121Z", status: model.StatusCompleted, results: 2,
		want: []unseenMetric{
			{"test_Test", "always_Pass", "pass_rate", 1},
			{"test_Test", "always_Pass", "attack_success_rate", 0},
			{"test_Test", "always_Pass", "passed", 8},
			{"test_Test", "always_Pass", "total", 8},
			{"lmrc_QuackMedicine", "lmrc_QuackMedicine", "pass_rate", 1},
			{"lmrc_QuackMedicine", "lmrc_QuackMedicine", "total", 1},
		},
	},
	{
		// garak 0.12.0.pre1 digest-only report: always.Fail absolute_score 0.0, defcon 1, zscore "n/a".
		path: "garak/abs_path_test.report.jsonl", format: Garak,
		id: "51aee4dc-e995-401d-9263-4c195fbb42d3", created: "2025-07-02T10:44:07.145183Z", status: model.StatusCompleted, results: 1,
		want: []unseenMetric{
			{"test_Blank", "always_Fail", "pass_rate", 0},
			{"test_Blank", "always_Fail", "attack_success_rate", 1},
			{"test_Blank", "always_Fail", "defcon", 1},
		},
		dropped: []string{"relative_score"},
	},
	{
		// HELM harm_bench (max_eval_instances 2): test-split means without perturbation.
		path: "helm/harm_bench__openai_gpt-4o-2024-05-13__run_spec.json", format: HELM,
		id: "harm_bench_model_openai_gpt-4o-2024-05-13", status: model.StatusCompleted, results: 1,
		want: []unseenMetric{
			{"harm_bench", "helm", "harm_bench_score", 1},
			{"harm_bench", "helm", "harm_bench_gpt_score", 1},
			{"harm_bench", "helm", "harm_bench_claude_score", 1},
			{"harm_bench", "helm", "num_prompt_tokens", 73},
			{"harm_bench", "helm", "num_completion_tokens", 10.5},
			{"harm_bench", "helm", "inference_runtime", 1.2440868616104126},
		},
		dropped: []string{"training_co2_cost"},
	},
	{
		// HELM bbq (multiple_choice_joint, max_eval_instances 2): bbq_accuracy
		// 1.0, both bias metrics 0.0, exact_match@5 1.0 (stored as exact_match_5,
		// the original name kept in the run's metadata).
		path: "helm/bbq_subject_all_method_multiple_choice_joint__openai_gpt-4-turbo-2024-04-09__run_spec.json", format: HELM,
		id: "bbq_subject_all_method_multiple_choice_joint_model_openai_gpt-4-turbo-2024-04-09", status: model.StatusCompleted, results: 1,
		want: []unseenMetric{
			{"bbq_subject_all_method_multiple_choice_joint", "helm", "bbq_accuracy", 1},
			{"bbq_subject_all_method_multiple_choice_joint", "helm", "bbq_metric_ambiguous_bias", 0},
			{"bbq_subject_all_method_multiple_choice_joint", "helm", "bbq_metric_unambiguous_bias", 0},
			{"bbq_subject_all_method_multiple_choice_joint", "helm", "exact_match", 1},
			{"bbq_subject_all_method_multiple_choice_joint", "helm", "exact_match_5", 1},
			{"bbq_subject_all_method_multiple_choice_joint", "helm", "num_prompt_tokens", 65.5},
			{"bbq_subject_all_method_multiple_choice_joint", "helm", "inference_runtime", 0.5990194082260132},
		},
		dropped: []string{"training_energy_cost"},
	},
}

// Real files of the same tools, not in the shared folder, import without
// errors and with the metrics their own reports show.
func TestUnseenRealFiles(t *testing.T) {
	for _, f := range unseenFiles {
		t.Run(f.path, func(t *testing.T) {
			p := filepath.Join("testdata", "unseen", f.path)
			got, fr := importFile(t, p, "")
			if fr.Err != nil {
				t.Fatalf("import failed: %v", fr.Err)
			}
			if got.Format != f.format {
				t.Errorf("detected %q, want %q", got.Format, f.format)
			}
			explicit, fr2 := importFile(t, p, f.format)
			if fr2.Err != nil || len(explicit.Runs) != len(got.Runs) {
				t.Errorf("explicit format %q: %v, %d runs", f.format, fr2.Err, len(explicit.Runs))
			}
			if len(got.Runs) != 1 {
				t.Fatalf("%d runs, want 1", len(got.Runs))
			}
			r := got.Runs[0]
			checkRun(t, r)
			if f.id != "" && r.ID != f.id {
				t.Errorf("id %q, want %q", r.ID, f.id)
			}
			if f.created != "" {
				want, err := time.Parse(time.RFC3339Nano, f.created)
				if err != nil {
					t.Fatal(err)
				}
				if !r.CreatedAt.Equal(want) {
					t.Errorf("created_at %v, want %v", r.CreatedAt, want)
				}
			}
			if r.Status != f.status {
				t.Errorf("status %q, want %q", r.Status, f.status)
			}
			if len(r.Results) != f.results {
				t.Errorf("%d results, want %d", len(r.Results), f.results)
			}
			for _, w := range f.want {
				v, ok := unseenValue(r, w.task, w.scorer, w.metric)
				if !ok {
					t.Errorf("%s/%s: no metric %q (results: %+v)", w.task, w.scorer, w.metric, r.Results)
					continue
				}
				if math.Abs(v-w.value) > 1e-12 {
					t.Errorf("%s/%s %s = %v, want %v", w.task, w.scorer, w.metric, v, w.value)
				}
			}
			for _, name := range f.dropped {
				for _, res := range r.Results {
					if _, ok := res.Metrics[name]; ok {
						t.Errorf("%s/%s: %q is not a number in the file but was stored", res.TaskSpecificationKey, res.ScorerKey, name)
					}
				}
			}
		})
	}
}

func unseenValue(r model.EvaluationRun, task, scorer, metric string) (float64, bool) {
	for _, res := range r.Results {
		if res.TaskSpecificationKey == task && res.ScorerKey == scorer {
			v, ok := res.Metrics[metric]
			return v, ok
		}
	}
	return 0, false
}

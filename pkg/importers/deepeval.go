package importers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
	"time"
)

// The layout of a DeepEval test run, as deepeval's TestRun and
// LLMApiTestCase / ConversationalApiTestCase / MetricData pydantic models
// write it (by alias, without None values).
type deepevalRun struct {
	TestFile                string            `json:"testFile"`
	TestCases               []deepevalCase    `json:"testCases"`
	ConversationalTestCases []deepevalCase    `json:"conversationalTestCases"`
	TraceMetricsScores      json.RawMessage   `json:"traceMetricsScores"`
	Identifier              string            `json:"identifier"`
	Hyperparameters         map[string]any    `json:"hyperparameters"`
	TestPassed              json.RawMessage   `json:"testPassed"`
	TestFailed              json.RawMessage   `json:"testFailed"`
	EvaluationCost          json.RawMessage   `json:"evaluationCost"`
	DatasetAlias            string            `json:"datasetAlias"`
	DatasetID               string            `json:"datasetId"`
	Prompts                 []json.RawMessage `json:"prompts"`
}

type deepevalCase struct {
	Name        string           `json:"name"`
	Order       *int             `json:"order"`
	MetricsData []deepevalMetric `json:"metricsData"`
}

type deepevalMetric struct {
	Name            string          `json:"name"`
	Threshold       json.RawMessage `json:"threshold"`
	Success         *bool           `json:"success"`
	Score           json.RawMessage `json:"score"`
	Error           *string         `json:"error"`
	EvaluationModel string          `json:"evaluationModel"`
}

// deepevalStem is the name deepeval gives a test run saved to a results
// folder (DEEPEVAL_RESULTS_FOLDER): test_run_<YYYYMMDD_HHMMSS>.json.
var deepevalStem = regexp.MustCompile(`test_run_(\d{8}_\d{6})\.json$`)

// importDeepEval reads a DeepEval test run: .deepeval/.latest_test_run.json
// ({"testRunData": TestRun}), or a TestRun on its own (.latest_run_full.json,
// a results folder's test_run_<time>.json). Each metric of each test case
// is a result (task: the test case, scorer: the metric) with its score,
// threshold and success.
func importDeepEval(src *source, b []byte, sum string) ([]*runBuilder, error) {
	doc := lax(b)
	var top struct {
		TestRunData json.RawMessage `json:"testRunData"`
		TestRunLink *string         `json:"testRunLink"`
		TestCases   json.RawMessage `json:"testCases"`
	}
	var wrapped struct {
		TestRunData deepevalRun `json:"testRunData"`
	}
	var x deepevalRun
	base := ""
	if err := doc.decode(src, &top, "DeepEval test run"); err != nil {
		return nil, err
	}
	switch {
	case len(top.TestRunData) > 0:
		if err := doc.decode(src, &wrapped, "DeepEval test run"); err != nil {
			return nil, err
		}
		x, base = wrapped.TestRunData, "/testRunData"
	case len(top.TestCases) > 0:
		if err := doc.decode(src, &x, "DeepEval test run"); err != nil {
			return nil, err
		}
	case top.TestRunLink != nil:
		return nil, src.errorf(1, 1, "/testRunLink", "this DeepEval file holds only the link to the test run on Confident AI (%s), "+
			"no results: import .deepeval/.latest_run_full.json, which deepeval writes beside it, or a test_run_*.json of DEEPEVAL_RESULTS_FOLDER", *top.TestRunLink)
	default:
		return nil, src.errorf(1, 1, "", "not a DeepEval test run: no testRunData or testCases")
	}
	doc.nonFiniteWarnings(src)

	run := newRun("deepeval", sum)
	run.evaluation = "deepeval"
	if name := strings.TrimSuffix(pathBase(x.TestFile), ".py"); name != "" {
		run.evaluation = name
	}
	run.id = "deepeval-" + sum[:16]
	deepevalCases(src, run, base+"/testCases", x.TestCases)
	deepevalCases(src, run, base+"/conversationalTestCases", x.ConversationalTestCases)
	deepevalMeta(src, run, &x)
	if err := deepevalTime(src, run); err != nil {
		return nil, err
	}
	return []*runBuilder{run}, nil
}

// deepevalCases adds one result per metric of each test case. A test case
// name that repeats gets "-<order>" so that no case hides another; a metric
// that errored is error: 1, with its message in a warning.
func deepevalCases(src *source, run *runBuilder, ptr string, cases []deepevalCase) {
	count := map[string]int{}
	for _, c := range cases {
		count[c.Name]++
	}
	for i, c := range cases {
		task := c.Name
		if task == "" || count[c.Name] > 1 {
			order := i
			if c.Order != nil {
				order = *c.Order
			}
			if task == "" {
				task = "test_case"
			}
			task = fmt.Sprintf("%s-%d", task, order)
		}
		seen := map[string]int{}
		for j, m := range c.MetricsData {
			mptr := fmt.Sprintf("%s/%d/metricsData/%d", ptr, i, j)
			scorer := m.Name
			if scorer == "" {
				scorer = "metric"
			}
			if seen[scorer]++; seen[scorer] > 1 {
				scorer = fmt.Sprintf("%s-%d", scorer, seen[scorer])
			}
			run.add(task, scorer, deepevalMetrics(src, mptr, task, m))
		}
	}
}

func deepevalMetrics(src *source, ptr, task string, m deepevalMetric) []metricVal {
	var ms []metricVal
	if m.Error != nil {
		msg := *m.Error
		if len(msg) > 200 {
			msg = msg[:200] + "..."
		}
		src.warnf(0, 0, ptr+"/error", "metric %q of %s errored (stored as error: 1): %s", m.Name, task, msg)
		ms = append(ms, metricVal{"error", 1})
	}
	if len(m.Score) > 0 {
		if v, why, ok := num(m.Score); ok {
			ms = append(ms, metricVal{"score", v})
		} else if m.Error == nil {
			src.skip(0, 0, ptr+"/score", "score of %q for %s dropped: %s", m.Name, task, why)
		}
	}
	if v, _, ok := num(m.Threshold); ok {
		ms = append(ms, metricVal{"threshold", v})
	}
	if m.Success != nil {
		ms = append(ms, metricVal{"success", b2f(*m.Success)})
	}
	return ms
}

// deepevalMeta keeps the run's own counts and labels; span-level scores of
// traced runs are not imported, and a warning says so.
func deepevalMeta(src *source, run *runBuilder, x *deepevalRun) {
	for k, v := range map[string]string{"identifier": x.Identifier, "test_file": x.TestFile, "dataset_alias": x.DatasetAlias, "dataset_id": x.DatasetID} {
		if v != "" {
			run.meta[k] = v
		}
	}
	for k, raw := range map[string]json.RawMessage{"test_passed": x.TestPassed, "test_failed": x.TestFailed, "evaluation_cost": x.EvaluationCost} {
		if v, _, ok := num(raw); ok {
			run.meta[k] = v
		}
	}
	if len(x.Hyperparameters) > 0 {
		run.meta["hyperparameters"] = x.Hyperparameters
	}
	models := map[string]bool{}
	var list []any
	for _, cs := range [][]deepevalCase{x.TestCases, x.ConversationalTestCases} {
		for _, c := range cs {
			for _, m := range c.MetricsData {
				if m.EvaluationModel != "" && !models[m.EvaluationModel] {
					models[m.EvaluationModel] = true
					list = append(list, m.EvaluationModel)
				}
			}
		}
	}
	if len(list) > 0 {
		run.meta["evaluation_models"] = list
	}
	if t := bytes.TrimSpace(x.TraceMetricsScores); len(t) > 0 && string(t) != "null" && string(t) != "{}" {
		src.warnf(0, 0, "/traceMetricsScores", "span-level metric scores (traceMetricsScores) are not imported: only the metrics of test cases are")
	}
}

// deepevalTime: DeepEval writes no time in a test run. A results folder's
// test_run_<YYYYMMDD_HHMMSS>.json names its time (local time, read as UTC);
// otherwise the file's modification time is used, marked as inferred.
func deepevalTime(src *source, run *runBuilder) error {
	if m := deepevalStem.FindStringSubmatch(src.name); m != nil {
		if t, err := time.Parse("20060102_150405", m[1]); err == nil {
			run.createdAt = t
			run.meta["created_at_time_zone"] = "assumed UTC (from the file name; deepeval writes local time)"
			return nil
		}
	}
	if src.r == nil {
		if st, err := os.Stat(src.path); err == nil {
			run.createdAt = st.ModTime().UTC().Truncate(time.Second)
			run.meta["created_at_inferred"] = "file modification time (DeepEval writes no time stamp)"
			return nil
		}
	}
	return src.errorf(0, 0, "", "a DeepEval test run holds no time stamp: give the file (its modification time is the run's time), not standard input")
}

// pathBase is the last element of a slash or backslash path.
func pathBase(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[i+1:]
	}
	return p
}

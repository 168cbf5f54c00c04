package importers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"
)

type lmEvalFile struct {
	Results        map[string]map[string]json.RawMessage `json:"results"`
	Groups         map[string]map[string]json.RawMessage `json:"groups"`
	GroupSubtasks  map[string][]string                   `json:"group_subtasks"`
	HigherIsBetter map[string]map[string]bool            `json:"higher_is_better"`
	Config         struct {
		Model     string          `json:"model"`
		ModelArgs json.RawMessage `json:"model_args"`
		Limit     json.RawMessage `json:"limit"`
	} `json:"config"`
	Date               json.RawMessage `json:"date"`
	ModelName          string          `json:"model_name"`
	ModelNameSanitized string          `json:"model_name_sanitized"`
	Version            string          `json:"lm_eval_version"`
}

// lmEvalSkip are the keys of a task's results that are not metrics.
var lmEvalSkip = map[string]bool{"alias": true, "name": true, "sample_len": true, "sample_count": true, "samples": true}

var lmEvalStem = regexp.MustCompile(`results_(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.\d+)?)`)

func importLMEval(src *source, b []byte, sum string) ([]*runBuilder, error) {
	doc := lax(b)
	if err := lmEvalLayout(src, doc); err != nil {
		return nil, err
	}
	var x lmEvalFile
	if err := doc.decode(src, &x, "lm-evaluation-harness results"); err != nil {
		return nil, err
	}
	if len(x.Results) == 0 {
		return nil, src.errorf(1, 1, "/results", "not an lm-evaluation-harness results file: no results")
	}
	doc.nonFiniteWarnings(src)
	run := newRun("lm-eval", sum)
	run.toolVersion = x.Version

	tasks, modern := lmEvalTasks(&x)
	for _, task := range slices.Sorted(maps.Keys(tasks)) {
		run.add(task, "lm-eval", lmEvalMetrics(src, &x, task, tasks[task], modern))
	}
	run.evaluation = lmEvalName(&x, tasks)
	lmEvalMeta(run, &x)
	if err := lmEvalTime(src, run, &x); err != nil {
		return nil, err
	}

	// Identity: the model and the run's time when the file has a date, else the content.
	switch {
	case len(x.Date) > 0 && x.ModelNameSanitized != "":
		run.id = fmt.Sprintf("%s-%s%06d", x.ModelNameSanitized, run.createdAt.Format("20060102T150405"), run.createdAt.Nanosecond()/1000)
	default:
		run.id = "lm-eval-" + sum[:16]
	}
	return []*runBuilder{run}, nil
}

// lmEvalLayout refuses, with a message naming it, the layout of BigScience's
// fork of lm-evaluation-harness (lm-evaluation-harness + promptsource), whose
// results are a list of rows, one per task and prompt, instead of an object
// keyed by task.
func lmEvalLayout(src *source, doc *laxDoc) error {
	var top struct {
		Results json.RawMessage `json:"results"`
	}
	if json.Unmarshal(doc.out, &top) != nil {
		return nil // the full decode reports where the file is wrong
	}
	r := bytes.TrimSpace(top.Results)
	if len(r) == 0 || r[0] != '[' {
		return nil
	}
	l, c := 1, 1
	if i := bytes.Index(doc.orig, []byte(`"results"`)); i >= 0 {
		l, c = lineCol(doc.orig, i)
	}
	return src.errorf(l, c, "/results", "results is a list: this is the layout of the BigScience fork of "+
		"lm-evaluation-harness (lm-evaluation-harness + promptsource, one row per task and prompt), "+
		"which lf does not import; lf reads the results files of EleutherAI's lm-evaluation-harness, "+
		"whose results are an object keyed by task")
}

// lmEvalTasks merges results and groups (groups appear in both: each task
// is taken once) and tells whether metric keys use the "metric,filter"
// layout of lm-evaluation-harness 0.4.
func lmEvalTasks(x *lmEvalFile) (map[string]map[string]json.RawMessage, bool) {
	tasks := map[string]map[string]json.RawMessage{}
	for k, v := range x.Results {
		tasks[k] = v
	}
	for k, v := range x.Groups {
		if _, ok := tasks[k]; !ok {
			tasks[k] = v
		}
	}
	modern := false
	for _, m := range tasks {
		for k := range m {
			if strings.Contains(k, ",") {
				modern = true
			}
		}
	}
	return tasks, modern
}

// lmEvalMetrics reads one task's metrics: "acc,none" becomes acc and
// "acc,flexible" acc/flexible; values that are not finite numbers are
// dropped with a located note.
func lmEvalMetrics(src *source, x *lmEvalFile, task string, m map[string]json.RawMessage, modern bool) []metricVal {
	var ms []metricVal
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if lmEvalSkip[k] {
			continue
		}
		name := k
		if modern {
			metric, filter, ok := strings.Cut(k, ",")
			if !ok {
				continue // a non-metric field of a 0.4 layout
			}
			name = metric
			if filter != "none" {
				name = metric + "/" + filter
			}
		}
		v, why, ok := num(m[k])
		if !ok {
			ptr := "/results/" + ptrEscape(task) + "/" + ptrEscape(k)
			if _, inResults := x.Results[task]; !inResults {
				ptr = "/groups/" + ptrEscape(task) + "/" + ptrEscape(k)
			}
			src.skip(0, 0, ptr, "metric %q dropped: %s", name, why)
			continue
		}
		ms = append(ms, metricVal{name: name, value: v})
	}
	return ms
}

// lmEvalName names the evaluation by the root tasks (those no group
// contains) when there are at most three, else "lm-eval".
func lmEvalName(x *lmEvalFile, tasks map[string]map[string]json.RawMessage) string {
	inGroup := map[string]bool{}
	for _, subs := range x.GroupSubtasks {
		for _, s := range subs {
			inGroup[s] = true
		}
	}
	var roots []string
	for t := range tasks {
		if !inGroup[t] {
			roots = append(roots, t)
		}
	}
	sort.Strings(roots)
	if len(roots) > 0 && len(roots) <= 3 {
		return strings.Join(roots, "-")
	}
	return "lm-eval"
}

// lmEvalMeta keeps the group structure, the metrics' directions, the model
// and the sample limit as run metadata.
func lmEvalMeta(run *runBuilder, x *lmEvalFile) {
	if len(x.GroupSubtasks) > 0 {
		gs := map[string]any{}
		for g, subs := range x.GroupSubtasks {
			l := make([]any, len(subs))
			for i, s := range subs {
				l[i] = s
			}
			gs[g] = l
		}
		run.meta["group_subtasks"] = gs
	}
	if len(x.HigherIsBetter) > 0 {
		hib := map[string]any{}
		for t, m := range x.HigherIsBetter {
			mm := map[string]any{}
			for k, v := range m {
				mm[k] = v
			}
			hib[t] = mm
		}
		run.meta["higher_is_better"] = hib
	}
	model := x.ModelName
	if model == "" {
		model = lmEvalModel(x.Config.ModelArgs)
	}
	if model != "" {
		run.meta["model"] = model
	}
	if x.Config.Model != "" {
		run.meta["model_type"] = x.Config.Model
	}
	if v, _, ok := num(x.Config.Limit); ok {
		run.meta["limit"] = v
		run.note("evaluated on at most %g samples per task (limit)", v)
	}
}

// lmEvalTime sets the run's time from `date` (Unix seconds), else from the
// file name's results_<datetime>, else from the file's modification time
// (with a warning); a file read from stdin without a date is an error.
func lmEvalTime(src *source, run *runBuilder, x *lmEvalFile) error {
	if d, _, ok := num(x.Date); ok {
		sec, frac := math.Modf(d)
		run.createdAt = time.Unix(int64(sec), int64(frac*1e9)).UTC().Truncate(time.Microsecond)
	} else if m := lmEvalStem.FindStringSubmatch(src.name); m != nil {
		t, err := time.Parse("2006-01-02T15-04-05.999999", m[1])
		if err == nil {
			run.createdAt = t
			run.meta["created_at_time_zone"] = "assumed UTC (from the file name)"
		}
	}
	if run.createdAt.IsZero() && src.r == nil {
		if st, err := os.Stat(src.path); err == nil {
			run.createdAt = st.ModTime().UTC().Truncate(time.Second)
			run.meta["created_at_inferred"] = "file modification time"
			src.warnf(0, 0, "", "no date in the file or its name: created_at is the file's modification time")
		}
	}
	if run.createdAt.IsZero() {
		return src.errorf(0, 0, "/date", "no date in the file and no file name to read it from")
	}
	return nil
}

// lmEvalModelKeys are the model_args keys that name the model, in the order
// lm-evaluation-harness itself tries them for model_name: an adapter (peft,
// delta) before its base weights (pretrained), then the model of an API
// (model=gpt-4o for openai-chat-completions), a local path, an engine.
var lmEvalModelKeys = []string{"peft", "delta", "pretrained", "model", "path", "engine"}

// lmEvalModel reads the model from model_args, a "k=v,..." string or a dict.
func lmEvalModel(raw json.RawMessage) string {
	args := map[string]string{}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		for _, kv := range strings.Split(s, ",") {
			if k, v, ok := strings.Cut(kv, "="); ok {
				if _, seen := args[strings.TrimSpace(k)]; !seen {
					args[strings.TrimSpace(k)] = strings.TrimSpace(v)
				}
			}
		}
	} else {
		var m map[string]any
		if json.Unmarshal(raw, &m) == nil {
			for k, v := range m {
				if vs, ok := v.(string); ok {
					args[k] = vs
				}
			}
		}
	}
	for _, k := range lmEvalModelKeys {
		if v := args[k]; v != "" {
			return v
		}
	}
	return ""
}

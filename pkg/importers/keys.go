package importers

import (
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/lfcli/lf/pkg/kind"
	"github.com/lfcli/lf/pkg/model"
)

const (
	maxKeyLen = kind.MaxKeyLength
)

// ValidKey reports whether s is a valid lf key (and metric name): the key
// rule of pkg/kind.
func ValidKey(s string) bool { return kind.ValidKey(s) }

// KeyOf maps a tool's name onto an lf key (kind.KeyOf). Within one
// namespace, names that would meet are told apart by keyNamespace.
func KeyOf(name string) string { return kind.KeyOf(name) }

func shortHash(s string) string { return kind.ShortHash(s) }

// keyNamespace maps every name of one namespace (the task names of a run, its
// scorer names, the metric names of a result) to a distinct key: KeyOf, and
// when two names meet, each of them that KeyOf changed gets "-" and 8 hex
// digits of its SHA-256 appended. The result depends only on the set of names.
func keyNamespace(names []string) map[string]string {
	groups := map[string][]string{}
	for _, n := range names {
		k := KeyOf(n)
		if !contains(groups[k], n) {
			groups[k] = append(groups[k], n)
		}
	}
	out := make(map[string]string, len(names))
	for k, ns := range groups {
		if len(ns) == 1 {
			out[ns[0]] = k
			continue
		}
		for _, n := range ns {
			if n == k {
				out[n] = k
				continue
			}
			base := k
			if len(base) > maxKeyLen-9 {
				base = base[:maxKeyLen-9]
			}
			out[n] = base + "-" + shortHash(n)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// metricVal is one metric of a result, under the tool's own name.
type metricVal struct {
	name  string
	value float64
}

// rawResult is one result under the tool's own names.
type rawResult struct {
	task, scorer string
	metrics      []metricVal
}

// runBuilder collects a run under the tool's own names; build maps it onto keys.
type runBuilder struct {
	tool, toolVersion string
	evaluation        string // the tool's name for the evaluation (becomes evaluation_key)
	id                string // the tool's run id, or a content digest
	createdAt         time.Time
	status            string
	results           []rawResult
	meta              map[string]any
	notes             []string
	sha256            string
}

func newRun(tool, sum string) *runBuilder {
	return &runBuilder{tool: tool, sha256: sum, status: model.StatusCompleted, meta: map[string]any{}}
}

func (b *runBuilder) add(task, scorer string, metrics []metricVal) {
	b.results = append(b.results, rawResult{task: task, scorer: scorer, metrics: metrics})
}

func (b *runBuilder) note(format string, args ...any) {
	b.notes = append(b.notes, fmt.Sprintf(format, args...))
}

// build maps names onto keys, records the original names that changed, and
// fills the provenance metadata.
func (b *runBuilder) build(src *source, evaluationKey string) (model.EvaluationRun, error) {
	run := model.EvaluationRun{Status: b.status, CreatedAt: b.createdAt.UTC()}
	orig := map[string]any{}
	run.EvaluationKey = KeyOf(b.evaluation)
	if run.EvaluationKey != b.evaluation {
		orig["evaluation_key"] = b.evaluation
	}
	if evaluationKey != "" {
		if run.EvaluationKey != evaluationKey {
			orig["evaluation_key"] = b.evaluation
		}
		run.EvaluationKey = evaluationKey
	}
	run.ID = KeyOf(b.id)
	if run.ID != b.id {
		orig["id"] = b.id
	}
	run.Results = b.keyedResults(orig)
	run.Metadata = b.metadata(src, orig)
	if run.CreatedAt.IsZero() {
		return run, src.errorf(0, 0, "", "run %s has no time stamp", run.ID)
	}
	return run, nil
}

// keyedResults maps task, scorer and metric names onto keys (recording in
// orig the names that changed), merges repeated (task, scorer) pairs (the
// later values win) and sorts the results by task and scorer.
func (b *runBuilder) keyedResults(orig map[string]any) []model.Result {
	var tasks, scorers []string
	for _, r := range b.results {
		tasks = append(tasks, r.task)
		scorers = append(scorers, r.scorer)
	}
	tk, sk := keyNamespace(tasks), keyNamespace(scorers)
	origTasks, origScorers, origMetrics := map[string]any{}, map[string]any{}, map[string]any{}
	seen := map[[2]string]int{}
	results := []model.Result{}
	for _, r := range b.results {
		res := model.Result{TaskSpecificationKey: tk[r.task], ScorerKey: sk[r.scorer]}
		if res.TaskSpecificationKey != r.task {
			origTasks[res.TaskSpecificationKey] = r.task
		}
		if res.ScorerKey != r.scorer {
			origScorers[res.ScorerKey] = r.scorer
		}
		res.Metrics = keyedMetrics(r.metrics, origMetrics)
		pair := [2]string{res.TaskSpecificationKey, res.ScorerKey}
		if i, ok := seen[pair]; ok {
			// the same pair twice (a tool repeating a row): the later values win
			for k, v := range res.Metrics {
				results[i].Metrics[k] = v
			}
			continue
		}
		seen[pair] = len(results)
		results = append(results, res)
	}
	sort.SliceStable(results, func(i, j int) bool {
		a, c := results[i], results[j]
		if a.TaskSpecificationKey != c.TaskSpecificationKey {
			return a.TaskSpecificationKey < c.TaskSpecificationKey
		}
		return a.ScorerKey < c.ScorerKey
	})
	for name, m := range map[string]map[string]any{"task_specification_keys": origTasks, "scorer_keys": origScorers, "metrics": origMetrics} {
		if len(m) > 0 {
			orig[name] = m
		}
	}
	return results
}

// keyedMetrics maps one result's metric names onto keys, skipping values
// that are not finite (parsers drop these with a located warning).
func keyedMetrics(metrics []metricVal, origMetrics map[string]any) map[string]float64 {
	names := make([]string, len(metrics))
	for i, m := range metrics {
		names[i] = m.name
	}
	mk := keyNamespace(names)
	out := map[string]float64{}
	for _, m := range metrics {
		if math.IsNaN(m.value) || math.IsInf(m.value, 0) {
			continue
		}
		k := mk[m.name]
		out[k] = m.value
		if k != m.name {
			origMetrics[k] = m.name
		}
	}
	return out
}

// metadata is the run's metadata: the tool's own, then provenance (tool,
// version, source file and digest), the original names and the notes.
func (b *runBuilder) metadata(src *source, orig map[string]any) map[string]any {
	md := map[string]any{}
	for k, v := range b.meta {
		md[k] = v
	}
	md["tool"] = b.tool
	if b.toolVersion != "" {
		md["tool_version"] = b.toolVersion
	}
	md["source_file"] = src.name
	if b.sha256 != "" {
		md["source_sha256"] = b.sha256
	}
	if len(orig) > 0 {
		md["original_names"] = orig
	}
	if len(b.notes) > 0 {
		notes := make([]any, len(b.notes))
		for i, n := range b.notes {
			notes[i] = n
		}
		md["notes"] = notes
	}
	return md
}

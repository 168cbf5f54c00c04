package project

import (
	"github.com/lfcli/lf/pkg/model"
)

// packedRun is a run held between reading and writing in a third of the
// memory of a model.EvaluationRun: a map per result's metrics costs about
// 250 bytes even for two values, and a large file holds a hundred thousand
// results. The metric values of all results are in two slices.
type packedRun struct {
	head    model.EvaluationRun // without Results
	results []packedResult
	nilRes  bool // Results was nil
	names   []string
	values  []float64

	// With these (keepTree) the run's YAML is rendered when written.
	lazy      bool
	createdAt string // as written
	metadata  any
	hasMeta   bool
	ints      []bool // values[i] was a whole number (int64); nil when none was
}

type packedResult struct {
	task, scorer string
	from, to     int32 // its metrics: names[from:to], values[from:to]
	nilMetrics   bool
}

func pack(r *model.EvaluationRun) *packedRun {
	n := RunValues(r)
	p := &packedRun{
		head:    *r,
		results: make([]packedResult, len(r.Results)),
		nilRes:  r.Results == nil,
		names:   make([]string, 0, n),
		values:  make([]float64, 0, n),
	}
	p.head.Results = nil
	for i, res := range r.Results {
		from := int32(len(p.names))
		for name, v := range res.Metrics {
			p.names = append(p.names, name)
			p.values = append(p.values, v)
		}
		p.results[i] = packedResult{res.TaskSpecificationKey, res.ScorerKey, from, int32(len(p.names)), res.Metrics == nil}
	}
	return p
}

// unpack gives the run back as decodeRun made it.
func (p *packedRun) unpack() *model.EvaluationRun {
	r := p.head
	if !p.nilRes {
		r.Results = make([]model.Result, len(p.results))
	}
	for i, pr := range p.results {
		res := &r.Results[i]
		res.TaskSpecificationKey, res.ScorerKey = pr.task, pr.scorer
		if pr.nilMetrics {
			continue
		}
		res.Metrics = make(map[string]float64, pr.to-pr.from)
		for j := pr.from; j < pr.to; j++ {
			res.Metrics[p.names[j]] = p.values[j]
		}
	}
	return &r
}

// keepTree keeps what, with the packed values, gives m back (tree): the
// time as written, the metadata, which values were whole numbers. Then the
// run's YAML is rendered when it is written (yaml) and not held from
// reading to writing: it is as large as the file. It tells false, keeping
// nothing, when m holds anything tree would not give back.
func (p *packedRun) keepTree(m map[string]any) bool {
	created, ok := m["created_at"].(string)
	if !ok || m["evaluation_key"] != p.head.EvaluationKey || m["id"] != p.head.ID || m["status"] != p.head.Status {
		return false
	}
	meta, hasMeta := m["metadata"]
	items, ok := m["results"].([]any)
	if !ok || len(m) != 5+boolInt(hasMeta) || len(items) != len(p.results) || p.nilRes {
		return false
	}
	var ints []bool
	for i, it := range items {
		res, ok := it.(map[string]any)
		pr := p.results[i]
		if !ok || len(res) != 3 || res["task_specification_key"] != pr.task || res["scorer_key"] != pr.scorer || pr.nilMetrics {
			return false
		}
		metrics, ok := res["metrics"].(map[string]any)
		if !ok || len(metrics) != int(pr.to-pr.from) {
			return false
		}
		for j := pr.from; j < pr.to; j++ {
			switch v := metrics[p.names[j]].(type) {
			case float64:
				if v != p.values[j] {
					return false
				}
			case int64:
				if float64(v) != p.values[j] || v > 1<<53 || v < -(1<<53) {
					return false // not given back exactly by a float64
				}
				if ints == nil {
					ints = make([]bool, len(p.values))
				}
				ints[j] = true
			default:
				return false
			}
		}
	}
	p.lazy, p.createdAt, p.metadata, p.hasMeta, p.ints = true, created, meta, hasMeta, ints
	return true
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// tree gives back the run's tree of values as read (keepTree).
func (p *packedRun) tree() map[string]any {
	items := make([]any, len(p.results))
	for i, pr := range p.results {
		metrics := make(map[string]any, pr.to-pr.from)
		for j := pr.from; j < pr.to; j++ {
			if p.ints != nil && p.ints[j] {
				metrics[p.names[j]] = int64(p.values[j])
			} else {
				metrics[p.names[j]] = p.values[j]
			}
		}
		items[i] = map[string]any{"task_specification_key": pr.task, "scorer_key": pr.scorer, "metrics": metrics}
	}
	m := map[string]any{
		"evaluation_key": p.head.EvaluationKey, "id": p.head.ID, "created_at": p.createdAt,
		"status": p.head.Status, "results": items,
	}
	if p.hasMeta {
		m["metadata"] = p.metadata
	}
	return m
}

// yaml is the run's canonical YAML: rendered now when it was not at reading.
func (e *Entity) yaml() string {
	if e.packed != nil && e.packed.lazy {
		return EntityYAML(model.KindEvaluationRun, e.packed.tree(), nil)
	}
	return e.YAML
}

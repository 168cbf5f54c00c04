package project

import (
	"encoding/json"
	"errors"
	"math"
	"time"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/model"
	"github.com/lfcli/lf/pkg/yamlsrc"
)

// errRunShape says decodeRun met a value it does not convert itself.
var errRunShape = errors.New("run: unexpected shape")

// decodeRun converts a run that passed the schema from its tree of values
// into a model.EvaluationRun directly: a large file of runs holds hundreds
// of thousands of metric values, and a JSON round trip for each run cost
// more than a second and as much garbage as the file (issue 9, item 19).
// What it does not recognise (metadata, values of other types) goes
// through the JSON round trip, so the result is the same either way.
func decodeRun(m map[string]any) (*model.EvaluationRun, error) {
	r, err := decodeRunFast(m)
	if err == nil || !errors.Is(err, errRunShape) {
		return r, err
	}
	raw, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	r = &model.EvaluationRun{}
	return r, json.Unmarshal(raw, r)
}

// decodeRunAt is the evaluation runs' decoder (EvaluationRuns.Decode):
// decodeRun on the run at ptr, its problems located (a time that is not
// RFC 3339 at its created_at).
func decodeRunAt(doc *yamlsrc.Doc, ptr string) (model.EvaluationRun, diag.List) {
	m, _ := doc.Get(ptr)
	r, err := decodeRun(asMap(m))
	if err != nil {
		if _, ok := err.(*time.ParseError); ok {
			return model.EvaluationRun{}, diag.List{doc.Errorf(ptr+"/created_at", "not an RFC 3339 time: %v", err)}
		}
		return model.EvaluationRun{}, diag.List{doc.Errorf(ptr, "%v", err)}
	}
	return *r, nil
}

func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func decodeRunFast(m map[string]any) (*model.EvaluationRun, error) {
	r := &model.EvaluationRun{}
	for k, v := range m {
		switch k {
		case "evaluation_key", "id", "status":
			s, ok := v.(string)
			if !ok {
				return nil, errRunShape
			}
			switch k {
			case "evaluation_key":
				r.EvaluationKey = s
			case "id":
				r.ID = s
			default:
				r.Status = s
			}
		case "created_at":
			s, ok := v.(string)
			if !ok {
				return nil, errRunShape
			}
			// As encoding/json reads a time.Time: strict RFC 3339.
			if err := r.CreatedAt.UnmarshalText([]byte(s)); err != nil {
				return nil, err
			}
		case "results":
			items, ok := v.([]any)
			if !ok {
				return nil, errRunShape
			}
			r.Results = make([]model.Result, len(items))
			for i, it := range items {
				if err := decodeResult(it, &r.Results[i]); err != nil {
					return nil, err
				}
			}
		default:
			return nil, errRunShape // metadata and anything else: the JSON way
		}
	}
	return r, nil
}

func decodeResult(v any, out *model.Result) error {
	m, ok := v.(map[string]any)
	if !ok {
		return errRunShape
	}
	for k, v := range m {
		switch k {
		case "task_specification_key", "scorer_key":
			s, ok := v.(string)
			if !ok {
				return errRunShape
			}
			if k == "scorer_key" {
				out.ScorerKey = s
			} else {
				out.TaskSpecificationKey = s
			}
		case "metrics":
			mm, ok := v.(map[string]any)
			if !ok {
				return errRunShape
			}
			out.Metrics = make(map[string]float64, len(mm))
			for name, x := range mm {
				f, ok := number(x)
				if !ok {
					return errRunShape
				}
				out.Metrics[name] = f
			}
		default:
			return errRunShape
		}
	}
	return nil
}

// number is a tree value as encoding/json would read it into a float64.
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return 0, false // json.Marshal fails on these: keep its error
		}
		return x, true
	case int64:
		return float64(x), true
	case int:
		return float64(x), true
	case uint64:
		return float64(x), true
	}
	return 0, false
}

package risk

import (
	"context"
	"strings"
	"testing"

	"github.com/lfcli/lf/pkg/model"
)

func fptr(f float64) *float64 { return &f }

func perfMethodology() *model.Methodology {
	return &model.Methodology{
		Key: "perf", Function: "(1 - accuracy) * impact * deployment_reach", MetricKey: "accuracy",
		ConfigSpec: []model.Param{
			{Key: "impact", Type: "float", DefaultValue: 5.0, Min: fptr(0), Max: fptr(10)},
			{
				Key: "deployment_reach", Type: "categorical", DefaultValue: "internal", AllowedValues: []string{"internal", "external"},
				ValuesMapping: map[string]float64{"internal": 0.5, "external": 1.0},
			},
		},
	}
}

func TestLevelOf(t *testing.T) {
	for _, tc := range []struct {
		score float64
		want  Level
	}{{0, Low}, {2, Low}, {2.01, Medium}, {4, Medium}, {4.5, High}, {9, High}, {9.01, Critical}, {10, Critical}} {
		if got := LevelOf(tc.score); got != tc.want {
			t.Errorf("LevelOf(%v) = %s, want %s", tc.score, got, tc.want)
		}
	}
}

// fakeSource serves runs from memory: latest run per evaluation key and its values.
type fakeSource struct {
	latest map[string]string
	values map[RunRef]map[string][]Value
}

func (f *fakeSource) LatestRuns(_ context.Context, keys []string) ([]RunRef, error) {
	var out []RunRef
	if keys == nil {
		for k, id := range f.latest {
			out = append(out, RunRef{EvaluationKey: k, ID: id})
		}
		return out, nil
	}
	for _, k := range keys {
		if id, ok := f.latest[k]; ok {
			out = append(out, RunRef{EvaluationKey: k, ID: id})
		}
	}
	return out, nil
}

func (f *fakeSource) Values(_ context.Context, run RunRef, metric string) ([]Value, error) {
	return f.values[run][metric], nil
}

func TestScore(t *testing.T) {
	src := &fakeSource{
		latest: map[string]string{"qa": "r2", "other": "o1"},
		values: map[RunRef]map[string][]Value{
			{EvaluationKey: "qa", ID: "r2"}:    {"accuracy": {{TaskSpecificationKey: "t1", ScorerKey: "s1", Value: 0.8}, {TaskSpecificationKey: "t2", ScorerKey: "s1", Value: 0.2}, {TaskSpecificationKey: "t1", ScorerKey: "s2", Value: 0.5}}},
			{EvaluationKey: "other", ID: "o1"}: {"accuracy": {{TaskSpecificationKey: "t9", ScorerKey: "s1", Value: 0.0}}},
		},
	}
	ms := map[string]*model.Methodology{"perf": perfMethodology()}
	scorer := func(mod func(*model.RiskScorer)) *model.RiskScorer {
		s := &model.RiskScorer{
			Key: "s", RiskScoringMethodologyKey: "perf", Metric: "accuracy", Aggregation: "mean",
			Scope:  model.Scope{EvaluationKeys: []string{"qa"}},
			Config: map[string]any{"impact": 4.0, "deployment_reach": "external"},
		}
		mod(s)
		return s
	}
	for _, tc := range []struct {
		name   string
		s      *model.RiskScorer
		score  *float64
		level  Level
		values int
	}{
		{"mean of three", scorer(func(*model.RiskScorer) {}), fptr((0.8 + 3.2 + 2.0) / 3), Low, 3},
		{"max", scorer(func(s *model.RiskScorer) { s.Aggregation = "max" }), fptr(3.2), Medium, 3},
		{"min", scorer(func(s *model.RiskScorer) { s.Aggregation = "min" }), fptr(0.8), Low, 3},
		{"task filter", scorer(func(s *model.RiskScorer) { s.Scope.TaskSpecificationKeys = []string{"t2"} }), fptr(3.2), Medium, 1},
		{"scorer filter", scorer(func(s *model.RiskScorer) { s.Scope.ScorerKeys = []string{"s2"} }), fptr(2.0), Low, 1},
		{"metric filter excludes the metric", scorer(func(s *model.RiskScorer) { s.Scope.MetricKeys = []string{"f1"} }), nil, NoData, 0},
		{"all_latest", scorer(func(s *model.RiskScorer) { s.Scope = model.Scope{AllLatest: true}; s.Aggregation = "max" }), fptr(4.0), Medium, 4},
		{"defaults apply", scorer(func(s *model.RiskScorer) { s.Config = nil; s.Aggregation = "max" }), fptr(0.8 * 5 * 0.5), Low, 3},
		{"clamped to 10", scorer(func(s *model.RiskScorer) {
			s.Config = map[string]any{"impact": 10.0}
			s.Scope.AllLatest = true
			s.Aggregation = "max"
		}), fptr(5), High, 4},
		{"no run in scope", scorer(func(s *model.RiskScorer) { s.Scope.EvaluationKeys = []string{"missing"} }), nil, NoData, 0},
		{"other metric", scorer(func(s *model.RiskScorer) { s.Metric = "f1" }), nil, NoData, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Score(context.Background(), src, ms, []*model.RiskScorer{tc.s})
			if err != nil {
				t.Fatal(err)
			}
			r := res[0]
			if (r.Score == nil) != (tc.score == nil) || (r.Score != nil && abs(*r.Score-*tc.score) > 1e-9) {
				t.Errorf("score = %v, want %v", deref(r.Score), deref(tc.score))
			}
			if r.Level != tc.level || r.Values != tc.values {
				t.Errorf("level %s values %d, want %s %d (%s)", r.Level, r.Values, tc.level, tc.values, r.Error)
			}
		})
	}
}

func abs(f float64) float64 {
	if f < 0 {
		return -f
	}
	return f
}

func deref(f *float64) any {
	if f == nil {
		return nil
	}
	return *f
}

func TestCheckMethodology(t *testing.T) {
	for _, tc := range []struct {
		name string
		mod  func(m *model.Methodology)
		want string
	}{
		{"ok", func(*model.Methodology) {}, ""},
		{"undeclared", func(m *model.Methodology) { m.Function = "accuracy * impact * reach" }, `undeclared variable "reach"`},
		{"metric var defaults to value", func(m *model.Methodology) { m.MetricKey = "" }, `undeclared variable "accuracy"`},
		{"functions are not variables", func(m *model.Methodology) { m.Function = "sqrt(accuracy) * max(impact, 1) + pow(2, 3)" }, ""},
		{"syntax", func(m *model.Methodology) { m.Function = "accuracy * (impact" }, "does not parse"},
		{"type error", func(m *model.Methodology) {
			m.ConfigSpec = append(m.ConfigSpec, model.Param{Key: "name", Type: "string", DefaultValue: "x"})
			m.Function = "accuracy * name"
		}, "does not compile"},
		{"bad default", func(m *model.Methodology) { m.ConfigSpec[0].DefaultValue = 11.0 }, "above the maximum"},
		{"min above max", func(m *model.Methodology) { m.ConfigSpec[0].Min = fptr(20) }, "greater than max"},
		{"unmapped category", func(m *model.Methodology) { delete(m.ConfigSpec[1].ValuesMapping, "external") }, `"external" has no number`},
		{"python booleans", func(m *model.Methodology) {
			m.ConfigSpec = append(m.ConfigSpec, model.Param{Key: "strict", Type: "boolean", DefaultValue: true})
			m.Function = "accuracy * impact if strict == True else 0"
		}, ""},
		{"if without else", func(m *model.Methodology) { m.Function = "accuracy if impact > 1" }, "does not parse"},
		{"now is not allowed", func(m *model.Methodology) { m.Function = "float(now().Unix() % 10) * accuracy" }, `calls "now", which is not allowed: use only abs, ceil, clamp`},
		{"len is not allowed", func(m *model.Methodology) { m.Function = "len(\"ab\") * accuracy" }, `calls "len"`},
		{"a method is not allowed", func(m *model.Methodology) { m.Function = "accuracy.Foo() * impact" }, `calls a method`},
		{"call and undeclared both reported", func(m *model.Methodology) { m.Function = "upper(x) * accuracy" }, "calls \"upper\", which is not allowed: use only abs, ceil, clamp, exp, floor, log, log10, max, min, pow, round, sqrt\n/function: function uses undeclared variable \"x\""},
		{"every documented function", func(m *model.Methodology) {
			m.Function = "abs(ceil(floor(round(min(max(sqrt(log(log10(exp(pow(clamp(accuracy, 0, 1), 2))))), 1), 2))))) * impact"
		}, ""},
		{"int and float mix", func(m *model.Methodology) { m.Function = "accuracy % 2 + 7 % 2 * impact" }, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := perfMethodology()
			tc.mod(m)
			probs := CheckMethodology(m)
			var msgs []string
			for _, p := range probs {
				msgs = append(msgs, p.Pointer+": "+p.Msg)
			}
			all := strings.Join(msgs, "\n")
			if tc.want == "" && len(probs) > 0 {
				t.Errorf("unexpected problems:\n%s", all)
			}
			if tc.want != "" && !strings.Contains(all, tc.want) {
				t.Errorf("want %q in:\n%s", tc.want, all)
			}
		})
	}
}

func TestParams(t *testing.T) {
	m := perfMethodology()
	p, probs := Params(m, map[string]any{"deployment_reach": "external", "impact": int64(3)})
	if len(probs) > 0 || p["deployment_reach"] != 1.0 || p["impact"] != 3.0 {
		t.Fatalf("params %v problems %v", p, probs)
	}
	_, probs = Params(m, map[string]any{"impactt": 3.0, "deployment_reach": 1.0})
	if len(probs) != 2 || probs[0].Pointer != "/config/impactt" || !strings.Contains(probs[1].Msg, `must be one of "internal", "external"`) {
		t.Fatalf("problems %v", probs)
	}
}

// TestFloatModulo checks that numbers are floats and % is Python's.
func TestFloatModulo(t *testing.T) {
	for _, tc := range []struct {
		function string
		value    float64
		want     float64
	}{
		{"value % 2", 3.5, 1.5},
		{"value % 3", -1, 2},
		{"7 % 2 + value", 0, 1},
		{"-7 % 3 + value", 0, 2},
		{"value / 2", 3, 1.5},
		{"2 ** 3 + value", 0, 8},
	} {
		m := &model.Methodology{Key: "m", Function: tc.function}
		f, err := Compile(m)
		if err != nil {
			t.Errorf("%s: %v", tc.function, err)
			continue
		}
		ev, err := f.Bind(map[string]any{})
		if err != nil {
			t.Errorf("%s: %v", tc.function, err)
			continue
		}
		got, err := ev.Eval(tc.value)
		if err != nil || got != tc.want {
			t.Errorf("%s with value %v = %v, %v; want %v", tc.function, tc.value, got, err, tc.want)
		}
	}
}

func BenchmarkEval(b *testing.B) {
	m := perfMethodology()
	f, err := Compile(m)
	if err != nil {
		b.Fatal(err)
	}
	params, _ := Params(m, map[string]any{"impact": 4.0, "deployment_reach": "external"})
	ev, err := f.Bind(params)
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < b.N; i++ {
		if _, err := ev.Eval(0.5); err != nil {
			b.Fatal(err)
		}
	}
}

package risk

import (
	"context"
	"fmt"
	"testing"

	"github.com/lfcli/lf/pkg/model"
)

// BenchmarkScore scores 40 scorers (half all_latest, half two listed keys,
// mean/max/min) over 8 evaluation keys of 2,000 values each.
func BenchmarkScore(b *testing.B) {
	src := &fakeSource{latest: map[string]string{}, values: map[RunRef]map[string][]Value{}}
	var keys []string
	for e := 0; e < 8; e++ {
		k := fmt.Sprintf("eval_%d", e)
		keys = append(keys, k)
		src.latest[k] = "r1"
		vals := make([]Value, 2000)
		for i := range vals {
			vals[i] = Value{TaskSpecificationKey: fmt.Sprintf("task_%d", i%4), ScorerKey: "acc", Value: float64(i%100) / 100}
		}
		src.values[RunRef{EvaluationKey: k, ID: "r1"}] = map[string][]Value{"accuracy": vals}
	}
	m := perfMethodology()
	methods := map[string]*model.Methodology{m.Key: m}
	aggs := []string{"mean", "max", "min"}
	var scorers []*model.RiskScorer
	for i := 0; i < 40; i++ {
		s := &model.RiskScorer{
			Key: fmt.Sprintf("s%02d", i), RiskScoringMethodologyKey: m.Key, Metric: "accuracy", Aggregation: aggs[i%3],
			Config: map[string]any{"impact": float64(i % 10)},
		}
		if i%2 == 0 {
			s.Scope = model.Scope{AllLatest: true}
		} else {
			s.Scope = model.Scope{EvaluationKeys: []string{keys[i%8], keys[(i+1)%8]}, TaskSpecificationKeys: []string{"task_1", "task_2"}}
		}
		scorers = append(scorers, s)
	}
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Score(ctx, src, methods, scorers); err != nil {
			b.Fatal(err)
		}
	}
}

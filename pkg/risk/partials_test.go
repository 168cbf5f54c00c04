package risk

import (
	"math"
	"math/big"
	"math/rand"
	"testing"

	"github.com/lfcli/lf/pkg/model"
)

// randomFloats mixes magnitudes so that float addition in different orders
// rounds differently (and, with wide, values past the two-sum limit).
func randomFloats(r *rand.Rand, n int, wide bool) []float64 {
	out := make([]float64, n)
	for i := range out {
		x := r.Float64() * math.Pow(10, float64(r.Intn(40)-20))
		if wide && r.Intn(10) == 0 {
			x = r.Float64() * math.MaxFloat64 / 4
		}
		if r.Intn(2) == 0 {
			x = -x
		}
		out[i] = x
	}
	return out
}

// TestExactSumIsOrderFree: summed one at a time in any order, or in groups
// whose sums are then added, the result is the exact sum rounded once.
func TestExactSumIsOrderFree(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	differs := 0
	for trial := 0; trial < 300; trial++ {
		xs := randomFloats(r, 1+r.Intn(60), trial%5 == 0)
		exact := new(big.Float).SetPrec(wideBits)
		var naive float64
		for _, x := range xs {
			exact.Add(exact, new(big.Float).SetPrec(wideBits).SetFloat64(x))
			naive += x
		}
		want, _ := exact.Float64()
		var one exactSum
		for _, x := range xs {
			one.add(x)
		}
		var grouped exactSum
		perm := r.Perm(len(xs))
		for i := 0; i < len(perm); {
			j := i + 1 + r.Intn(5)
			var g exactSum
			for ; i < j && i < len(perm); i++ {
				g.add(xs[perm[i]])
			}
			// through the store's encoding, as a history reads it
			p, err := decodePartial((&partial{n: 1, sum: g}).encode())
			if err != nil {
				t.Fatal(err)
			}
			grouped.addSum(&p.sum)
		}
		if got := one.float64(); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("trial %d: one at a time %v, exact %v", trial, got, want)
		}
		if got := grouped.float64(); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("trial %d: grouped %v, exact %v", trial, got, want)
		}
		if naive != want {
			differs++
		}
	}
	if differs == 0 {
		t.Fatal("plain float addition never differed from the exact sum: the test cannot tell them apart")
	}
}

// TestPartialsAddUpAsValues: a scorer's aggregate over runs is the same from
// its values one at a time and from each run's partial, for every
// aggregation, and a partial survives its encoding.
func TestPartialsAddUpAsValues(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	m := &model.Methodology{Key: "id", Function: "value"}
	f, err := Compile(m)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := f.Bind(map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	for trial := 0; trial < 200; trial++ {
		for _, kind := range []string{"mean", "max", "min", ""} {
			s := &model.RiskScorer{Metric: "m", Aggregation: kind}
			whole, merged := newAggregator(kind), newAggregator(kind)
			for run := 0; run < 1+r.Intn(6); run++ {
				var vals []Value
				for _, x := range randomFloats(r, r.Intn(8), false) {
					vals = append(vals, Value{Value: x})
				}
				ref := RunRef{EvaluationKey: "e", ID: "r"}
				if _, err := evalValues(s, ev, ref, vals, whole, nil); err != nil {
					t.Fatal(err)
				}
				p, err := decodePartial(partialOf(s, ev, ref, vals).encode())
				if err != nil {
					t.Fatal(err)
				}
				merged.merge(p)
			}
			a, aok := whole.score()
			b, bok := merged.score()
			if aok != bok || math.Float64bits(a) != math.Float64bits(b) || whole.n != merged.n || whole.value() != merged.value() {
				t.Fatalf("trial %d %q: from values %v (%d, %v), from partials %v (%d, %v)", trial, kind, a, whole.n, whole.value(), b, merged.n, merged.value())
			}
		}
	}
}

// TestPartialErrors: a run on which the function fails keeps the error,
// and malformed data is refused, not read as a partial.
func TestPartialErrors(t *testing.T) {
	m := &model.Methodology{Key: "inv", Function: "1 / value"}
	f, err := Compile(m)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := f.Bind(map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	s := &model.RiskScorer{Metric: "m"}
	p := partialOf(s, ev, RunRef{}, []Value{{Value: 2}, {Value: 0}})
	got, err := decodePartial(p.encode())
	if err != nil || got.err == "" || got.err != p.err {
		t.Fatalf("error partial: %+v, %v", got, err)
	}
	for _, b := range [][]byte{nil, {9, 1}, {0, 1, 1}, {0, 1}, {2, 5, 'a'}} {
		if _, err := decodePartial(b); err == nil {
			t.Errorf("decodePartial(%v) accepted", b)
		}
	}
}

// TestSignatureSeesWhatPartialsDependOn: changing anything a run's partial
// depends on changes the signature; what it does not depend on does not.
func TestSignatureSeesWhatPartialsDependOn(t *testing.T) {
	m := perfMethodology()
	base := &model.RiskScorer{Key: "a", Metric: "acc", RiskScoringMethodologyKey: m.Key, Aggregation: "mean"}
	params := map[string]any{"impact": 5.0}
	sig := Signature(m, params, base)
	same := *base
	same.Key, same.Aggregation, same.Scope.EvaluationKeys, same.Scope.AllLatest = "b", "max", []string{"e"}, true
	if Signature(m, params, &same) != sig {
		t.Error("the scorer's key, aggregation or evaluation keys changed the signature")
	}
	m2 := *m
	m2.Function += " + 0"
	changed := map[string]string{
		"function": Signature(&m2, params, base),
		"params":   Signature(m, map[string]any{"impact": 6.0}, base),
	}
	s := *base
	s.Metric = "f1"
	changed["metric"] = Signature(m, params, &s)
	s = *base
	s.Scope.TaskSpecificationKeys = []string{}
	changed["empty task filter"] = Signature(m, params, &s)
	s.Scope.TaskSpecificationKeys = []string{"t"}
	changed["task filter"] = Signature(m, params, &s)
	s = *base
	s.Scope.ScorerKeys = []string{"k"}
	changed["scorer filter"] = Signature(m, params, &s)
	for what, got := range changed {
		if got == sig {
			t.Errorf("changing the %s kept the signature", what)
		}
	}
}

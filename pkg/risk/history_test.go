package risk

import (
	"fmt"
	"math"
	"math/big"
	"math/rand"
	"slices"
	"sort"
	"testing"

	"github.com/lfcli/lf/pkg/model"
)

// TestWalkIsEveryMomentAddedUpAgain: the walk keeps a running sum of the
// latest runs' partials (a new run's partial added, the one it replaces
// taken away); each moment must equal adding up the latest partials from
// scratch in the order Score takes them: the first failing run's error, or
// the runs that gave values with their count, minimum, maximum and the
// exact sum rounded once. Random timelines with runs replaced many times,
// runs at the same moment, failing runs, sums beyond float64 parts (wide),
// and scopes listing a key twice.
func TestWalkIsEveryMomentAddedUpAgain(t *testing.T) {
	r := rand.New(rand.NewSource(29))
	inv, err := Compile(&model.Methodology{Key: "inv", Function: "1 / value"})
	if err != nil {
		t.Fatal(err)
	}
	ev, err := inv.Bind(map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	keys := []string{"e1", "e2", "e3", "e4", "e5"}
	scopes := []struct {
		every bool
		keys  []string
	}{{every: true}, {keys: []string{"e2", "e1", "e2"}}, {keys: []string{"e3"}}, {keys: []string{"e5", "e4", "e1", "e3"}}}
	failed, wide := 0, 0
	for trial := 0; trial < 60; trial++ {
		var runs []TimedRun
		parts := map[RunRef]*partial{}
		for i := 0; i < 5+r.Intn(80); i++ {
			run := RunRef{EvaluationKey: keys[r.Intn(len(keys))], ID: fmt.Sprintf("r%03d", i)}
			var vals []Value
			for _, x := range randomFloats(r, r.Intn(5), trial%3 == 0) {
				v := 1 / x // the function gives x back
				if r.Intn(25) == 0 {
					v = 0 // 1 / 0 fails: the run's partial is an error
				}
				vals = append(vals, Value{Value: v})
			}
			p, err := decodePartial(partialOf(&model.RiskScorer{Metric: "m"}, ev, run, vals).encode())
			if err != nil {
				t.Fatal(err)
			}
			parts[run] = p
			runs = append(runs, TimedRun{RunRef: run, CreatedAt: fmt.Sprintf("2026-01-%02dT00:00:00Z", 1+r.Intn(20))})
		}
		sortTimeline(runs)
		for _, sc := range scopes {
			s := &model.RiskScorer{Metric: "m", Scope: model.Scope{AllLatest: sc.every, EvaluationKeys: sc.keys}}
			var inScope []TimedRun
			for _, run := range runs {
				if sc.every || slices.Contains(sc.keys, run.EvaluationKey) {
					inScope = append(inScope, run)
				}
			}
			got := (*scoring)(nil).states(s, inScope, sc.every, false, parts)
			want := walkFromScratch(inScope, sc.every, sc.keys, parts)
			if len(got) != len(want) {
				t.Fatalf("trial %d %v: %d moments, want %d", trial, sc, len(got), len(want))
			}
			for i := range want {
				g, w := got[i], want[i]
				if g.at != w.at || g.err != w.err || g.n != w.n || !slices.Equal(g.runs, w.runs) ||
					math.Float64bits(g.sum) != math.Float64bits(w.sum) ||
					math.Float64bits(g.min) != math.Float64bits(w.min) || math.Float64bits(g.max) != math.Float64bits(w.max) {
					t.Fatalf("trial %d %v, moment %d:\n got %+v\nwant %+v", trial, sc, i, g, w)
				}
				if w.err != "" {
					failed++
				}
				if math.Abs(w.sum) > bigLimit {
					wide++
				}
			}
		}
	}
	if failed == 0 || wide == 0 {
		t.Fatalf("moments with an error: %d, with a sum beyond float64 parts: %d; the test needs both", failed, wide)
	}
}

// walkFromScratch adds up, at each moment, every latest partial again.
func walkFromScratch(runs []TimedRun, every bool, keys []string, parts map[RunRef]*partial) []pointState {
	latest := map[string]RunRef{}
	var out []pointState
	for i := 0; i < len(runs); {
		st := pointState{at: runs[i].CreatedAt, runs: []RunRef{}}
		for ; i < len(runs) && runs[i].CreatedAt == st.at; i++ {
			latest[runs[i].EvaluationKey] = runs[i].RunRef
		}
		order := keys
		if every {
			order = nil
			for k := range latest {
				order = append(order, k)
			}
			sort.Strings(order)
		}
		exact := new(big.Float).SetPrec(wideBits)
		for _, k := range order {
			run, ok := latest[k]
			if !ok {
				continue
			}
			p := parts[run]
			if p.err != "" {
				st = pointState{at: st.at, runs: []RunRef{}, err: p.err}
				break
			}
			if p.n == 0 {
				continue
			}
			if st.n == 0 {
				st.min, st.max = p.min, p.max
			} else {
				st.min, st.max = math.Min(st.min, p.min), math.Max(st.max, p.max)
			}
			st.n += p.n
			exact.Add(exact, p.sum.exact())
			st.runs = append(st.runs, run)
		}
		if st.err == "" && st.n > 0 {
			st.sum, _ = exact.Float64()
		}
		sortRuns(st.runs)
		out = append(out, st)
	}
	return out
}

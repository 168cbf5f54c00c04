package project_test

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lfcli/lf/pkg/model"
	"github.com/lfcli/lf/pkg/project"
	"github.com/lfcli/lf/pkg/risk"
	"github.com/lfcli/lf/pkg/store"
)

// keptPartials counts the partials the store keeps for the scorers of h.
func keptPartials(t *testing.T, st *store.Store, h history) int {
	t.Helper()
	ms := map[string]*model.Methodology{}
	for _, m := range h.methodologies {
		ms[m.Key] = m
	}
	n := 0
	seen := map[string]bool{}
	for _, s := range h.scorers {
		m := ms[s.RiskScoringMethodologyKey]
		params, _ := risk.Params(m, s.Config)
		sig := risk.Signature(m, params, s)
		if seen[sig] {
			continue
		}
		seen[sig] = true
		got, err := st.RiskPartials(context.Background(), sig, nil)
		if err != nil {
			t.Fatal(err)
		}
		n += len(got)
	}
	return n
}

// TestHistoryFromKeptPartials: a history read from the partials an earlier
// history kept is the same, and still the overview as of each point, after
// runs are added out of time order, runs are replaced with other values,
// and scorers and methodologies are edited.
func TestHistoryFromKeptPartials(t *testing.T) {
	ctx := context.Background()
	for name, opener := range backends() {
		t.Run(name, func(t *testing.T) {
			fresh := opener(t)
			for seed := int64(1); seed <= 3; seed++ {
				r := rand.New(rand.NewSource(500 + seed))
				h := randomHistory(r, 60)
				for i := range h.runs { // one run per id: the runs replaced are the ones replaced below
					h.runs[i].ID = fmt.Sprintf("u%03d", i)
				}
				st := fresh()
				early := h
				early.runs = nil
				for i := range h.runs {
					if i%2 == 0 {
						early.runs = append(early.runs, h.runs[i])
					}
				}
				early.write(t, st, nil)
				first := histories(t, st)
				checkHistories(t, st, early, first)
				if keptPartials(t, st, early) == 0 {
					t.Fatal("the first history kept no partial")
				}
				if again := histories(t, st); jsonOf(t, again) != jsonOf(t, first) {
					t.Fatalf("a history from kept partials differs:\n%s\nwant\n%s", jsonOf(t, again), jsonOf(t, first))
				}

				// The other runs, out of time order; then some runs again
				// with other values (same key and id).
				for i := range h.runs {
					if i%2 == 1 {
						if err := st.RecordRun(ctx, h.runs[i]); err != nil {
							t.Fatal(err)
						}
					}
				}
				histories(t, st)
				for i := 0; i < len(h.runs); i += 3 {
					run := &h.runs[i]
					for j := range run.Results {
						for m, v := range run.Results[j].Metrics {
							run.Results[j].Metrics[m] = 1 - v/2
						}
					}
					if err := st.RecordRun(ctx, *run); err != nil {
						t.Fatal(err)
					}
				}
				checkHistories(t, st, h, histories(t, st))

				// Edited scorers and methodologies.
				for _, s := range h.scorers {
					switch r.Intn(3) {
					case 0:
						if s.RiskScoringMethodologyKey == "lin" {
							s.Config = map[string]any{"impact": float64(r.Intn(10) + 1)}
						}
					case 1:
						s.Scope.TaskSpecificationKeys = maybeList(r, "t1", "t2")
					}
				}
				h.methodologies[2].Function = "9 if value < 0.5 else 0.5"
				entities := h
				entities.runs = nil
				entities.write(t, st, nil)
				checkHistories(t, st, h, histories(t, st))
			}
		})
	}
}

func histories(t *testing.T, st *store.Store) []risk.History {
	t.Helper()
	hs, err := project.Histories(context.Background(), st, project.OverviewFilter{})
	if err != nil {
		t.Fatal(err)
	}
	return hs
}

// TestAddKeepsRunPartials: runs written through Upsert (lf add) get their
// partials for the stored scorers at once, and the history read from them
// is the one computed from the values.
func TestAddKeepsRunPartials(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	ents := `risk_scoring_methodologies:
  - {key: lin, display_name: Lin, function: value * 2}
risk_scorers:
  - {key: q, display_name: Q, domain: d, risk_scoring_methodology_key: lin, scope: {evaluation_keys: [ev]}, metric: m, aggregation: mean}
  - {key: other, display_name: O, domain: d, risk_scoring_methodology_key: lin, scope: {evaluation_keys: [nope]}, metric: m, aggregation: mean}
`
	// A file of runs over 1 MiB (a run of 16,000 results) is read one run
	// at a time, as large files are.
	var runs strings.Builder
	runs.WriteString(`evaluation_runs:
  - evaluation_key: ev
    id: r1
    created_at: "2026-11-01T00:00:00Z"
    status: completed
    results:
      - {task_specification_key: t, scorer_key: s, metrics: {m: 0.1}}
      - {task_specification_key: u, scorer_key: s, metrics: {m: 0.2}}
  - evaluation_key: ev
    id: r2
    created_at: "2026-11-02T00:00:00Z"
    status: failed
    results:
      - {task_specification_key: t, scorer_key: s, metrics: {m: 0.9}}
  - evaluation_key: ev
    id: r0
    created_at: "2026-10-01T00:00:00Z"
    status: completed
    results:
`)
	for i := 0; i < 16000; i++ {
		fmt.Fprintf(&runs, "      - {task_specification_key: t%05d, scorer_key: s, metrics: {z: 0.5}}\n", i)
	}
	for name, text := range map[string]string{"ents.yaml": ents, "runs.yaml": runs.String()} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, diags := project.LoadEntityFiles(dir, []string{filepath.Join(dir, "ents.yaml"), filepath.Join(dir, "runs.yaml")}, nil, nil)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	st := openStore(t, filepath.Join(t.TempDir(), "lf.db"))
	if _, err := project.Upsert(ctx, st, b); err != nil {
		t.Fatal(err)
	}
	ms, err := st.Methodologies(ctx)
	if err != nil {
		t.Fatal(err)
	}
	scorers, err := st.RiskScorers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	params, _ := risk.Params(ms["lin"], nil)
	kept, err := st.RiskPartials(ctx, risk.Signature(ms["lin"], params, scorers[0]), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(kept) != 2 || kept[model.RunRef{EvaluationKey: "ev", ID: "r1"}] == nil || kept[model.RunRef{EvaluationKey: "ev", ID: "r0"}] == nil {
		t.Fatalf("kept partials after lf add: %d, want the completed runs' only", len(kept))
	}
	hs := histories(t, st)
	if len(hs) != 2 || len(hs[1].Points) != 2 || hs[1].Points[0].Level != risk.NoData || hs[1].Points[1].Values != 2 || *hs[1].Points[1].Score != 0.3 {
		t.Fatalf("history from kept partials: %s", jsonOf(t, hs))
	}
}

// TestOneScorersHistoryIsItsPartOfAll: the history of scorers named one or
// two at a time (which read only their own keys' kept partials, or compute
// them) is their part of every scorer's history, before and after partials
// are kept, with a scope listing a key twice.
func TestOneScorersHistoryIsItsPartOfAll(t *testing.T) {
	ctx := context.Background()
	for name, opener := range backends() {
		t.Run(name, func(t *testing.T) {
			fresh := opener(t)
			h := randomHistory(rand.New(rand.NewSource(77)), 50)
			h.scorers[1].Scope = model.Scope{EvaluationKeys: []string{"e2", "e1", "e2"}}
			st := fresh()
			h.write(t, st, nil)
			byKey := func(hs []risk.History) map[string]string {
				out := map[string]string{}
				for _, sh := range hs {
					out[sh.Key] = jsonOf(t, sh)
				}
				return out
			}
			// Named first: nothing is kept yet, each computes and keeps its own.
			named := map[string]string{}
			for i, s := range h.scorers {
				keys := []string{s.Key}
				if i%3 == 0 && i+1 < len(h.scorers) {
					keys = append(keys, h.scorers[i+1].Key)
				}
				hs, err := project.Histories(ctx, st, project.OverviewFilter{Keys: keys})
				if err != nil {
					t.Fatal(err)
				}
				for k, v := range byKey(hs) {
					named[k] = v
				}
			}
			all := byKey(histories(t, st))
			for k, want := range all {
				if named[k] != want {
					t.Fatalf("%s named alone:\n%s\namong all:\n%s", k, named[k], want)
				}
			}
			// Named again: now from kept partials.
			for _, s := range h.scorers {
				hs, err := project.Histories(ctx, st, project.OverviewFilter{Keys: []string{s.Key}})
				if err != nil {
					t.Fatal(err)
				}
				if got := jsonOf(t, hs[0]); got != all[s.Key] {
					t.Fatalf("%s from kept partials:\n%s\namong all:\n%s", s.Key, got, all[s.Key])
				}
			}
		})
	}
}

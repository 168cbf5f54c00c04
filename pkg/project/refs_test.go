package project_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/model"
	"github.com/lfcli/lf/pkg/project"
	"github.com/lfcli/lf/pkg/store"
	"github.com/lfcli/lf/pkg/store/postgres/pgtest"
)

func methodologyYAML(keys ...string) string {
	var b strings.Builder
	b.WriteString("risk_scoring_methodologies:\n")
	for _, k := range keys {
		fmt.Fprintf(&b, "  - {key: %s, display_name: %s, function: value}\n", k, k)
	}
	return b.String()
}

func scorerYAML(key, methodology string) string {
	return fmt.Sprintf("risk_scorers:\n  - {key: %s, display_name: S, domain: d, risk_scoring_methodology_key: %s, scope: {evaluation_keys: [e]}, metric: value, aggregation: mean}\n", key, methodology)
}

func load(t *testing.T, st *store.Store, yaml string) *project.Batch {
	t.Helper()
	b, _, err := project.LoadChecked(context.Background(), t.TempDir(), []string{"-"}, strings.NewReader(yaml), st, nil)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	return b
}

// brokenRefs lists the stored risk scorers whose methodology is not stored.
func brokenRefs(t *testing.T, st *store.Store) []string {
	t.Helper()
	ms, err := st.Methodologies(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ss, err := st.RiskScorers(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range ss {
		if ms[s.RiskScoringMethodologyKey] == nil {
			out = append(out, s.Key+" -> "+s.RiskScoringMethodologyKey)
		}
	}
	return out
}

func openApp(t *testing.T, path string) *store.Store {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	app, err := st.UseApp(ctx, "refs")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { app.Close() })
	return app
}

// wantInvalidOrNil fails unless err is nil or an invalid-input refusal.
func wantInvalidOrNil(t *testing.T, what string, err error) bool {
	t.Helper()
	if err != nil && diag.ExitCode(err) != diag.ExitInvalid {
		t.Fatalf("%s: %v (exit %d), want success or exit 3", what, err, diag.ExitCode(err))
	}
	return err == nil
}

// TestRefsCheckedInsideTheWrite: a risk scorer checked against the store
// as it was when its file was loaded is refused when, before it is written,
// another writer deleted its methodology; and `lf set` of methodologies and
// `lf add` of a risk scorer run at the same time never leave a risk scorer
// pointing at a deleted methodology.
func TestRefsCheckedInsideTheWrite(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) { refsRace(t, filepath.Join(t.TempDir(), "lf.db")) })
	t.Run("postgres", func(t *testing.T) { refsRace(t, pgtest.New(t)) })
}

// refsRace runs the test on the store at url through two handles, as two
// processes would.
func refsRace(t *testing.T, url string) {
	ctx := context.Background()
	setter, adder := openApp(t, url), openApp(t, url)
	if _, err := project.Upsert(ctx, setter, load(t, setter, methodologyYAML("base", "m0"))); err != nil {
		t.Fatal(err)
	}

	// Deterministic: the scorer's file is checked while m0 exists, m0 is
	// deleted, then the scorer is written.
	scorer := load(t, adder, scorerYAML("s0", "m0"))
	if _, err := project.Replace(ctx, setter, model.KindMethodology, load(t, setter, methodologyYAML("base")), false); err != nil {
		t.Fatal(err)
	}
	_, err := project.Upsert(ctx, adder, scorer)
	if diag.ExitCode(err) != diag.ExitInvalid || !strings.Contains(fmt.Sprint(err.(*diag.Error).Diags), `risk scoring methodology "m0" is not in the store`) {
		t.Fatalf("scorer using a methodology deleted since its check: %v, want exit 3 naming m0", err)
	}
	if bad := brokenRefs(t, setter); len(bad) > 0 {
		t.Fatalf("broken references: %v", bad)
	}

	// Concurrent: each round stores m<i>, then at once replaces the
	// methodologies by base alone and adds s<i> using m<i>.
	added, removed := 0, 0
	for i := 1; i <= 30; i++ {
		m, s := fmt.Sprintf("m%d", i), fmt.Sprintf("s%d", i)
		if _, err := project.Upsert(ctx, setter, load(t, setter, methodologyYAML("base", m))); err != nil {
			t.Fatal(err)
		}
		only := load(t, setter, methodologyYAML("base"))
		sc := load(t, adder, scorerYAML(s, m))
		var wg sync.WaitGroup
		var setErr, addErr error
		wg.Add(2)
		go func() { defer wg.Done(); _, setErr = project.Replace(ctx, setter, model.KindMethodology, only, false) }()
		go func() { defer wg.Done(); _, addErr = project.Upsert(ctx, adder, sc) }()
		wg.Wait()
		if wantInvalidOrNil(t, "set", setErr) {
			removed++
		}
		if wantInvalidOrNil(t, "add", addErr) {
			added++
		}
		if bad := brokenRefs(t, setter); len(bad) > 0 {
			t.Fatalf("round %d: broken references: %v (set: %v; add: %v)", i, bad, setErr, addErr)
		}
		if addErr == nil {
			if err := project.Delete(ctx, adder, model.KindRiskScorer, s); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Logf("30 rounds: set won %d, add won %d", removed, added)
}

// TestSetRefusesFilesWithoutTheKind: lf set risk-scorers from a file of
// methodologies only deletes nothing, unless emptying is asked for.
func TestSetRefusesFilesWithoutTheKind(t *testing.T) {
	ctx := context.Background()
	st := openApp(t, filepath.Join(t.TempDir(), "lf.db"))
	if _, err := project.Upsert(ctx, st, load(t, st, methodologyYAML("m")+scorerYAML("s", "m"))); err != nil {
		t.Fatal(err)
	}
	_, err := project.Replace(ctx, st, model.KindRiskScorer, load(t, st, methodologyYAML("m")), false)
	if diag.ExitCode(err) != diag.ExitInvalid || !strings.Contains(err.Error(), "holds no risk-scorers") {
		t.Fatalf("set risk-scorers from methodologies only: %v, want exit 3", err)
	}
	if ss, _ := st.RiskScorers(ctx); len(ss) != 1 {
		t.Fatalf("%d risk scorers left, want 1", len(ss))
	}
	if _, err := project.Replace(ctx, st, model.KindRiskScorer, load(t, st, methodologyYAML("m")), true); err != nil {
		t.Fatal(err)
	}
	if ss, _ := st.RiskScorers(ctx); len(ss) != 0 {
		t.Fatalf("%d risk scorers left after emptying on purpose, want 0", len(ss))
	}
}

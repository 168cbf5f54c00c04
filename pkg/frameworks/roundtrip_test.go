package frameworks

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/lfcli/lf/pkg/model"
	"github.com/lfcli/lf/pkg/project"
	"github.com/lfcli/lf/pkg/store"
)

// storeAndExport adds the frameworks files (their data) to a new store in
// one command, with a risk scorer for every risk scorer key and domain they
// name (so that their references lead somewhere), and returns lf export
// frameworks.
func storeAndExport(t *testing.T, data ...[]byte) []byte {
	t.Helper()
	dir := t.TempDir()
	var set Set
	for _, d := range data {
		s, ds := readSet(t.TempDir(), d)
		if ds.HasErrors() {
			t.Fatalf("the file does not load:\n%s\n%s", ds, d)
		}
		set = append(set, s...)
	}
	keys, domains := map[string]bool{}, map[string]bool{"fixture": true}
	for _, l := range set {
		for _, q := range l.Requirements {
			for _, k := range q.Evidence.RiskScorers {
				keys[k] = true
			}
			for _, d := range q.Evidence.Domains {
				domains[d] = true
			}
		}
	}
	var sc strings.Builder
	sc.WriteString("risk_scoring_methodologies:\n  - {key: m, display_name: M, function: value}\nrisk_scorers:\n")
	i := 0
	add := func(key, domain string) {
		fmt.Fprintf(&sc, "  - {key: %q, display_name: S, domain: %q, risk_scoring_methodology_key: m, scope: all_latest, metric: v, aggregation: mean}\n", key, domain)
		i++
	}
	for _, k := range sortedSet(keys) {
		add(k, "fixture")
	}
	for _, d := range sortedSet(domains) {
		add(fmt.Sprintf("fixture_%d", i), d)
	}
	files := []string{filepath.Join(dir, "scorers.yaml")}
	if err := os.WriteFile(files[0], []byte(sc.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for i, d := range data {
		files = append(files, filepath.Join(dir, fmt.Sprintf("frameworks%d.yaml", i)))
		if err := os.WriteFile(files[i+1], d, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, ds := project.LoadEntityFiles(dir, files, nil, nil)
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	if ds := b.Check(nil); ds.HasErrors() {
		t.Fatal(ds)
	}
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(dir, "lf.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := project.Upsert(ctx, st, b); err != nil {
		t.Fatal(err)
	}
	out, err := project.Export(ctx, st, model.KindFramework)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sortedSet(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestBundledFrameworksRoundTrip: the files of examples/frameworks
// validate and, added together (their same_as links cross files), export
// as themselves byte for byte: lf export frameworks writes each file's
// framework as the file has it (the files are canonical YAML).
func TestBundledFrameworksRoundTrip(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "examples", "frameworks", "*.yaml"))
	var data [][]byte
	want := "frameworks:\n"
	for _, p := range files {
		if filepath.Base(p) == project.MarkerFile {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		data = append(data, b)
		body, ok := strings.CutPrefix(string(b), "frameworks:\n")
		if !ok {
			t.Fatalf("%s: does not start with frameworks:", p)
		}
		want += body // the files are named in the order of their keys
	}
	if len(data) < 3 {
		t.Fatalf("%d bundled frameworks files, want the three (OWASP, EU AI Act, NIST AI RMF)", len(data))
	}
	if got := storeAndExport(t, data...); string(got) != want {
		t.Errorf("lf add then lf export frameworks differs from the files:\n%s", got)
	}
}

// TestGeneratedFrameworksRoundTrip: random frameworks, given as JSON (not
// canonical), export as canonical YAML that adds back to the same bytes and
// the same frameworks.
func TestGeneratedFrameworksRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewSource(28))
	for i := 0; i < 8; i++ {
		fws := randomFrameworks(rng)
		in, err := json.Marshal(map[string]any{"frameworks": fws})
		if err != nil {
			t.Fatal(err)
		}
		first := storeAndExport(t, in)
		if again := storeAndExport(t, first); !bytes.Equal(again, first) {
			t.Fatalf("case %d: export, add, export differs:\n%s\n---\n%s", i, first, again)
		}
		back := parseSet(t, string(first))
		got := make([]model.Framework, len(back))
		for j := range back {
			got[j] = back[j].Framework
		}
		sort.Slice(fws, func(a, b int) bool { return fws[a].Key < fws[b].Key })
		if !reflect.DeepEqual(got, fws) {
			t.Fatalf("case %d: frameworks changed on the way:\n%+v\nwant\n%+v\nfrom\n%s", i, got, fws, first)
		}
	}
}

// randomFrameworks makes frameworks with every field, optional ones at
// random, texts that need quoting in YAML, and same_as links among them.
func randomFrameworks(rng *rand.Rand) []model.Framework {
	texts := []string{"plain", "with: colon", "- dash first", "#hash", "two\nlines\n", "quote's \"both\"", "  lead space", "yes", "1.5", "ünïcode ✓", "tab\there"}
	levels := []string{"low", "medium", "high", "critical"}
	pick := func() string { return texts[rng.Intn(len(texts))] }
	n := 1 + rng.Intn(3)
	fws := make([]model.Framework, n)
	for i := range fws {
		f := model.Framework{Key: fmt.Sprintf("fw-%d.%c", i, 'a'+rng.Intn(26)), Name: pick()}
		if rng.Intn(2) == 0 {
			f.Source = "https://example.org/" + f.Key
		}
		if rng.Intn(2) == 0 {
			f.Description = pick()
		}
		for j := 0; j < 1+rng.Intn(4); j++ {
			q := model.Requirement{Key: fmt.Sprintf("R_%d", j), Title: pick(), MetAt: levels[rng.Intn(len(levels))]}
			if rng.Intn(2) == 0 {
				q.Description = pick()
			}
			if rng.Intn(3) > 0 {
				q.Evidence.RiskScorers = []string{fmt.Sprintf("scorer_%d", rng.Intn(5))}
			}
			if q.Evidence.RiskScorers == nil || rng.Intn(2) == 0 {
				q.Evidence.Domains = []string{pick(), "domain two"}[:1+rng.Intn(2)]
			}
			f.Requirements = append(f.Requirements, q)
		}
		fws[i] = f
	}
	for i := 1; i < n; i++ { // link each to the first's first requirement
		if rng.Intn(2) == 0 {
			fws[i].Requirements[0].SameAs = []string{fws[0].Key + "/" + fws[0].Requirements[0].Key}
		}
	}
	return fws
}

package frameworks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/model"
	"github.com/lfcli/lf/pkg/project"
	"github.com/lfcli/lf/pkg/risk"
)

// parseSet reads data as the file f.yaml (in a temporary folder) the way
// lf reads entity files, and returns its frameworks.
func parseSet(t testing.TB, data string) Set {
	t.Helper()
	s, ds := readSet(t.TempDir(), []byte(data))
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	return s
}

func readSet(dir string, data []byte) (Set, diag.List) {
	p := filepath.Join(dir, "f.yaml")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		return nil, diag.List{{Msg: err.Error()}}
	}
	b, ds := project.LoadEntityFiles(dir, []string{p}, nil, nil)
	if ds.HasErrors() {
		return nil, ds
	}
	b.Only(model.KindFramework)
	if ds = b.Check(nil); ds.HasErrors() {
		return nil, ds
	}
	return FromEntities(b.Entities), nil
}

func scored(key, domain string, level risk.Level) risk.Result {
	return risk.Result{Key: key, Domain: domain, Level: level}
}

const testFile = `frameworks:
  - key: a
    name: A
    requirements:
      - {key: r1, title: T, evidence: {risk_scorers: [low1]}}
      - {key: r2, title: T, evidence: {risk_scorers: [low1, high1]}}
      - {key: r3, title: T, evidence: {domains: [d2]}}
      - {key: r4, title: T, evidence: {risk_scorers: [none1]}}
      - {key: r5, title: T, evidence: {risk_scorers: [high1]}, met_at: high}
      - {key: r6, title: T, evidence: {risk_scorers: [err1]}, met_at: critical}
      - {key: r7, title: T, evidence: {risk_scorers: [none1]}, same_as: [b/s1]}
  - key: b
    name: B
    requirements:
      - {key: s1, title: T, evidence: {risk_scorers: [none1]}, same_as: [a/r1]}
`

func TestStatuses(t *testing.T) {
	s := parseSet(t, testFile)
	res := []risk.Result{
		scored("low1", "d1", risk.Low), scored("high1", "d2", risk.High),
		scored("none1", "d1", risk.NoData), scored("err1", "d3", risk.Failed),
	}
	if ds := s.Check(res); len(ds) > 0 {
		t.Fatal(ds)
	}
	out, err := s.Evaluate("", res)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Status{
		"a/r1": Met, "a/r2": Partial, "a/r3": Gap, "a/r4": NoData, "a/r5": Met,
		"a/r6": Gap, "a/r7": Met, "b/s1": Met,
	}
	for _, f := range out {
		for _, r := range f.Requirements {
			if got := r.Status; got != want[f.Key+"/"+r.Key] {
				t.Errorf("%s/%s: %s, want %s (evidence %s)", f.Key, r.Key, got, want[f.Key+"/"+r.Key], evidenceText(r.Evidence))
			}
		}
	}
	if out[0].Status != Gap || out[1].Status != Met {
		t.Errorf("framework statuses %s, %s; want gap, met", out[0].Status, out[1].Status)
	}
}

func TestGate(t *testing.T) {
	rs := func(st ...Status) []Result {
		f := Result{Key: "f"}
		for i, s := range st {
			f.Requirements = append(f.Requirements, RequirementResult{Key: string(rune('a' + i)), Status: s})
		}
		return []Result{f}
	}
	cases := []struct {
		gate Gate
		in   []Result
		fail bool
	}{
		{Gate{On: Gap}, rs(Met, Partial), false},
		{Gate{On: Gap}, rs(Met, Gap), true},
		{Gate{On: Partial}, rs(Met, Partial), true},
		{Gate{On: Gap}, rs(Met, NoData), true},
		{Gate{On: Gap, AllowNoData: true}, rs(Met, NoData), false},
		{Gate{On: Gap, AllowNoData: true}, nil, true}, // nothing to check
		{Gate{}, rs(Gap), false},
	}
	if (Gate{}).Fails(RequirementResult{Status: NoData}) {
		t.Error("no gate: a requirement with no data fails")
	}
	for i, c := range cases {
		if err := c.gate.Check(c.in); (err != nil) != c.fail {
			t.Errorf("case %d: %+v: err %v, want fail %v", i, c.gate, err, c.fail)
		}
	}
}

func TestCheckLocatesMissingNames(t *testing.T) {
	data := "frameworks:\n  - key: a\n    name: A\n    requirements:\n      - {key: r, title: T, evidence: {risk_scorers: [x], domains: [y]}, same_as: [a/r]}\n"
	s := parseSet(t, data)
	ds := s.Check([]risk.Result{scored("k", "d", risk.Low)})
	var got string
	for _, d := range ds {
		got += d.String() + "\n"
	}
	for _, w := range []string{`f.yaml:5:`, `risk scorer "x" not found`, `domain "y"`, `requirement "a/r" not found`} {
		if !strings.Contains(got, w) {
			t.Errorf("missing %q in:\n%s", w, got)
		}
	}
	if _, err := s.Evaluate("nope", nil); err == nil {
		t.Error("--framework nope: no error")
	}
}

package agentleak

import (
	"fmt"
	"strings"
	"testing"
)

// TestEscapedTextsKeepTheirValues: an event text with JSON escapes is
// decoded into a buffer the scanner reuses for the next such event; the
// findings of the earlier events and traces keep their own values.
func TestEscapedTextsKeepTheirValues(t *testing.T) {
	vs, ds := ParseVaults("v.yaml", []byte("vaults:\n  - key: s\n    records:\n      - fields: {ssn: \"123-45-6789\"}\n"))
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	ev := func(id, content string) string {
		return `{"event_id":"` + id + `","channel":"tool_call","content":"` + content + `"}`
	}
	line := func(evs ...string) string {
		return `{"scenario_id":"s","run_id":"r","events":[` + strings.Join(evs, ",") + "]}\n"
	}
	in := line(ev("e1", `ssn: 123-45-6789\nmail \"a@b.co\"`), ev("e2", `zzz-zz-zzzz\n000-00-0000 x@y.zz \\ 987-65-4321`)) +
		line(ev("e3", `\u0041CC-12345\t`))
	rs := scanAll(t, DefaultConfig(), vs, in)
	var got []string
	for _, r := range rs {
		for _, f := range r.Findings {
			got = append(got, f.EventID+" "+f.DataType+" "+f.Value)
		}
	}
	want := []string{
		"e1 ssn 123-45-6789", "e2 ssn 000-00-0000", "e2 ssn 987-65-4321",
		"e1 email a@b.co", "e2 email x@y.zz", "e3 client_identifier ACC-12345",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings\n got %q\nwant %q", got, want)
	}
}

// TestEscapedTextsManyFindings: events with escapes and more findings than
// the per-event list search handles (the seen map takes over) keep every
// value, in the event that found it.
func TestEscapedTextsManyFindings(t *testing.T) {
	var e1, e2 []string
	for i := 0; i < 40; i++ {
		e1 = append(e1, fmt.Sprintf("u%02d@a.co", i))
		e2 = append(e2, fmt.Sprintf("v%02d@b.co", i))
	}
	ev := func(id string, vals []string) string {
		return `{"event_id":"` + id + `","channel":"log","content":"` + strings.Join(vals, `\n`) + `\n` + vals[0] + `"}`
	}
	in := `{"scenario_id":"s","run_id":"r","events":[` + ev("e1", e1) + "," + ev("e2", e2) + "]}\n"
	rs := scanAll(t, DefaultConfig(), nil, in)
	got := map[string]int{}
	for _, f := range rs[0].Findings {
		got[f.EventID+" "+f.Value]++
	}
	for i := range e1 {
		if got["e1 "+e1[i]] != 1 || got["e2 "+e2[i]] != 1 {
			t.Fatalf("finding %d: %v", i, got)
		}
	}
	if len(rs[0].Findings) != 80 {
		t.Errorf("%d findings, want 80", len(rs[0].Findings))
	}
}

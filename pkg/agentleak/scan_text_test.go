package agentleak

import (
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

package agentrisk

import (
	"os"
	"strings"
	"testing"

	"github.com/lfcli/lf/pkg/internal/fuzzcheck"
)

func TestParseEventsJSONLAndArrayAgree(t *testing.T) {
	lines := `{"timestamp":"2026-04-16T10:00:00Z","tenant_id":"t","agent_id":"a","tool":"read_file","injection_score":0.5}

{"timestamp":"2026-04-16T11:00:00+02:00","tenant_id":"t","agent_id":"a","decision":"deny","rule":"r1","extra":1}
`
	arr := "[" + strings.Join(strings.Fields(strings.ReplaceAll(lines, "}\n", "},")), "") + "]"
	arr = strings.Replace(arr, "},]", "}]", 1)
	a, d1 := ParseEvents("l", strings.NewReader(lines))
	b, d2 := ParseEvents("a", strings.NewReader(arr))
	if d1.HasErrors() || d2.HasErrors() || len(a) != 2 || len(b) != 2 {
		t.Fatalf("%v %v %d %d", d1, d2, len(a), len(b))
	}
	for i := range a {
		if string(eventHash(&a[i])) != string(eventHash(&b[i])) {
			t.Errorf("event %d hashes differ between JSONL and array", i)
		}
	}
	if a[1].Timestamp.Hour() != 9 || a[0].Decision != "allow" {
		t.Errorf("normalisation: %+v", a)
	}
}

func TestParseEventsLocatesEveryProblem(t *testing.T) {
	in := `{"timestamp":"2026-04-16T10:00:00Z","tenant_id":"t","agent_id":"a"}
{"timestamp":"2026-04-16T10:00:00Z","tenant_id":"t","agent_id":"a","high_impact":"yes"}
not json
["x"]
{"tenant_id":"t","agent_id":"a","injection_score":-1}
`
	evs, d := ParseEvents("e.jsonl", strings.NewReader(in))
	if evs != nil {
		t.Errorf("events returned despite errors")
	}
	var got []string
	for _, x := range d {
		got = append(got, x.String())
	}
	s := strings.Join(got, "\n")
	for _, want := range []string{
		"e.jsonl:2: /high_impact: expected bool",
		"e.jsonl:3: invalid JSON",
		"e.jsonl:4: expected one JSON object per line",
		"e.jsonl:5: /timestamp: missing timestamp",
		"e.jsonl:5: /injection_score: injection_score must lie within 0..1",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("missing %q in\n%s", want, s)
		}
	}
}

func FuzzParseEvents(f *testing.F) {
	if b, err := os.ReadFile(sampleEvents); err == nil {
		f.Add(b[:min(len(b), 2000)])
	}
	f.Add([]byte(`[{"timestamp":"2026-04-16T10:00:00Z","tenant_id":"t","agent_id":"a"}]`))
	f.Add([]byte("{\"timestamp\": 1}\n\n[1,2]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzcheck.Bounded(t, len(data), func() {
			evs, d := ParseEvents("f", strings.NewReader(string(data)))
			if d.HasErrors() && evs != nil {
				t.Fatal("events and errors")
			}
			for _, e := range evs {
				if e.TenantID == "" || e.AgentID == "" || e.Timestamp.IsZero() {
					t.Fatalf("invalid event accepted: %+v", e)
				}
			}
		})
	})
}

func FuzzDecodeAgg(f *testing.F) {
	a := newAgg()
	m := a.merger()
	for _, e := range genSampleEvents()[:200] {
		m.add(&e)
	}
	m.finish()
	f.Add(a.encode())
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = decodeAgg(data, true) // must not panic
	})
}

package agentleak

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/lfcli/lf/pkg/internal/testfiles"
	"github.com/lfcli/lf/pkg/otelspans"
)

// TestTraceForScanScansAsTraceFromEvents: a trace made only to be scanned
// (texts not quoted into JSON) gives the scan result of the trace
// TraceFromEvents makes, over the repository's span file with its vaults
// and config, the OpenTelemetry conformance packs when present, and
// contents that are empty, escaped, or not valid UTF-8.
func TestTraceForScanScansAsTraceFromEvents(t *testing.T) {
	root := filepath.Join("..", "..", "project", "agentleak")
	vdata, err := os.ReadFile(filepath.Join(root, "vaults.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	vs, dl := ParseVaults("vaults.yaml", vdata)
	if dl.HasErrors() {
		t.Fatal(dl.Errors())
	}
	cdata, err := os.ReadFile(filepath.Join(root, "agentleak.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	cfg, dl, err := ParseConfig("agentleak.yaml", cdata)
	if err != nil || dl.HasErrors() {
		t.Fatal(err, dl)
	}
	traces := demoAndPackSpans(t)
	odd := &otelspans.Trace{RunID: "odd", ScenarioID: traces[0].ScenarioID, Spans: traces[0].Spans}
	oddEvents := []otelspans.LeakEvent{
		{EventID: "evt_001", Channel: "user_input", Source: "user", Target: "a", Content: "my email is ada@example.com \"quoted\"\n"},
		{EventID: "evt_002", Channel: "tool_call", Source: "a", Target: "t", Content: ""},
		{EventID: "evt_003", Channel: "tool_response", Source: "t", Target: "a", Content: "bad \xff utf-8 ada@example.com"},
		{EventID: "evt_004", Channel: "final_output", Source: "a", Target: "user", Content: "call 555-0100, SSN 123-45-6789"},
	}
	n := 0
	for _, c := range []*Config{nil, cfg} {
		for _, v := range []*Vaults{nil, vs} {
			full, scan := NewScanner(c, v), NewScanner(c, v)
			for i := 0; i <= len(traces); i++ {
				st, evs := odd, oddEvents
				if i < len(traces) {
					st = traces[i]
					evs = otelspans.LeakEvents(st, otelspans.MappingLF)
				}
				want, err := full.Scan(TraceFromEvents(st, evs))
				if err != nil {
					t.Fatal(err)
				}
				got, err := scan.Scan(TraceForScan(st, evs))
				if err != nil {
					t.Fatal(err)
				}
				w, _ := json.Marshal(want)
				g, _ := json.Marshal(got)
				if string(g) != string(w) {
					t.Fatalf("%s: scanned for scan only\n%s\nas TraceFromEvents\n%s", st.RunID, g, w)
				}
				n += len(want.Findings)
			}
		}
	}
	if n == 0 {
		t.Fatal("no findings: the comparison saw nothing")
	}
}

// demoAndPackSpans reads the traces of the demo project's span file and of
// the shared OpenTelemetry conformance packs (when ../shared is there).
func demoAndPackSpans(t *testing.T) []*otelspans.Trace {
	t.Helper()
	files := []string{filepath.Join("..", "..", "project", "agentleak", "spans.otlp.jsonl")}
	packs, _ := filepath.Glob(filepath.Join(testfiles.SharedDir(), "conformance", "agentleak-otel", "*", "spans.otlp.jsonl"))
	var traces []*otelspans.Trace
	for _, f := range append(files, packs...) {
		r, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		ts, err := otelspans.Read(f, r, otelspans.Auto)
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		traces = append(traces, ts...)
	}
	return traces
}

package agentleak

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/lfcli/lf/pkg/internal/fuzzcheck"
)

// FuzzParseConfig: any agentleak.yaml gives a config or errors, never a
// panic, within bounded time and memory; an accepted config scans a trace.
func FuzzParseConfig(f *testing.F) {
	fuzzcheck.AddFiles(f, "examples/agentleak/agentleak.yaml", "project/agentleak/agentleak.yaml",
		"pkg/agentleak/testdata/fuzzseed/agentleak.init.yaml")
	f.Add([]byte("custom_detectors: [{name: x, pattern: 'a(b'}]\n"))
	f.Add([]byte("scoring: {weights: [1, 2, 3, 4], level_overrides: {email: 9}}\nvault: {levels: {L1: 2}}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzcheck.Bounded(t, len(data), func() {
			cfg, ds, err := ParseConfig("f.yaml", data)
			if (err == nil) == ds.HasErrors() {
				t.Fatalf("error %v and diagnostics %v disagree", err, ds)
			}
			if err != nil {
				return
			}
			if cfg == nil {
				t.Fatal("no config and no error")
			}
			tr := &Trace{RunID: "r", ScenarioID: "s", Events: []Event{{EventID: "e", Channel: "final_output", Content: []byte(`"mail alice@example.com"`)}}}
			if _, err := NewScanner(cfg, nil).Scan(tr); err != nil {
				var te *TraceError
				if !errors.As(err, &te) {
					t.Fatalf("scan with an accepted config: %v", err)
				}
			}
		})
	})
}

// FuzzParseVaults: any vaults file gives vaults or errors, never a panic,
// on both the fast path and the YAML path.
func FuzzParseVaults(f *testing.F) {
	fuzzcheck.AddFiles(f, "examples/agentleak/vaults.yaml", "project/agentleak/vaults.yaml",
		"pkg/agentleak/testdata/fuzzseed/agentdojo_exfil.vaults.yaml")
	f.Add([]byte("vaults:\n  - key: s\n    records: [{fields: {ssn: '123-45-6789', x: {value: abcd, level: 9}}}]\n    canaries: {obvious: [CANARY_1]}\n"))
	f.Add([]byte("vaults:\n- key: a\n  canaries:\n    obvious:\n    - X\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzcheck.Bounded(t, len(data), func() {
			vs, ds := ParseVaults("f.yaml", data)
			if vs == nil {
				t.Fatal("nil vaults")
			}
			if ds.HasErrors() {
				return
			}
			tr := &Trace{RunID: "r", ScenarioID: "s", Events: []Event{{EventID: "e", Channel: "final_output", Content: []byte(`"CANARY_1 abcd 123-45-6789"`)}}}
			_, _ = NewScanner(DefaultConfig(), vs).Scan(tr)
		})
	})
}

// FuzzTraces: any trace file (JSONL, one JSON trace, a JSON array) is read
// trace by trace and scanned without a panic; a reader that reports an error
// in whole-document mode stops.
func FuzzTraces(f *testing.F) {
	fuzzcheck.AddGlob(f, "examples/agentleak/traces/*")
	fuzzcheck.AddFiles(f, "pkg/agentleak/testdata/fuzzseed/agentdojo_exfil.head3.jsonl",
		"pkg/agentleak/testdata/fuzzseed/coverage.head5.jsonl")
	f.Add([]byte(`[{"run_id": "a", "events": [{"channel": "tool_input", "content": {"to": "a@b.co"}}]}, {"run_id": "b"}]`))
	f.Add([]byte("{\"run_id\": \"a\",\n \"events\": []}\n"))
	f.Add([]byte("{\"run_id\": \"a\"}\n\n{\"run_id\": 1}\n[1]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzcheck.Bounded(t, len(data), func() {
			sc := NewScanner(DefaultConfig(), nil)
			tr := NewTraceReader("f.jsonl", bytes.NewReader(data))
			for i := 0; i <= len(data); i++ {
				trace, err := tr.Next()
				if err == io.EOF {
					return
				}
				if err != nil {
					var te *TraceError
					if !errors.As(err, &te) {
						t.Fatalf("not a located error: %v", err)
					}
					continue
				}
				if trace == nil {
					t.Fatal("no trace and no error")
				}
				_, _ = sc.Scan(trace)
			}
			t.Fatalf("the reader gave more than %d traces for %d bytes", len(data)+1, len(data))
		})
	})
}

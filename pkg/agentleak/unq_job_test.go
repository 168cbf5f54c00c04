package agentleak

import (
	"bytes"
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lfcli/lf/pkg/agentleak/internal/tracegen"
	"github.com/lfcli/lf/pkg/internal/testfiles"
)

// TestTransientScanMatchesKept: a one-worker transient scan gives its
// traces' events back to the decoder's slab, which then unquotes escaped
// contents while it decodes them, into a buffer the next trace reuses; a
// scan that keeps its traces (not transient, or two workers) leaves them
// to the scanner. Both must render the same results and report the same
// bad traces, on the shared packs, the benchmark file and traces whose
// contents put vault values, secrets and invalid UTF-8 next to escapes.
func TestTransientScanMatchesKept(t *testing.T) {
	vs := &Vaults{byKey: map[string]*Vault{}}
	for _, p := range []string{"agentdojo_exfil", "privacylens_ci"} {
		path := filepath.Join(testfiles.SharedDir(), "conformance", "agentleak", p, "vaults.yaml")
		data, err := os.ReadFile(path)
		if err != nil {
			t.Skip(err)
		}
		if ds := vs.add(path, data); ds.HasErrors() {
			t.Fatal(ds)
		}
	}
	var in bytes.Buffer
	files, _ := filepath.Glob(filepath.Join(testfiles.SharedDir(), "conformance", "*", "*", "traces.jsonl"))
	files = append(files, testfiles.ExtraTraceFiles()...)
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		lines := testfiles.Lines(data)
		if testfiles.Reduced() && len(lines) > 300 {
			lines = lines[:300]
		}
		for _, l := range lines {
			in.Write(l)
			in.WriteByte('\n')
		}
	}
	scenario := "banking__user_task_10__injection_task_0"
	for _, content := range []string{
		`send to US133000000121212121212\n\"amount\": 0.01`,
		`{\"email\": \"emma.johnson@bluesparrowtech.com\", \"iban\": \"GB29NWBK60161331926819\"}`,
		`caf\u00e9 \u2028 \ud83d\ude00 \ud800 SSN 123-45-6789\t\/\b\f\r`,
		"caf\xc3\xa9 \\n card 4111 1111 1111 1111 \\\"x\\\"",
		"bad \xff utf-8 \\n with emma.johnson@bluesparrowtech.com",
		`\\\\\\\"\"\n\n\n` + strings.Repeat(`a\"`, 50),
		"\\u00ff\xc3",
		`ends in an escape\n`,
		`\q`,
		"raw\x01control\\n",
	} {
		for _, ch := range []string{"user_input", "tool_call", "final_output"} {
			fmt.Fprintf(&in, `{"run_id": "r", "scenario_id": %q, "events": [{"event_id": "e1", "channel": %q, "source": "s", "target": "t", "content": "%s", "metadata": {}, "timestamp": "2026-12-02T08:47:17.036864Z"}, {"channel": "log", "content": "plain %s"}]}`+"\n", scenario, ch, content, content)
		}
	}
	rng := rand.New(rand.NewSource(3))
	for n := 0; n < testfiles.Iterations(3000); n++ {
		in.Write(tracegen.Trace(rng))
		in.WriteByte('\n')
	}
	data := in.Bytes()

	run := func(transient bool, workers int) (string, string) {
		t.Helper()
		var out bytes.Buffer
		job := &Job{
			Scanner: NewScanner(nil, vs), Workers: workers, Transient: transient, KeepGoing: true,
			Render: func(r *Result, dst []byte) []byte {
				RedactFindings(r, false)
				return append(r.AppendJSON(dst), '\n')
			},
			OnResult: func(r *Result) error {
				out.Write(r.Output)
				return nil
			},
		}
		sum, _ := job.Run(context.Background(), []Input{{Path: "-", Display: "t.jsonl", Reader: bytes.NewReader(data)}})
		if sum == nil || sum.Traces < 100 {
			t.Fatalf("transient %v, %d workers: scanned too few traces: %+v", transient, workers, sum)
		}
		return out.String(), fmt.Sprint(sum.Traces, sum.Blocked, sum.Diags)
	}
	wantOut, wantSum := run(false, 1)
	for _, c := range []struct {
		transient bool
		workers   int
	}{{true, 1}, {false, 2}, {true, 2}} {
		gotOut, gotSum := run(c.transient, c.workers)
		if gotSum != wantSum {
			t.Errorf("transient %v, %d workers: summary %.300s, want %.300s", c.transient, c.workers, gotSum, wantSum)
		}
		if gotOut != wantOut {
			got, want := strings.Split(gotOut, "\n"), strings.Split(wantOut, "\n")
			for i := range min(len(got), len(want)) {
				if got[i] != want[i] {
					t.Fatalf("transient %v, %d workers: result %d:\n%.600s\nwant\n%.600s", c.transient, c.workers, i, got[i], want[i])
				}
			}
			t.Fatalf("transient %v, %d workers: %d results, want %d", c.transient, c.workers, len(got), len(want))
		}
	}
}

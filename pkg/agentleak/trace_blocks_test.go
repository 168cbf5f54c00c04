package agentleak

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

// readAllTraces reads every trace of r, keeping them all (so a trace whose
// bytes were reused would show it), and describes them.
func readAllTraces(t *testing.T, r io.Reader) ([]string, error) {
	return readTraces(t, r, false)
}

// readTraces is readAllTraces; with reuse, the reader reuses its block and
// each trace is described before the next is read.
func readTraces(t *testing.T, r io.Reader, reuse bool) ([]string, error) {
	t.Helper()
	tr := NewTraceReader("t.jsonl", r)
	tr.br.reuse = reuse
	var kept []*Trace
	var out, errs []string
	for {
		tc, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			var te *TraceError
			if !errors.As(err, &te) {
				return nil, err
			}
			errs = append(errs, err.Error())
			continue
		}
		if reuse {
			out = append(out, describeTrace(tc))
		} else {
			kept = append(kept, tc)
		}
	}
	for _, tc := range kept {
		out = append(out, describeTrace(tc))
	}
	return append(out, errs...), nil
}

func describeTrace(tc *Trace) string {
	d := fmt.Sprintf("%d %s %s %d", tc.Line, tc.ScenarioID, tc.RunID, len(tc.Events))
	for _, e := range tc.Events {
		d += " " + e.EventID + "=" + string(e.Content)
	}
	return d
}

// TestTraceReaderBlocks: lines across block ends, lines longer than a
// block, a reader that returns one byte at a time or half of what is
// asked, a last line without '\n', blank and broken lines, and a JSON
// document after the first line all read the same as from one buffer, and
// every trace keeps its own bytes after later lines are read.
func TestTraceReaderBlocks(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 300; i++ {
		pad := strings.Repeat("x", (i*997)%3000)
		if i%50 == 7 {
			pad = strings.Repeat("y", blockSize+i) // longer than a block
		}
		fmt.Fprintf(&b, "{\"scenario_id\": \"s%d\", \"run_id\": \"r%d\", \"events\": [{\"channel\": \"log\", \"content\": \"%s %d\"}]}\n", i, i, pad, i)
		if i%40 == 3 {
			b.WriteString("\n{broken\n")
		}
	}
	b.WriteString(`{"scenario_id": "last", "events": []}`) // no final '\n'
	jsonl := b.String()
	doc := "[\n" + `{"scenario_id": "a", "events": [{"channel": "log", "content": "x"}]},` + "\n" + strings.Repeat(" ", blockSize) + `{"scenario_id": "b", "events": []}` + "\n]\n"
	for name, in := range map[string]string{"jsonl": jsonl, "document": doc} {
		want, err := readAllTraces(t, strings.NewReader(in))
		if err != nil || len(want) < 2 {
			t.Fatalf("%s: %v, %d traces", name, err, len(want))
		}
		for _, reuse := range []bool{false, true} {
			for rname, r := range map[string]io.Reader{
				"one byte": iotest.OneByteReader(strings.NewReader(in)),
				"half":     iotest.HalfReader(strings.NewReader(in)),
				"data+EOF": iotest.DataErrReader(strings.NewReader(in)),
				"whole":    strings.NewReader(in),
			} {
				got, err := readTraces(t, r, reuse)
				if err != nil {
					t.Fatalf("%s, %s, reuse %v: %v", name, rname, reuse, err)
				}
				if strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Errorf("%s, %s, reuse %v: traces differ from reading one buffer", name, rname, reuse)
				}
			}
		}
	}
	// A read error after some lines reaches the caller.
	boom := errors.New("boom")
	_, err := readAllTraces(t, io.MultiReader(strings.NewReader(jsonl[:5000]), iotest.ErrReader(boom)))
	if !errors.Is(err, boom) {
		t.Errorf("read error: %v, want boom", err)
	}
}

// TestTransientJobMatches: a one-worker job told that OnResult keeps
// nothing (Transient: it reads through one reused block) renders the same
// lines and collects the same metrics as one that is not, on an input of
// many blocks; the collected ids are copies, not views into reused lines.
// leakChannels are the channels TestTransientJobMatches leaks on.
var leakChannels = []string{"final_output", "tool_call", "log", "inter_agent_message", "tool_response", "shared_memory"}

func TestTransientJobMatches(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	var b, vy strings.Builder
	vy.WriteString("vaults:\n")
	for i := 0; b.Len() < 6*blockSize; i++ {
		if i%5 == 2 {
			// No run id: a reused trace must not keep the last one.
			fmt.Fprintf(&b, `{"scenario_id": "s%d", "events": [`, i)
		} else {
			fmt.Fprintf(&b, `{"scenario_id": "s%d", "run_id": "r%d", "events": [`, i, i)
		}
		for k := 0; k <= i%3; k++ {
			if k > 0 {
				b.WriteString(", ")
			}
			// Every other trace leaves event_id out: a decoded event must
			// not keep an earlier trace's.
			if i%2 == 0 {
				fmt.Fprintf(&b, `{"event_id": "e%d-%d", `, i, k)
			} else {
				b.WriteString("{")
			}
			// Every third content has escapes: its findings' values are
			// copied out of the scanner's reused text.
			esc := ""
			if (i+k)%3 == 0 {
				esc = `\n\"quoted\"\t`
			}
			// The vault's values leak on a channel of their own per
			// trace and event, or not at all: a reused result's channel
			// risks, vault summary and block reasons must not keep an
			// earlier trace's.
			ch := leakChannels[(i+k)%len(leakChannels)]
			leak := ""
			if (i+k)%5 != 4 {
				leak = fmt.Sprintf(" ward Westwing %d, CANARY-%d", i%7, i%5)
			}
			if i%6 == 5 {
				// Nothing leaks: no channel risks at all.
				fmt.Fprintf(&b, `"channel": %q, "content": "nothing to report%s %s"}`, ch, esc, strings.Repeat("z", (i*131)%5000))
				continue
			}
			fmt.Fprintf(&b, `"channel": %q, "content": "call 555-123-%04d%s or mail user%d@example.com, 555-987-%04d%s %s"}`, ch, (i+k)%10000, esc, i, i%10000, leak, strings.Repeat("z", (i*131)%5000))
		}
		b.WriteString("]}\n")
		// Every fourth trace has no vault.
		if i%4 != 3 {
			fmt.Fprintf(&vy, "  - key: s%d\n    records:\n      - record_type: r\n        fields:\n          ward: {value: Westwing %d, level: %d}\n          other: never seen\n    canaries:\n      obvious: [CANARY-%d]\n", i, i%7, 1+i%4, i%3)
		}
	}
	vs, ds := ParseVaults("v.yaml", []byte(vy.String()))
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(transient bool) (string, *Summary) {
		var out bytes.Buffer
		var kept []*Result
		job := &Job{
			Scanner: NewScanner(nil, vs), Workers: 1, Collect: true, Transient: transient,
			Render: func(r *Result, dst []byte) []byte {
				RedactFindings(r, r.Events%2 == 0)
				return append(r.AppendJSON(dst), '\n')
			},
			OnResult: func(r *Result) error {
				out.Write(r.Output)
				if !transient {
					kept = append(kept, r)
				}
				return nil
			},
		}
		sum, err := job.Run(context.Background(), []Input{{Path: path, Display: path}})
		if err != nil {
			t.Fatal(err)
		}
		if !transient {
			// Without the promise a result stays valid after OnResult.
			var again []byte
			for _, r := range kept {
				again = append(r.AppendJSON(again), '\n')
			}
			if string(again) != out.String() {
				t.Errorf("results kept past OnResult changed")
			}
		}
		return out.String(), sum
	}
	want, wantSum := run(false)
	got, gotSum := run(true)
	if got != want {
		t.Errorf("transient output differs from the usual one")
	}
	if !reflect.DeepEqual(gotSum, wantSum) {
		t.Errorf("transient summary differs from the usual one")
	}
	if wantSum.Traces < 100 || !strings.Contains(want, `"phone_number"`) || !strings.Contains(want, `"leaks_by_channel"`) ||
		!strings.Contains(want, `"block_reasons"`) || !strings.Contains(want, `"ri_by_channel":{}`) || !strings.Contains(want, `"ri_by_channel":{"log"`) {
		t.Fatalf("the input did not exercise the scan: %d traces", wantSum.Traces)
	}
}

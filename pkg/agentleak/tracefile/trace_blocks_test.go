package tracefile

import (
	"errors"
	"fmt"
	"io"
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
	tr.SetReuse(reuse)
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
			pad = strings.Repeat("y", BlockSize+i) // longer than a block
		}
		fmt.Fprintf(&b, "{\"scenario_id\": \"s%d\", \"run_id\": \"r%d\", \"events\": [{\"channel\": \"log\", \"content\": \"%s %d\"}]}\n", i, i, pad, i)
		if i%40 == 3 {
			b.WriteString("\n{broken\n")
		}
	}
	b.WriteString(`{"scenario_id": "last", "events": []}`) // no final '\n'
	jsonl := b.String()
	doc := "[\n" + `{"scenario_id": "a", "events": [{"channel": "log", "content": "x"}]},` + "\n" + strings.Repeat(" ", BlockSize) + `{"scenario_id": "b", "events": []}` + "\n]\n"
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

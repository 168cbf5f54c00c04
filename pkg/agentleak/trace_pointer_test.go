package agentleak

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// Traces from a JSON array carry their index as a JSON pointer; a JSONL
// trace carries its line and no pointer.
func TestTraceReaderLocations(t *testing.T) {
	read := func(src string) []*Trace {
		t.Helper()
		tr := NewTraceReader("f", strings.NewReader(src))
		var out []*Trace
		for {
			x, err := tr.Next()
			if errors.Is(err, io.EOF) {
				return out
			}
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, x)
		}
	}
	ev := `{"scenario_id":"s","events":[{"event_id":"e","channel":"final_output","content":"hi"}]}`
	arr := read("[\n" + ev + ",\n" + ev + "\n]\n")
	if len(arr) != 2 || !arr[0].InDoc || arr[0].Pointer != "/0" || arr[1].Pointer != "/1" {
		t.Fatalf("array: got %+v", arr)
	}
	one := read("{\n" + strings.TrimPrefix(ev, "{"))
	if len(one) != 1 || !one[0].InDoc || one[0].Pointer != "" {
		t.Fatalf("single document: got %+v", one)
	}
	lines := read(ev + "\n" + ev + "\n")
	if len(lines) != 2 || lines[1].InDoc || lines[1].Line != 2 {
		t.Fatalf("JSONL: got %+v", lines)
	}
}

package agentleak

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/lfcli/lf/pkg/agentleak/tracefile"
	"github.com/lfcli/lf/pkg/internal/testfiles"
)

// TestScannerTextTrustsNote: the scanner's text of every event the
// decoder read (trusting the decoder's note on its content) is
// tracefile.EventText's of the raw content, which reads no note.
func TestScannerTextTrustsNote(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.jsonl")
	more, _ := filepath.Glob("testdata/fuzzseed/*.jsonl")
	files = append(files, more...)
	files = append(files, filepath.Join(testfiles.Root(t), "project", "agentleak", "traces.jsonl"))
	sc := NewScanner(nil, nil)
	n := 0
	for _, f := range files {
		data, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		tr := tracefile.NewTraceReader(f, data)
		for {
			tc, err := tr.Next()
			if err != nil {
				break
			}
			for i := range tc.Events {
				e := &tc.Events[i]
				want, werr := tracefile.EventText(e.Content, nil)
				got, err := sc.eventText(e)
				if got != want || (err == nil) != (werr == nil) {
					t.Fatalf("%s: content %s (note %#x): scanner's text %q, %v; want %q, %v", f, e.Content, e.Known(), got, err, want, werr)
				}
				n++
			}
		}
		data.Close()
	}
	if n < 50 {
		t.Fatalf("only %d events read: the test does not exercise the scanner", n)
	}
}

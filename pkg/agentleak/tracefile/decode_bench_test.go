package tracefile

import (
	"bytes"
	"testing"

	"github.com/lfcli/lf/pkg/internal/jsonlex"
	"github.com/lfcli/lf/pkg/internal/testfiles"
)

// BenchmarkDecodeFile decodes every line of the benchmark trace file as a
// one-worker scan does (decodeTrace with the worker's scratch list), so
// that the decoder's share of a scan is measured on its own.
func BenchmarkDecodeFile(b *testing.B) {
	data := testfiles.BenchTraceFile(b)
	lines := testfiles.Lines(data)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var events []Event
	n := 0
	for i := 0; i < b.N; i++ {
		for _, l := range lines {
			t, err := decodeTrace("f", 1, l, &events)
			if err != nil {
				b.Fatal(err)
			}
			n += len(t.Events)
		}
	}
	if n == 0 {
		b.Fatal("no events")
	}
}

// BenchmarkUnquoteFile decodes the escapes of every string content of
// the benchmark trace file that has one, into one reused buffer, as the
// scanner's eventText does before it reads a content.
func BenchmarkUnquoteFile(b *testing.B) {
	var raws [][]byte
	size := 0
	for _, l := range testfiles.Lines(testfiles.BenchTraceFile(b)) {
		t, err := decodeTrace("f", 1, l, nil)
		if err != nil {
			b.Fatal(err)
		}
		for _, e := range t.Events {
			if len(e.Content) > 1 && e.Content[0] == '"' && bytes.IndexByte(e.Content, '\\') >= 0 {
				raws = append(raws, e.Content)
				size += len(e.Content)
			}
		}
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	var out []byte
	for i := 0; i < b.N; i++ {
		for _, raw := range raws {
			var ok bool
			if out, ok = jsonlex.UnquoteTo(out[:0], raw); !ok {
				b.Fatalf("UnquoteTo failed on %.100s", raw)
			}
		}
	}
}

package tracefile

import (
	"bytes"
	"os"
	"testing"

	"github.com/lfcli/lf/pkg/internal/jsonlex"
)

// benchTraceFile is the trace file the decode and render benchmarks read,
// named by LF_BENCH_TRACES (`task bench:agentleak` writes the 9.2 MB one as
// /tmp/lf-bench-al10.jsonl; `go run ./cmd/lfgen agentleak -repeat 10 -o F`
// makes it anywhere). Without it the benchmark skips and says so.
func benchTraceFile(b *testing.B) []byte {
	b.Helper()
	path := os.Getenv("LF_BENCH_TRACES")
	if path == "" {
		b.Skip("set LF_BENCH_TRACES to a trace file (go run ./cmd/lfgen agentleak -repeat 10 -o F)")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		b.Skip(err)
	}
	return data
}

// extraTraceFiles are the trace files a test may read beyond the
// repository's and ../shared's: the one LF_BENCH_TRACES names, if any.
func extraTraceFiles() []string {
	if p := os.Getenv("LF_BENCH_TRACES"); p != "" {
		return []string{p}
	}
	return nil
}

// benchLines splits a JSONL file into its non-blank lines.
func benchLines(data []byte) [][]byte {
	var lines [][]byte
	for _, l := range bytes.Split(data, []byte("\n")) {
		if l = bytes.TrimSpace(l); len(l) > 0 {
			lines = append(lines, l)
		}
	}
	return lines
}

// BenchmarkDecodeFile decodes every line of the benchmark trace file as a
// one-worker scan does (decodeTrace with the worker's scratch list), so
// that the decoder's share of a scan is measured on its own.
func BenchmarkDecodeFile(b *testing.B) {
	data := benchTraceFile(b)
	lines := benchLines(data)
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
	for _, l := range benchLines(benchTraceFile(b)) {
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

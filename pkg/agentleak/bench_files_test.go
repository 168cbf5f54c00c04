package agentleak

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/lfcli/lf/pkg/agentleak/tracefile"
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

// eachBenchText calls fn with every trace of the trace file path and the
// non-empty text of each of its events, in order.
func eachBenchText(tb testing.TB, path string, fn func(t *Trace, text string)) {
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	tr := tracefile.NewTraceReader(path, bytes.NewReader(data))
	for {
		tc, err := tr.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			tb.Fatal(err)
		}
		for i := range tc.Events {
			if s, err := tracefile.EventText(tc.Events[i].Content, nil); err == nil && s != "" {
				fn(tc, s)
			}
		}
	}
}

// repoRoot is the folder of the module's go.mod.
func repoRoot(t testing.TB) string {
	wd, _ := os.Getwd()
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			t.Fatal("no go.mod above the test")
		}
	}
}

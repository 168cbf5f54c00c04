package testfiles

import (
	"bytes"
	"os"
	"testing"
)

// BenchTracesEnv names the trace file the AgentLeak benchmarks read
// (`go run ./cmd/lfgen agentleak -repeat 10 -o F` makes one).
const BenchTracesEnv = "LF_BENCH_TRACES"

// BenchTraceFile returns the contents of the trace file $LF_BENCH_TRACES
// names; without it, or when it cannot be read, the benchmark skips and
// says why.
func BenchTraceFile(b *testing.B) []byte {
	b.Helper()
	path := os.Getenv(BenchTracesEnv)
	if path == "" {
		b.Skip("set " + BenchTracesEnv + " to a trace file (go run ./cmd/lfgen agentleak -repeat 10 -o F)")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		b.Skip(err)
	}
	return data
}

// ExtraTraceFiles are the trace files a test may read beyond the
// repository's and the shared folder's: the one $LF_BENCH_TRACES names, if
// any.
func ExtraTraceFiles() []string {
	if p := os.Getenv(BenchTracesEnv); p != "" {
		return []string{p}
	}
	return nil
}

// Lines splits a JSONL file into its non-blank lines, trimmed.
func Lines(data []byte) [][]byte {
	var lines [][]byte
	for _, l := range bytes.Split(data, []byte("\n")) {
		if l = bytes.TrimSpace(l); len(l) > 0 {
			lines = append(lines, l)
		}
	}
	return lines
}

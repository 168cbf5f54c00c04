// Package tracetest reads AgentLeak trace files for tests and benchmarks:
// the text of every event, as the scanner reads it. Tests only.
package tracetest

import (
	"bytes"
	"io"
	"os"
	"testing"

	"github.com/lfcli/lf/pkg/agentleak/tracefile"
)

// EachText calls fn with every trace of the trace file path and the
// non-empty text of each of its events, in order; it fails tb when the
// file cannot be read or decoded.
func EachText(tb testing.TB, path string, fn func(t *tracefile.Trace, text string)) {
	tb.Helper()
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

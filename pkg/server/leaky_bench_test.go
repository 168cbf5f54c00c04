package server

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/lfcli/lf/pkg/otelspans"
)

// BenchmarkScanTraceLeaky is BenchmarkScanTrace over the traces of the
// repository's span file, small traces that leak (about ten findings
// each): what a scan costs beyond its detectors when it finds something.
//
//	go test ./pkg/server -run '^$' -bench ScanTraceLeaky -benchmem
func BenchmarkScanTraceLeaky(b *testing.B) {
	s := benchServer(b)
	f := filepath.Join("..", "..", "project", "agentleak", "spans.otlp.jsonl")
	r, err := os.Open(f)
	if err != nil {
		b.Fatal(err)
	}
	traces, err := otelspans.Read(f, r, otelspans.Auto)
	r.Close()
	if err != nil {
		b.Fatal(err)
	}
	tt := s.otlp.tenant("t1")
	var buf scanBuf
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		tr := traces[i%len(traces)]
		// The record, without keeping it or denying its agents: the part
		// of scanTrace that is the scan's.
		if _, _, err := s.scanRecord(&buf, "t1", tt, tr.RunID, &pendingTrace{spans: tr.Spans}, "root"); err != nil {
			b.Fatal(err)
		}
		buf.reset()
	}
}

package server

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/lfcli/lf/pkg/otelspans"
	"github.com/lfcli/lf/pkg/store"
)

// BenchmarkScanTraceLeaky is BenchmarkScanTrace over the traces of the
// repository's span file, small traces that leak (about ten findings
// each): what a scan costs beyond its detectors when it finds something.
//
//	go test ./pkg/server -run '^$' -bench ScanTraceLeaky -benchmem
func BenchmarkScanTraceLeaky(b *testing.B) {
	ctx := context.Background()
	st, err := store.Open(ctx, b.TempDir()+"/lf.db")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	cfg, d := LoadConfig("server.yaml", []byte("apiKeys: [{name: t1, tenant: t1, role: operator, key: "+keyT1+"}]\nrecalcInterval: 1h\n"), func(string) string { return "" })
	if d.HasErrors() {
		b.Fatal(d)
	}
	s, err := New(ctx, cfg, st, io.Discard)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close(ctx) })
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

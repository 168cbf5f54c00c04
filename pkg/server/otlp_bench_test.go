package server

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"net/http/httptest"
	"testing"

	"github.com/lfcli/lf/pkg/internal/benchspans"
	"github.com/lfcli/lf/pkg/otelspans"
	"github.com/lfcli/lf/pkg/store"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// benchTraceID is the trace id of benchRequest's template, replaced per
// request.
var benchTraceID = pcommon.TraceID{0x7e, 0x57, 0x7e, 0x57, 0x7e, 0x57, 0x7e, 0x57, 0x7e, 0x57, 0x7e, 0x57, 0x7e, 0x57, 0x7e, 0x57}

// benchRequest is one OTLP protobuf request of n GenAI spans of one trace
// (benchspans.GenAI): the spans of scripts/bench-otlp.sh.
func benchRequest(n, agent int) []byte {
	b, _ := (&ptrace.ProtoMarshaler{}).MarshalTraces(benchspans.GenAI(n, agent, benchTraceID))
	return b
}

// BenchmarkOTLPReceive is POST /v1/traces in process (no network): 100-span
// traces, with and without the AgentLeak scan of each finished trace.
//
//	go test ./pkg/server -run '^$' -bench OTLPReceive -cpuprofile /tmp/cpu.out
func BenchmarkOTLPReceive(b *testing.B) {
	for _, scan := range []bool{true, false} {
		b.Run(fmt.Sprintf("scan=%v", scan), func(b *testing.B) {
			ctx := context.Background()
			st, err := store.Open(ctx, b.TempDir()+"/lf.db")
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { st.Close() })
			cfg, d := LoadConfig("server.yaml", []byte(fmt.Sprintf("apiKeys: [{name: t1, tenant: t1, role: operator, key: %s}]\nrecalcInterval: 1h\notlp: {scan: %v}\n", keyT1, scan)), func(string) string { return "" })
			if d.HasErrors() {
				b.Fatal(d)
			}
			s, err := New(ctx, cfg, st, io.Discard)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { s.Close(ctx) })
			// The scan workers and idle sweep, as Serve runs them.
			lctx, stop := context.WithCancel(ctx)
			loopDone := make(chan struct{})
			go func() { defer close(loopDone); s.otlpLoop(lctx) }()
			b.Cleanup(func() { stop(); <-loopDone })
			h := s.Handler()
			tmpl := make([][]byte, 50)
			for i := range tmpl {
				tmpl[i] = benchRequest(100, i)
			}
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				n := 0
				for pb.Next() {
					var id [16]byte
					rand.Read(id[:])
					body := bytes.ReplaceAll(tmpl[n%len(tmpl)], benchTraceID[:], id[:])
					n++
					req := httptest.NewRequest("POST", "/v1/traces", bytes.NewReader(body))
					req.Header.Set("Content-Type", ctProto)
					req.Header.Set("Authorization", "Bearer "+keyT1)
					w := httptest.NewRecorder()
					h.ServeHTTP(w, req)
					if w.Code != 200 {
						b.Fatalf("%d %s", w.Code, w.Body)
					}
				}
			})
			s.otlp.waitScans() // the background scans are part of the cost
			b.StopTimer()
			b.ReportMetric(float64(b.N*100)/b.Elapsed().Seconds(), "spans/s")
		})
	}
}

// BenchmarkScanTrace is the AgentLeak scan of one finished trace of
// benchRequest (100 spans), as a scan worker does it, without the
// receiving: the part of BenchmarkOTLPReceive/scan=true that scan=false
// does not pay.
//
//	go test ./pkg/server -run '^$' -bench ScanTrace -cpuprofile /tmp/cpu.out
func BenchmarkScanTrace(b *testing.B) {
	ctx := context.Background()
	s := benchServer(b)
	td, err := (&ptrace.ProtoUnmarshaler{}).UnmarshalTraces(benchRequest(100, 1))
	if err != nil {
		b.Fatal(err)
	}
	spans := otelspans.FromPdata(td, 0)
	tt := s.otlp.tenant("t1")
	id := spans[0].TraceID
	var buf scanBuf
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := s.scanTrace(ctx, &buf, "t1", tt, id, &pendingTrace{spans: spans}, "root"); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*len(spans))/b.Elapsed().Seconds(), "spans/s")
}

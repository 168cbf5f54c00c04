package server

import (
	"bytes"
	"fmt"
	"math/rand"
	"net/http/httptest"
	"testing"
	"time"
)

// benchEvents is an NDJSON batch like lfgen loadgen -ingest-batch sends:
// n events for 50 agents, one in ten with an injection score.
func benchEvents(n int, seq *int) []byte {
	var b bytes.Buffer
	rng := rand.New(rand.NewSource(int64(*seq)))
	now := time.Now().UTC().Format(time.RFC3339Nano)
	tools := []string{"read_file", "search_docs", "list_dir", "write_file"}
	for range n {
		*seq++
		inj := ""
		if rng.Intn(10) == 0 {
			inj = fmt.Sprintf(`,"injection_score":%g`, float64(rng.Intn(300))/1000)
		}
		fmt.Fprintf(&b, `{"timestamp":%q,"tenant_id":"t1","agent_id":"agent-%d","session_id":"s%d","method":"tools/call","tool":%q,"resource":"/docs/%d.md","decision":"allow"%s,"request_id":"lg-%d"}`+"\n",
			now, rng.Intn(50), rng.Intn(50), tools[rng.Intn(4)], rng.Intn(20), inj, *seq)
	}
	return b.Bytes()
}

// BenchmarkIngestServe is POST /tenants/{id}/events in-process with batches
// of 500 new events (the body checks, the parse, the ingest and the live
// update of the touched agents); ns/op divided by 500 is the server's CPU
// per event without the network.
func BenchmarkIngestServe(b *testing.B) {
	s := benchServer(b)
	h := s.Handler()
	seq := 0
	for b.Loop() {
		b.StopTimer()
		body := benchEvents(500, &seq)
		b.StartTimer()
		req := httptest.NewRequest("POST", "/tenants/t1/events", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+keyT1)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != 200 {
			b.Fatalf("%d %s", w.Code, w.Body)
		}
	}
}

// BenchmarkScanEvents is the body checks alone on a batch of 500 events.
func BenchmarkScanEvents(b *testing.B) {
	seq := 0
	body := benchEvents(500, &seq)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if e := scanBody(body, eventsShape, true); e != nil {
			b.Fatal(e)
		}
	}
}

// BenchmarkQuickScanEvents is the fast body check on the same batch.
func BenchmarkQuickScanEvents(b *testing.B) {
	seq := 0
	body := benchEvents(500, &seq)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if !quickScan(body, eventsShape, true) {
			b.Fatal("refused")
		}
	}
}

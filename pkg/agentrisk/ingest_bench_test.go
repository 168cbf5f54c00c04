package agentrisk

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/lfcli/lf/pkg/store"
)

// requestEvents returns n distinct events of one tenant in the hour that
// starts at hour, the k-th request's, shaped as lfgen loadgen's ingest side
// load (scripts/bench-verdict.sh: 500 per request, 50 agents, 50 sessions,
// 4 tools, 20 resources, one in twenty denied, one in ten with an
// injection score).
func requestEvents(hour time.Time, k, n int) []Event {
	tools := []string{"read_file", "search_docs", "list_dir", "write_file"}
	rng := rand.New(rand.NewPCG(uint64(k), 1))
	evs := make([]Event, n)
	for i := range evs {
		j := k*n + i
		evs[i] = Event{
			Timestamp: hour.Add(time.Duration(j%3600000) * time.Millisecond),
			TenantID:  "acme", AgentID: fmt.Sprintf("agent-%d", rng.IntN(50)),
			SessionID: fmt.Sprintf("s%d", rng.IntN(50)), Method: "tools/call", Tool: tools[rng.IntN(4)],
			Resource: fmt.Sprintf("/docs/%d.md", rng.IntN(20)), Decision: "allow",
			RequestID: fmt.Sprintf("lg-%d", j),
		}
		if rng.IntN(20) == 0 {
			evs[i].Decision = "deny"
		}
		if rng.IntN(10) == 0 {
			s := float64(rng.IntN(300)) / 1000
			evs[i].InjectionScore = &s
		}
	}
	return evs
}

// BenchmarkIngestRequests is the cost of one 500-event request into the
// current hour of a tenant that already holds 100,000 events of that hour
// (10 s of 10,000 events/s), on a SQLite file store:
//
//	go test ./pkg/agentrisk -run '^$' -bench IngestRequests -benchtime 200x -benchmem -count 5
//
// Each iteration is a new request (500 new events); the hour grows by them.
func BenchmarkIngestRequests(b *testing.B) {
	ctx := context.Background()
	e, hour := benchHour(b)
	reqs := make([][]Event, b.N)
	for i := range reqs {
		reqs[i] = requestEvents(hour, 200+i, 500)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := e.Ingest(ctx, reqs[i])
		if err != nil {
			b.Fatal(err)
		}
		if res.New != 500 {
			b.Fatalf("request %d: %d new events, want 500", i, res.New)
		}
	}
}

// BenchmarkIngestLiveRequests is BenchmarkIngestRequests with the live
// path's work for each request as lf serve does it: the request ingested
// with IngestWritten, then its agents rescored from the rows handed over
// (Live.UpdateRows), every second request at the next score second:
//
//	go test ./pkg/agentrisk -run '^$' -bench IngestLiveRequests -benchtime 200x -benchmem -count 5
func BenchmarkIngestLiveRequests(b *testing.B) {
	ctx := context.Background()
	e, hour := benchHour(b)
	live := e.NewLive()
	at := hour.Add(59 * time.Minute)
	if _, err := live.Update(ctx, []AgentRef{{"acme", "agent-0"}}, at); err != nil {
		b.Fatal(err) // the tenant loaded
	}
	reqs := make([][]Event, b.N)
	for i := range reqs {
		reqs[i] = requestEvents(hour, 200+i, 500)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_, rows, err := e.IngestWritten(ctx, reqs[i])
		if err != nil {
			b.Fatal(err)
		}
		scores, err := live.UpdateRows(ctx, rows, at.Add(time.Duration(i/2)*time.Second))
		if err != nil || len(scores) != len(rows) {
			b.Fatalf("request %d: %d scores, %v", i, len(scores), err)
		}
	}
}

// benchHour returns an engine on a new SQLite file store whose current hour
// holds 100,000 events already, and that hour.
func benchHour(b *testing.B) (*Engine, time.Time) {
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(b.TempDir(), "lf.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	e := NewEngine(st)
	hour := time.Now().UTC().Truncate(time.Hour)
	if _, err := e.Ingest(ctx, requestEvents(hour, 0, 100000)); err != nil {
		b.Fatal(err)
	}
	return e, hour
}

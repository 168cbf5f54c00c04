package agentrisk

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/lfcli/lf/pkg/store"
)

// Benchmark sizes: LF_BENCH_AGENTS (default 10000) and LF_BENCH_EVENTS
// (default 5000000) events over the 7 days before SampleEnd.
func benchSize() (agents, events int) {
	agents, events = 10000, 5000000
	if v, err := strconv.Atoi(os.Getenv("LF_BENCH_AGENTS")); err == nil && v > 0 {
		agents = v
	}
	if v, err := strconv.Atoi(os.Getenv("LF_BENCH_EVENTS")); err == nil && v > 0 {
		events = v
	}
	return
}

// benchStore builds (once, cached in the temp folder) a store holding the
// benchmark events, ingested in batches through Engine.Ingest.
func benchStore(b *testing.B, agents, events int) *Engine {
	b.Helper()
	ctx := context.Background()
	path := filepath.Join(os.TempDir(), fmt.Sprintf("lf-agentrisk-bench-v1-%d-%d.db", agents, events))
	_, statErr := os.Stat(path)
	st, err := store.Open(ctx, path)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	e := NewEngine(st)
	if statErr == nil {
		if n, err := countAgents(ctx, st); err == nil && n == agents {
			return e
		}
	}
	start := time.Now()
	rate := float64(events) / float64(agents) / float64(7*24)
	batch := make([]Event, 0, 500000)
	total := 0
	flush := func() {
		if _, err := e.Ingest(ctx, batch); err != nil {
			b.Fatal(err)
		}
		total += len(batch)
		batch = batch[:0]
	}
	Generate(BenchAgents(agents, 20, rate), SampleEnd, 7, 1, func(ev Event) {
		batch = append(batch, ev)
		if len(batch) == cap(batch) {
			flush()
		}
	})
	flush()
	b.Logf("built %s: %d events for %d agents ingested in %s (%.0f events/s)", path, total, agents, time.Since(start).Round(time.Millisecond), float64(total)/time.Since(start).Seconds())
	return e
}

// BenchmarkRecalculate scores every agent of the benchmark store at the end
// of its events: go test ./pkg/agentrisk -run '^$' -bench Recalculate -benchtime 3x
func BenchmarkRecalculate(b *testing.B) {
	agents, events := benchSize()
	e := benchStore(b, agents, events)
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ch, err := e.Recalculate(ctx, "", "", SampleEnd)
		if err != nil {
			b.Fatal(err)
		}
		if len(ch) != agents {
			b.Fatalf("%d changes, want %d", len(ch), agents)
		}
	}
	b.ReportMetric(float64(events), "events")
	b.ReportMetric(float64(agents), "agents")
}

// BenchmarkIngest measures ingest throughput on a fresh store (100,000 events
// of 1,000 agents per iteration).
func BenchmarkIngest(b *testing.B) {
	var evs []Event
	Generate(BenchAgents(1000, 5, 100000.0/1000/168), SampleEnd, 7, 2, func(ev Event) { evs = append(evs, ev) })
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		e := openTest(b)
		b.StartTimer()
		if _, err := e.Ingest(context.Background(), evs); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(evs))*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkDecide is the per-request cost of the enforcement decision.
func BenchmarkDecide(b *testing.B) {
	cfg := DefaultRiskConfig()
	cfg.Enabled = true
	cfg.RateLimit = &RateLimit{Limit: 100, WindowSeconds: 60}
	agent := AgentState{Score: 85}
	req := Request{Method: "tools/call"}
	for i := 0; i < b.N; i++ {
		_ = Decide(cfg, agent, req, i%100)
	}
}

// BenchmarkScore is the compute part of a recalculation alone (decode the
// aggregates, five components, anomaly), without reading or writing the
// store: the part that grows with the events.
func BenchmarkScore(b *testing.B) {
	agents, events := benchSize()
	e := benchStore(b, agents, events)
	ctx := context.Background()
	ins, err := e.loadInputs(ctx, "", "", SampleEnd)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, _, err := e.scoreAll(ctx, ins, SampleEnd); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(events), "events")
}

// BenchmarkLiveUpdate is one live update on the benchmark store: 50 agents
// of one tenant (of 500 agents) touched by an ingest, rescored against their
// peers: at a new score time (every peer's features recomputed) and at the
// same second as the update before (only the touched agents'). The tenant is
// loaded before the timer starts.
func BenchmarkLiveUpdate(b *testing.B) {
	agents, events := benchSize()
	e := benchStore(b, agents, events)
	ctx := context.Background()
	ins, err := e.loadInputs(ctx, "", "", SampleEnd)
	if err != nil {
		b.Fatal(err)
	}
	var refs []AgentRef
	for _, in := range ins {
		if in.tenant == ins[0].tenant && len(refs) < 50 {
			refs = append(refs, AgentRef{in.tenant, in.agent})
		}
	}
	live := e.NewLive()
	if _, err := live.Update(ctx, refs, SampleEnd); err != nil {
		b.Fatal(err)
	}
	for _, sameSecond := range []bool{false, true} {
		name := map[bool]string{false: "new-second", true: "same-second"}[sameSecond]
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				at := SampleEnd.Add(time.Duration(i+1) * time.Second)
				if sameSecond {
					at = SampleEnd
				}
				scores, err := live.Update(ctx, refs, at)
				if err != nil || len(scores) != len(refs) {
					b.Fatal(err, len(scores))
				}
			}
			b.ReportMetric(float64(len(refs)), "agents/update")
		})
	}
}

// countAgents counts the agents of every tenant of st.
func countAgents(ctx context.Context, st *store.Store) (int, error) {
	tenants, err := st.AgentTenants(ctx)
	n := 0
	for _, tenant := range tenants {
		if err != nil {
			break
		}
		var k int
		k, err = st.CountAgents(ctx, tenant)
		n += k
	}
	return n, err
}

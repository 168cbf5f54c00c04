package agentrisk

import (
	"context"
	"fmt"
	"math/rand"
	"reflect"
	"sort"
	"testing"
	"time"
)

// randomStream is a long random event stream: several tenants and agents
// (calm ones, bursty ones, newcomers, one-event junk), late and duplicate
// events, batches that cross hours.
type randomStream struct {
	rng    *rand.Rand
	agents []AgentRef
	sent   []Event
}

func (s *randomStream) event(at time.Time) Event {
	r := s.rng
	if len(s.sent) > 0 && r.Intn(40) == 0 {
		return s.sent[r.Intn(len(s.sent))] // a duplicate: must count once
	}
	a := s.agents[r.Intn(len(s.agents))]
	if r.Intn(200) == 0 {
		a = AgentRef{a.TenantID, fmt.Sprintf("junk%d", r.Intn(1000))}
	}
	// Mostly the last minutes, some late by hours, a few by days.
	age := time.Duration(r.Intn(600)) * time.Second
	switch r.Intn(20) {
	case 0:
		age = time.Duration(r.Intn(6*3600)) * time.Second
	case 1:
		age = time.Duration(r.Intn(9*24*3600)) * time.Second
	}
	tools := []string{"read_file", "search_docs", "list_dir", "write_file", "exec_shell", "db_drop", ""}
	ev := Event{
		Timestamp: at.Add(-age).Truncate(time.Millisecond), TenantID: a.TenantID, AgentID: a.AgentID, AgentName: a.AgentID + "-bot",
		Method: "tools/call", Tool: tools[r.Intn(len(tools))], Resource: fmt.Sprintf("/docs/%d/x.md", r.Intn(4)),
		RequestID: fmt.Sprintf("r%d", r.Int63()),
	}
	if r.Intn(3) > 0 {
		ev.SessionID = fmt.Sprintf("%s-s%d", a.AgentID, r.Intn(8))
	}
	if r.Intn(8) == 0 {
		ev.HighImpact = true
	}
	if r.Intn(6) == 0 {
		ev.Decision = "deny"
	}
	if r.Intn(5) == 0 {
		ev.InjectionScore = f(float64(r.Intn(1001)) / 1000)
	}
	s.sent = append(s.sent, ev)
	return ev
}

// TestLiveMatchesFullRecalculation feeds a long random stream in batches;
// after every batch the live path rescores the touched agents, and their
// scores and components must equal a full recalculation at the same time.
func TestLiveMatchesFullRecalculation(t *testing.T) {
	t.Parallel() // its own store, no package setting changed
	ctx := context.Background()
	e := openTest(t)
	// One tenant with a config of its own (high-impact tools, faster decay).
	if err := e.PutRiskConfig(ctx, "t2", RiskConfig{
		Enabled: true, ElevatedThreshold: 40, HighThreshold: 60, CriticalThreshold: 80, ElevatedRateMult: 0.5, HighRateMult: 0.25,
		CriticalAllowedMethods: []string{"ping"}, Weights: DefaultRiskConfig().Weights, DecayHalfLifeHours: 6, HighImpactTools: []string{"exec_shell"},
	}); err != nil {
		t.Fatal(err)
	}
	s := &randomStream{rng: rand.New(rand.NewSource(7))}
	var history []Event
	for ti, tenant := range []string{"t1", "t2", "t3"} {
		for i := 0; i < 4+4*ti; i++ {
			id := fmt.Sprintf("%s-a%d", tenant, i)
			s.agents = append(s.agents, AgentRef{tenant, id})
			if i < 3+4*ti { // most agents have ten days of calm history; the others are newcomers
				history = append(history, steady(tenant, id, 10, 1+i%3, "read_file", "search_docs")...)
			}
		}
	}
	ingest(t, e, history)
	live := e.NewLive()
	at := t0.Add(7 * time.Minute)
	batches, events, compared := 0, 0, 0
	for batches = 0; batches < 150; batches++ {
		if s.rng.Intn(3) > 0 { // a third of the batches score at the same time as the one before
			at = at.Add(time.Duration(30+s.rng.Intn(600)) * time.Second) // crosses an hour every few batches
		}
		n := 1 + s.rng.Intn(60)
		batch := make([]Event, n)
		for i := range batch {
			batch[i] = s.event(at)
		}
		if batches == 100 { // a day and a half without events: the live state reloads and prunes
			at = at.Add(36 * time.Hour)
		}
		if batches == 50 { // a config change mid-stream
			cfg := DefaultRiskConfig()
			cfg.HighImpactTools = []string{"db_drop", "write_file"}
			if err := e.PutRiskConfig(ctx, "t3", cfg); err != nil {
				t.Fatal(err)
			}
		}
		events += n
		scores, err := liveBatch(t, e, live, batch, at, batches%3)
		if err != nil {
			t.Fatal(err)
		}
		full := fullScores(t, e, at)
		for _, ls := range scores {
			want, ok := full[AgentRef{ls.TenantID, ls.AgentID}]
			if !ok {
				t.Fatalf("batch %d: live scored %s/%s, the full pass did not", batches, ls.TenantID, ls.AgentID)
			}
			if ls.Score != want.score || !reflect.DeepEqual(ls.Components, want.comps[:]) {
				t.Fatalf("batch %d at %s: %s/%s live %d %+v\nfull %d %+v", batches, at, ls.TenantID, ls.AgentID, ls.Score, ls.Components, want.score, want.comps)
			}
			compared++
		}
	}
	if events < 3000 || compared < 1000 {
		t.Fatalf("stream too short: %d events, %d comparisons", events, compared)
	}
	t.Logf("%d batches, %d events after %d of history, %d live scores equal to the full pass", batches, events, len(history), compared)
}

// liveBatch ingests batch and rescores it on the live path in one of the
// three ways: 0 reads the aggregates back (Update); 1 scores the rows the
// ingest wrote (UpdateRows, as lf serve does); 2 ingests the batch in two
// calls and scores their rows together, the later row of an agent winning
// (lf serve's coalesced update).
func liveBatch(t *testing.T, e *Engine, live *Live, batch []Event, at time.Time, way int) ([]LiveScore, error) {
	t.Helper()
	ctx := context.Background()
	if way == 0 {
		return live.Update(ctx, ingest(t, e, batch).Touched, at)
	}
	parts := [][]Event{batch}
	if way == 2 {
		parts = [][]Event{batch[:len(batch)/2], batch[len(batch)/2:]}
	}
	latest := map[AgentRef]Written{}
	for _, p := range parts {
		_, rows, err := e.IngestWritten(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			latest[AgentRef{r.TenantID, r.AgentID}] = r
		}
	}
	rows := make([]Written, 0, len(latest))
	for _, r := range latest {
		rows = append(rows, r)
	}
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].TenantID != rows[j].TenantID {
			return rows[i].TenantID < rows[j].TenantID
		}
		return rows[i].AgentID < rows[j].AgentID
	})
	return live.UpdateRows(ctx, rows, at)
}

// fullScores is a full recalculation of every tenant at at, not stored.
func fullScores(t *testing.T, e *Engine, at time.Time) map[AgentRef]agentCalc {
	t.Helper()
	ctx := context.Background()
	ins, err := e.loadInputs(ctx, "", "", at)
	if err != nil {
		t.Fatal(err)
	}
	calcs, _, err := e.scoreAll(ctx, ins, at)
	if err != nil {
		t.Fatal(err)
	}
	out := map[AgentRef]agentCalc{}
	for _, c := range calcs {
		out[AgentRef{c.in.tenant, c.in.agent}] = c
	}
	return out
}

// A burst of injections in the last minute counts at once on the live path.
func TestLiveBurstCountsNow(t *testing.T) {
	ctx := context.Background()
	e := openTest(t)
	ingest(t, e, steady("t", "a", 3, 2, "read_file"))
	live := e.NewLive()
	before, err := live.Update(ctx, []AgentRef{{"t", "a"}}, t0)
	if err != nil || len(before) != 1 {
		t.Fatal(err, before)
	}
	now := t0.Add(90 * time.Second)
	var burst []Event
	for i := 0; i < 5; i++ {
		burst = append(burst, Event{Timestamp: now.Add(-time.Duration(i) * time.Second), TenantID: "t", AgentID: "a", Tool: "read_file", InjectionScore: f(0.97)})
	}
	after, err := live.Update(ctx, ingest(t, e, burst).Touched, now)
	if err != nil || len(after) != 1 {
		t.Fatal(err, after)
	}
	inj := after[0].Components[0]
	if inj.Name != CompInjection || inj.Value < 65 || after[0].Score <= before[0].Score {
		t.Errorf("5 injections in the last minute: injection %v, score %d -> %d", inj.Value, before[0].Score, after[0].Score)
	}
}

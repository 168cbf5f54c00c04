package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lfcli/lf/pkg/agentrisk"
	"github.com/lfcli/lf/pkg/store"
)

func ndjson(t *testing.T, evs []agentrisk.Event) []byte {
	t.Helper()
	var b bytes.Buffer
	for _, e := range evs {
		j, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(j)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// TestLiveVerdictMatchesRecalculation: a burst of events changes the
// agent's verdict as soon as the ingest answered, with the score a full
// recalculation at the same score time then stores.
func TestLiveVerdictMatchesRecalculation(t *testing.T) {
	at := time.Date(2026, 4, 16, 14, 20, 0, 0, time.UTC)
	ts := startServer(t, testConfig(t, "scoreTime: "+at.Format(time.RFC3339)+"\n"))
	var hist []agentrisk.Event
	for a := 0; a < 5; a++ {
		for h := 72; h > 0; h-- {
			for k := 0; k < 3; k++ {
				hist = append(hist, agentrisk.Event{
					Timestamp: at.Add(-time.Duration(h)*time.Hour + time.Duration(k)*time.Minute), TenantID: "t1", AgentID: fmt.Sprintf("a%d", a),
					SessionID: fmt.Sprintf("s%d", h/4), Method: "tools/call", Tool: []string{"read_file", "search_docs"}[k%2], Decision: "allow",
				})
			}
		}
	}
	if code, out := ts.call(t, keyT1, "POST", "/tenants/t1/events", ndjson(t, hist)); code != 200 {
		t.Fatalf("ingest: %d %s", code, out)
	}
	if code, out := ts.call(t, keyT1, "POST", "/tenants/t1/risk/recalculate", nil); code != 200 {
		t.Fatalf("recalculate: %d %s", code, out)
	}
	verdict := func() VerdictResponse {
		t.Helper()
		code, out := ts.call(t, keyT1, "POST", "/verdict", VerdictRequest{TenantID: "t1", AgentID: "a0", Method: "tools/call"})
		var v VerdictResponse
		if code != 200 || json.Unmarshal(out, &v) != nil {
			t.Fatalf("verdict: %d %s", code, out)
		}
		return v
	}
	before := verdict()
	var burst []agentrisk.Event
	for i := 0; i < 40; i++ {
		inj := 0.97
		burst = append(burst, agentrisk.Event{
			Timestamp: at.Add(-time.Duration(i+1) * time.Second), TenantID: "t1", AgentID: "a0", SessionID: "evil",
			Method: "tools/call", Tool: []string{"exec_shell", "db_drop"}[i%2], HighImpact: true, Decision: "deny", InjectionScore: &inj,
		})
	}
	if code, out := ts.call(t, keyT1, "POST", "/tenants/t1/events", ndjson(t, burst)); code != 200 {
		t.Fatalf("ingest: %d %s", code, out)
	}
	live := verdict()
	if !live.Scored || live.Score < before.Score+30 || live.Tier == agentrisk.TierNormal {
		t.Fatalf("verdict right after the burst: %+v (before: score %d)", live, before.Score)
	}
	if code, out := ts.call(t, keyT1, "POST", "/tenants/t1/risk/recalculate", nil); code != 200 {
		t.Fatalf("recalculate: %d %s", code, out)
	}
	code, out := ts.call(t, keyT1, "GET", "/tenants/t1/agents/a0/risk", nil)
	var risk agentrisk.AgentRisk
	if code != 200 || json.Unmarshal(out, &risk) != nil {
		t.Fatalf("risk: %d %s", code, out)
	}
	if risk.Score != live.Score {
		t.Errorf("live score %d, full recalculation at the same time %d", live.Score, risk.Score)
	}
	if v := verdict(); v.Score != live.Score {
		t.Errorf("verdict after the recalculation: %d, want %d", v.Score, live.Score)
	}
}

// A live score read after the latest recalculation began survives that
// recalculation's refresh of the verdict state; one read before it gives way
// to the stored score, keeping the earlier tierSince of the same tier.
func TestRefreshKeepsNewerLiveScores(t *testing.T) {
	ctx := context.Background()
	s := newServer(t, testConfig(t, ""))
	defer s.Close(ctx)
	now := time.Now().UTC()
	if _, err := s.engine.Ingest(ctx, []agentrisk.Event{{Timestamp: now.Add(-time.Minute), TenantID: "t1", AgentID: "a", Tool: "read_file"}}); err != nil {
		t.Fatal(err)
	}
	changes, err := s.recalc.run(ctx, "t1", "", time.Time{})
	if err != nil || len(changes) != 1 || changes[0].NewScore != 0 {
		t.Fatal(err, changes)
	}
	get := func() agentEntry {
		e, err := s.state.agent(ctx, "t1", "a")
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	live := []agentrisk.LiveScore{{TenantID: "t1", AgentID: "a", Score: 70, Tier: agentrisk.TierElevated, At: now}}
	since := now.Add(-time.Hour)
	lastRead, _ := s.engine.LastRecalcOf("t1")
	// Read after the recalculation began: kept.
	if err := s.state.applyLive(ctx, live, lastRead.Add(time.Millisecond), since); err != nil {
		t.Fatal(err)
	}
	if err := s.state.refresh(ctx, "t1", changes); err != nil {
		t.Fatal(err)
	}
	if e := get(); e.state.Score != 70 || !e.state.TierSince.Equal(since) {
		t.Errorf("live score read after the recalculation began was replaced: %+v", e.state)
	}
	// Read before it: the stored score wins.
	if err := s.state.applyLive(ctx, live, lastRead.Add(-time.Millisecond), since); err != nil {
		t.Fatal(err)
	}
	if err := s.state.refresh(ctx, "t1", changes); err != nil {
		t.Fatal(err)
	}
	if e := get(); e.state.Score != 0 || e.state.Tier != agentrisk.TierNormal || !e.liveRead.IsZero() {
		t.Errorf("stale live score survived the refresh: %+v", e)
	}
}

// Concurrent ingests coalesce into live updates; once they all answered,
// every agent's verdict carries the score a recalculation at the same score
// time stores.
func TestConcurrentIngestsLiveScores(t *testing.T) {
	at := time.Date(2026, 4, 16, 14, 20, 0, 0, time.UTC)
	ts := startServer(t, testConfig(t, "scoreTime: "+at.Format(time.RFC3339)+"\n"))
	var wg sync.WaitGroup
	for g := 0; g < 6; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := 0; b < 5; b++ {
				var evs []agentrisk.Event
				for i := 0; i < 40; i++ {
					inj := float64((g*7+b*3+i)%10) / 10
					evs = append(evs, agentrisk.Event{
						Timestamp: at.Add(-time.Duration(g*300+b*60+i) * time.Second), TenantID: "t1", AgentID: fmt.Sprintf("a%d", (g*5+b+i%2)%8),
						Tool: []string{"read_file", "exec_shell", "db_drop"}[i%3], HighImpact: i%4 == 0, Decision: []string{"allow", "deny"}[i%5/4], InjectionScore: &inj,
					})
				}
				if code, out := ts.call(t, keyT1, "POST", "/tenants/t1/events", ndjson(t, evs)); code != 200 {
					t.Errorf("ingest: %d %s", code, out)
				}
				ts.call(t, keyT1, "POST", "/verdict", VerdictRequest{TenantID: "t1", AgentID: fmt.Sprintf("a%d", b), Method: "tools/call"})
			}
		}()
	}
	wg.Wait()
	live := map[string]int{}
	for a := 0; a < 8; a++ {
		code, out := ts.call(t, keyT1, "POST", "/verdict", VerdictRequest{TenantID: "t1", AgentID: fmt.Sprintf("a%d", a), Method: "tools/call"})
		var v VerdictResponse
		if code != 200 || json.Unmarshal(out, &v) != nil || !v.Scored {
			t.Fatalf("verdict: %d %s", code, out)
		}
		live[v.AgentID] = v.Score
	}
	code, out := ts.call(t, keyT1, "POST", "/tenants/t1/risk/recalculate", nil)
	var rr RecalcResponse
	if code != 200 || json.Unmarshal(out, &rr) != nil || len(rr.Changes) != 8 {
		t.Fatalf("recalculate: %d %s", code, out)
	}
	for _, c := range rr.Changes {
		if live[c.AgentID] != c.NewScore {
			t.Errorf("%s: live verdict score %d, recalculation %d", c.AgentID, live[c.AgentID], c.NewScore)
		}
	}
}

// On a replica that did not run the recalculation (it only hears that
// scores changed), a live score gives way to the stored one when that
// recalculation began after the live path's read, and stays otherwise.
func TestFollowerRefreshComparesWithStoredScoreTime(t *testing.T) {
	t.Parallel() // mostly waits (timeouts, sleeps, a child process): runs beside the other tests
	ctx := context.Background()
	path := t.TempDir() + "/lf.db"
	open := func() *Server {
		st, err := store.Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		s, err := New(ctx, testConfig(t, ""), st, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close(ctx) })
		return s
	}
	follower, leader := open(), open()
	now := time.Now().UTC()
	if _, err := follower.engine.Ingest(ctx, []agentrisk.Event{{Timestamp: now.Add(-time.Minute), TenantID: "t1", AgentID: "a", Tool: "read_file"}}); err != nil {
		t.Fatal(err)
	}
	live := []agentrisk.LiveScore{{TenantID: "t1", AgentID: "a", Score: 70, Tier: agentrisk.TierElevated, At: now}}
	score := func() int {
		e, err := follower.state.agent(ctx, "t1", "a")
		if err != nil {
			t.Fatal(err)
		}
		return e.state.Score
	}
	// The leader recalculates after the live read: the stored score wins.
	if err := follower.state.applyLive(ctx, live, time.Now(), now); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1100 * time.Millisecond) // score times have second precision
	if _, err := leader.recalc.run(ctx, "t1", "", time.Time{}); err != nil {
		t.Fatal(err)
	}
	follower.state.refresh(ctx, "t1", nil)
	if got := score(); got != 0 {
		t.Errorf("follower kept a live score older than the leader's recalculation: %d", got)
	}
	// A live read after the leader's recalculation began: kept.
	time.Sleep(1100 * time.Millisecond)
	if err := follower.state.applyLive(ctx, live, time.Now(), now); err != nil {
		t.Fatal(err)
	}
	follower.state.refresh(ctx, "t1", nil)
	if got := score(); got != 70 {
		t.Errorf("live score newer than the leader's recalculation replaced: %d", got)
	}
}

// TestLiveScoresEventOfThisSecond: with the clock (no fixed scoreTime), an
// event from earlier in the current second is scored by the live path at
// once. Score times are whole seconds; truncating instead of rounding up
// left such events out until the next recalculation.
func TestLiveScoresEventOfThisSecond(t *testing.T) {
	ctx := context.Background()
	s := newServer(t, testConfig(t, ""))
	defer s.Close(ctx)
	now := time.Date(2026, 12, 3, 12, 0, 0, 700_000_000, time.UTC)
	s.now = func() time.Time { return now }
	inj := 0.99
	ev := agentrisk.Event{
		Timestamp: now.Add(-400 * time.Millisecond), TenantID: "t1", AgentID: "fresh", SessionID: "s",
		Method: "tools/call", Tool: "read_file", Decision: "deny", InjectionScore: &inj,
	}
	h := s.Handler()
	do := func(path string, body []byte) string {
		req := httptest.NewRequest("POST", path, bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+keyT1)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != 200 {
			t.Fatalf("%s: %d %s", path, w.Code, w.Body)
		}
		return w.Body.String()
	}
	do("/tenants/t1/events", ndjson(t, []agentrisk.Event{ev}))
	out := do("/verdict", []byte(`{"tenantId":"t1","agentId":"fresh","method":"tools/call"}`))
	if !strings.Contains(out, `"scored":true`) {
		t.Fatalf("the verdict right after the ingest does not reflect it: %s", out)
	}
}

// An ingest that fails hands nothing to the live path: no update is queued
// and the agent's verdict keeps its score. One that commits is reflected
// once ingestCommit's ticket has been waited for.
func TestFailedIngestChangesNoLiveScore(t *testing.T) {
	at := time.Date(2026, 4, 16, 14, 20, 0, 0, time.UTC)
	s := newServer(t, testConfig(t, "scoreTime: "+at.Format(time.RFC3339)+"\n"))
	ctx := context.Background()
	burst := func(agent string) []agentrisk.Event {
		var evs []agentrisk.Event
		for i := 0; i < 20; i++ {
			inj := 0.97
			evs = append(evs, agentrisk.Event{
				Timestamp: at.Add(-time.Duration(i+1) * time.Second), TenantID: "t1", AgentID: agent,
				Tool: "exec_shell", HighImpact: true, Decision: "deny", InjectionScore: &inj,
			})
		}
		return evs
	}
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	if _, ticket, err := s.ingestCommit(canceled, burst("a1")); err == nil || ticket != 0 {
		t.Fatalf("ingest with a canceled context: ticket %d, error %v; want an error and no ticket", ticket, err)
	}
	if q := s.state.live.queued; q != 0 {
		t.Errorf("%d live updates queued after a failed ingest", q)
	}
	if e, err := s.state.agent(ctx, "t1", "a1"); err != nil || e.known {
		t.Errorf("after a failed ingest the agent is %+v (%v), want unscored", e.state, err)
	}
	_, ticket, err := s.ingestCommit(ctx, burst("a2"))
	if err != nil || ticket == 0 {
		t.Fatalf("ingest: ticket %d, %v", ticket, err)
	}
	s.waitLive(ticket)
	if e, err := s.state.agent(ctx, "t1", "a2"); err != nil || !e.known || e.state.Score == 0 {
		t.Errorf("after the ingest answered the agent is %+v (%v), want its live score", e.state, err)
	}
}

package agentrisk

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, 4, 16, 12, 0, 0, 0, time.UTC)

func f(x float64) *float64 { return &x }

// steady returns an agent's calm history: calls per hour of the given tools
// over days before t0.
func steady(tenant, agent string, days, perHour int, tools ...string) []Event {
	var out []Event
	start := t0.Add(-time.Duration(days) * 24 * time.Hour)
	n := 0
	for h := start; h.Before(t0); h = h.Add(time.Hour) {
		for k := 0; k < perHour; k++ {
			out = append(out, Event{
				Timestamp: h.Add(time.Duration(k) * time.Minute), TenantID: tenant, AgentID: agent,
				SessionID: fmt.Sprintf("%s-%d", agent, n/10), Method: "tools/call", Tool: tools[n%len(tools)], Resource: "/docs/a.md", Decision: "allow",
			})
			n++
		}
	}
	return out
}

func recalcOne(t *testing.T, e *Engine, tenant, agent string) Change {
	t.Helper()
	ch, err := e.Recalculate(context.Background(), tenant, agent, t0)
	if err != nil {
		t.Fatal(err)
	}
	if len(ch) != 1 {
		t.Fatalf("%d changes", len(ch))
	}
	return ch[0]
}

func comp(c Change, name string) Component {
	for _, x := range c.Components {
		if x.Name == name {
			return x
		}
	}
	return Component{}
}

func ingest(t *testing.T, e *Engine, evs []Event) IngestResult {
	t.Helper()
	r, err := e.Ingest(context.Background(), evs)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestCalmAgentScoresZeroDriftAndNormal(t *testing.T) {
	e := openTest(t)
	ingest(t, e, steady("t", "a", 10, 4, "read_file", "search_docs"))
	c := recalcOne(t, e, "t", "a")
	if v := comp(c, CompToolDrift).Value; v != 0 {
		t.Errorf("drift %v for behaviour matching the baseline", v)
	}
	if v := comp(c, CompAnomaly).Value; v != 0 || !strings.Contains(comp(c, CompAnomaly).Explanation, "needs 3") {
		t.Errorf("anomaly %v without peers: %s", v, comp(c, CompAnomaly).Explanation)
	}
	if c.NewTier != TierNormal || c.NewScore != 0 {
		t.Errorf("calm agent: %d %s", c.NewScore, c.NewTier)
	}
}

func TestInjectionFewStrongRegisterManyWeakDoNot(t *testing.T) {
	e := openTest(t)
	var evs []Event
	for i := 0; i < 3; i++ {
		evs = append(evs, Event{Timestamp: t0.Add(-time.Duration(i+1) * time.Minute), TenantID: "t", AgentID: "strong", InjectionScore: f(0.95)})
	}
	for i := 0; i < 2000; i++ {
		evs = append(evs, Event{Timestamp: t0.Add(-time.Duration(i+1) * time.Second), TenantID: "t", AgentID: "weak", InjectionScore: f(0.1)})
	}
	ingest(t, e, evs)
	strong := comp(recalcOne(t, e, "t", "strong"), CompInjection).Value
	weak := comp(recalcOne(t, e, "t", "weak"), CompInjection).Value
	if strong < 50 {
		t.Errorf("3 strong attempts give %v, want >= 50", strong)
	}
	if weak > 10.5 {
		t.Errorf("2000 weak attempts give %v, want <= 10", weak)
	}
}

func TestDecayLowersOldEvidence(t *testing.T) {
	e := openTest(t)
	ingest(t, e, []Event{
		{Timestamp: t0.Add(-30 * time.Minute), TenantID: "t", AgentID: "new", InjectionScore: f(0.9)},
		{Timestamp: t0.Add(-72*time.Hour - 30*time.Minute), TenantID: "t", AgentID: "old", InjectionScore: f(0.9)},
		{Timestamp: t0.Add(-8 * 24 * time.Hour), TenantID: "t", AgentID: "gone", InjectionScore: f(0.9)},
	})
	n := comp(recalcOne(t, e, "t", "new"), CompInjection).Value
	o := comp(recalcOne(t, e, "t", "old"), CompInjection).Value
	g := comp(recalcOne(t, e, "t", "gone"), CompInjection).Value
	if !(o > 0 && o < n/7 && o > n/9) {
		t.Errorf("3 half-lives: %v vs fresh %v, want about 1/8", o, n)
	}
	if g != 0 {
		t.Errorf("an event older than 7 days still counts: %v", g)
	}
}

func TestFloodingAgentIsHighOrCriticalAmongCalmPeers(t *testing.T) {
	e := openTest(t)
	for i := 0; i < 5; i++ {
		ingest(t, e, steady("t", fmt.Sprintf("calm%d", i), 10, 3, "read_file", "search_docs"))
	}
	bad := steady("t", "bad", 10, 3, "read_file", "search_docs")
	for i := 0; i < 120; i++ {
		tool := []string{"delete_file", "exec_shell", "db_drop"}[i%3]
		ev := Event{
			Timestamp: t0.Add(-time.Duration(i+1) * time.Minute), TenantID: "t", AgentID: "bad", SessionID: fmt.Sprintf("flood-%d", i/30),
			Method: "tools/call", Tool: tool, HighImpact: true, Decision: "deny", Rule: "no-destructive",
		}
		if i%10 == 0 {
			ev.InjectionScore = f(0.97)
		}
		bad = append(bad, ev)
	}
	ingest(t, e, bad)
	ch, err := e.Recalculate(context.Background(), "t", "", t0)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range ch {
		if c.AgentID == "bad" {
			if c.NewTier != TierHigh && c.NewTier != TierCritical {
				t.Errorf("flooding agent: %d %s %+v", c.NewScore, c.NewTier, c.Components)
			}
		} else if c.NewTier != TierNormal {
			t.Errorf("calm peer %s: %d %s", c.AgentID, c.NewScore, c.NewTier)
		}
	}
}

func TestScoresAreDeterministicAndIngestIdempotent(t *testing.T) {
	evs := genSampleEvents()
	run := func(order []Event, twice bool) []Change {
		e := openTest(t)
		ingest(t, e, order)
		if twice {
			r := ingest(t, e, order[:len(order)/2])
			if r.New != 0 || r.Duplicates != len(order)/2 {
				t.Fatalf("re-ingest: %+v", r)
			}
		}
		ch, err := e.Recalculate(context.Background(), "", "", SampleEnd)
		if err != nil {
			t.Fatal(err)
		}
		return ch
	}
	a := run(evs, false)
	rev := make([]Event, len(evs))
	for i := range evs {
		rev[len(evs)-1-i] = evs[i]
	}
	b := run(rev, true)
	for i := range a {
		if a[i].NewScore != b[i].NewScore || fmt.Sprint(a[i].Components) != fmt.Sprint(b[i].Components) {
			t.Errorf("%s: %d vs %d", a[i].AgentID, a[i].NewScore, b[i].NewScore)
		}
	}
}

func TestTenantIsolationAndNotFound(t *testing.T) {
	ctx := context.Background()
	e := openTest(t)
	ingest(t, e, steady("t1", "a", 2, 2, "read_file"))
	ingest(t, e, steady("t2", "b", 2, 2, "read_file"))
	if _, err := e.Recalculate(ctx, "t1", "", t0); err != nil {
		t.Fatal(err)
	}
	list, err := e.ListAll(ctx, "t1")
	if err != nil || len(list) != 1 || list[0].AgentID != "a" {
		t.Fatalf("t1: %+v %v", list, err)
	}
	if _, err := e.GetForAgent(ctx, "t1", "b"); !isNotFound(err) {
		t.Errorf("agent of another tenant: %v", err)
	}
	if _, err := e.GetForAgent(ctx, "t2", "b"); !isNotFound(err) {
		t.Errorf("agent without score: %v", err)
	}
	if _, err := e.Recalculate(ctx, "nope", "", t0); !isNotFound(err) {
		t.Errorf("unknown tenant: %v", err)
	}
	if _, err := e.ListAll(ctx, "nope"); !isNotFound(err) {
		t.Errorf("unknown tenant list: %v", err)
	}
	if err := e.Release(ctx, "t2", "a"); !isNotFound(err) {
		t.Errorf("release across tenants: %v", err)
	}
	if _, err := e.AgentState(ctx, "t1", "zz", t0); !isNotFound(err) {
		t.Errorf("state: %v", err)
	}
}

func TestReleaseHistoryAndState(t *testing.T) {
	ctx := context.Background()
	e := openTest(t)
	ingest(t, e, steady("t", "a", 3, 2, "read_file"))
	for _, d := range []time.Duration{-25 * time.Hour, -30 * time.Minute, 0} {
		if _, err := e.Recalculate(ctx, "t", "", t0.Add(d)); err != nil {
			t.Fatal(err)
		}
	}
	r, err := e.GetForAgent(ctx, "t", "a")
	if err != nil {
		t.Fatal(err)
	}
	if r.Windows[0].SampleCount != 2 || r.Windows[1].SampleCount != 2 {
		t.Errorf("windows: %+v", r.Windows)
	}
	if err := e.Release(ctx, "t", "a"); err != nil {
		t.Fatal(err)
	}
	st, err := e.AgentState(ctx, "t", "a", t0.Add(time.Minute))
	if err != nil || st.OverrideTier != TierNormal || st.SecondsInTier == nil {
		t.Fatalf("state after release: %+v %v", st, err)
	}
	if *st.SecondsInTier < 25*3600 {
		t.Errorf("seconds in tier %v: the tier did not change, so it counts from the first calculation", *st.SecondsInTier)
	}
	if _, err := e.Recalculate(ctx, "t", "a", t0.Add(5*time.Minute)); err != nil {
		t.Fatal(err)
	}
	st, _ = e.AgentState(ctx, "t", "a", t0.Add(6*time.Minute))
	if st.OverrideTier != "" {
		t.Errorf("override survives recalculation: %+v", st)
	}
}

func TestBaselineAndReset(t *testing.T) {
	ctx := context.Background()
	e := openTest(t)
	ingest(t, e, steady("t", "a", 20, 3, "read_file", "read_file", "search_docs"))
	if _, err := e.Recalculate(ctx, "t", "", t0); err != nil {
		t.Fatal(err)
	}
	b, err := e.Baseline(ctx, "t", "a")
	if err != nil {
		t.Fatal(err)
	}
	if b.Baseline.WindowDays != 14 || len(b.Baseline.Tools) != 2 || b.Baseline.Tools[0].ToolName != "read_file" {
		t.Fatalf("baseline: %+v", b)
	}
	if b.Baseline.Tools[0].AvgCallsPerHour != 2 || b.Baseline.Tools[0].StddevCallsPerHour != 0 {
		t.Errorf("read_file: %+v", b.Baseline.Tools[0])
	}
	if len(b.Baseline.Tools[0].CommonPatterns) != 1 || b.Baseline.Tools[0].CommonPatterns[0] != "read_file:/docs/*" {
		t.Errorf("patterns: %v", b.Baseline.Tools[0].CommonPatterns)
	}
	if err := e.ResetBaseline(ctx, "t", "a", t0); err != nil {
		t.Fatal(err)
	}
	c := recalcOne(t, e, "t", "a")
	if v := comp(c, CompToolDrift); v.Value != 0 || !strings.Contains(v.Explanation, "needs") {
		t.Errorf("drift right after a reset: %+v", v)
	}
	b, _ = e.Baseline(ctx, "t", "a")
	if b.Baseline.TotalCalls != 0 || b.Baseline.WindowDays != 0 {
		t.Errorf("baseline after reset: %+v", b.Baseline)
	}
	if err := e.ResetBaseline(ctx, "t", "zz", t0); !isNotFound(err) {
		t.Errorf("reset unknown: %v", err)
	}
}

func isNotFound(err error) bool { return errors.Is(err, ErrNotFound) }

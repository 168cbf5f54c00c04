package agentrisk

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// calmTenant is six calm agents of different volumes and tool sets over ten
// days, so that the peers' spread is not zero.
func calmTenant(tenant string) []Event {
	var evs []Event
	for i := 0; i < 6; i++ {
		tools := []string{"read_file", "search_docs", "list_dir"}[:1+i%3]
		evs = append(evs, steady(tenant, fmt.Sprintf("calm%d", i), 10, 2+i, tools...)...)
	}
	return evs
}

func anomalies(t *testing.T, e *Engine, tenant string, at time.Time) map[string]Component {
	t.Helper()
	ch, err := e.Recalculate(context.Background(), tenant, "", at)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]Component{}
	for _, c := range ch {
		out[c.AgentID] = comp(c, CompAnomaly)
	}
	return out
}

// Seven one-event junk agents (created now, and created two days ago) must
// not move the calm agents' anomaly component: they are not established
// peers.
func TestJunkAgentsDoNotMoveCalmAgents(t *testing.T) {
	for _, age := range []time.Duration{time.Minute, 48 * time.Hour} {
		t.Run(age.String(), func(t *testing.T) {
			e := openTest(t)
			ingest(t, e, calmTenant("t"))
			before := anomalies(t, e, "t", t0)
			var junk []Event
			for i := 0; i < 7; i++ {
				junk = append(junk, Event{Timestamp: t0.Add(-age), TenantID: "t", AgentID: fmt.Sprintf("junk%d", i), Tool: "read_file"})
			}
			ingest(t, e, junk)
			after := anomalies(t, e, "t", t0)
			for i := 0; i < 6; i++ {
				id := fmt.Sprintf("calm%d", i)
				if before[id].Value != after[id].Value || before[id].Explanation != after[id].Explanation {
					t.Errorf("%s: anomaly %v (%s) became %v (%s) after 7 junk agents", id, before[id].Value, before[id].Explanation, after[id].Value, after[id].Explanation)
				}
			}
		})
	}
}

// flood is a burst of denied high-impact calls over three tools in the last
// two hours, every tenth with a strong injection score.
func flood(tenant, agent string) []Event {
	var evs []Event
	for i := 0; i < 120; i++ {
		ev := Event{
			Timestamp: t0.Add(-time.Duration(i+1) * time.Minute), TenantID: tenant, AgentID: agent, SessionID: fmt.Sprintf("%s-flood-%d", agent, i/30),
			Method: "tools/call", Tool: []string{"delete_file", "exec_shell", "db_drop"}[i%3], HighImpact: true, Decision: "deny", Rule: "no-destructive",
		}
		if i%10 == 0 {
			ev.InjectionScore = f(0.97)
		}
		evs = append(evs, ev)
	}
	return evs
}

// When 20 of 24 agents misbehave at once the peer baseline must not move
// with them: they are compared with how the peers were before the burst, and
// their own history (drift) and absolute signals carry them to critical.
func TestMostAgentsMisbehavingStillCritical(t *testing.T) {
	e := openTest(t)
	var evs []Event
	for i := 0; i < 24; i++ {
		id := fmt.Sprintf("a%02d", i)
		evs = append(evs, steady("t", id, 10, 3, "read_file", "search_docs")...)
		if i < 20 {
			evs = append(evs, flood("t", id)...)
		}
	}
	ingest(t, e, evs)
	ch, err := e.Recalculate(context.Background(), "t", "", t0)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range ch {
		var n int
		fmt.Sscanf(c.AgentID, "a%d", &n)
		if n == 0 {
			t.Logf("%s: %d %s, components %v %v %v %v %v", c.AgentID, c.NewScore, c.NewTier, c.Components[0].Value, c.Components[1].Value, c.Components[2].Value, c.Components[3].Value, c.Components[4].Value)
		}
		if n < 20 && c.NewTier != TierCritical {
			t.Errorf("%s (misbehaving with 19 others): %d %s, anomaly %v", c.AgentID, c.NewScore, c.NewTier, comp(c, CompAnomaly).Value)
		}
		if n >= 20 && c.NewTier != TierNormal {
			t.Errorf("%s (calm): %d %s", c.AgentID, c.NewScore, c.NewTier)
		}
	}
}

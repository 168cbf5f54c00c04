package agentrisk

import (
	"context"
	"testing"

	"github.com/lfcli/lf/pkg/store"
)

func openTest(t testing.TB) *Engine {
	t.Helper()
	st, err := store.Open(context.Background(), ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return NewEngine(st)
}

func genSampleEvents() []Event {
	var evs []Event
	Generate(SampleAgents(), SampleEnd, 10, 42, func(e Event) { evs = append(evs, e) })
	return evs
}

func TestSampleTiers(t *testing.T) {
	ctx := context.Background()
	e := openTest(t)
	evs := genSampleEvents()
	res, err := e.Ingest(ctx, evs)
	if err != nil {
		t.Fatal(err)
	}
	if res.New != len(evs) {
		t.Fatalf("ingest: %+v", res)
	}
	ch, err := e.Recalculate(ctx, "", "", SampleEnd)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Tier{"agt_report": TierElevated, "agt_ops": TierHigh, "agt_rogue": TierCritical}
	for _, c := range ch {
		w := want[c.AgentID]
		if w == "" {
			w = TierNormal
		}
		var vals []float64
		for _, k := range c.Components {
			vals = append(vals, k.Value)
		}
		t.Logf("%s/%s %d %s %v", c.TenantID, c.AgentID, c.NewScore, c.NewTier, vals)
		if c.NewTier != w {
			t.Errorf("%s: tier %s (score %d), want %s", c.AgentID, c.NewTier, c.NewScore, w)
		}
	}
}

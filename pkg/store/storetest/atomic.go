package storetest

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/lfcli/lf/pkg/model"
	"github.com/lfcli/lf/pkg/store/backend"
)

// testAtomic checks that an Update whose function fails leaves nothing of
// what it wrote: entities, runs with their values, ingested agents, rules.
func testAtomic(t *testing.T, st backend.Backend) {
	boom := errors.New("boom")
	at := time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)
	err := st.Update(ctx, func(tx backend.Tx) error {
		if _, err := tx.PutEntity(ctx, backend.Entity{Kind: model.KindMethodology, Key: "m", Body: `{"key":"m"}`}); err != nil {
			return err
		}
		if _, err := tx.PutRunYAML(ctx, run("qa", "r1", 1, model.StatusCompleted, 0.5), "y"); err != nil {
			return err
		}
		in, err := tx.EventIngest(ctx)
		if err != nil {
			return err
		}
		defer in.Close()
		if err := in.PutHashSet(ctx, "acme", 10, 0, []byte{1}); err != nil {
			return err
		}
		if err := in.PutAgent(ctx, backend.AgentRow{TenantID: "acme", AgentID: "a", Agg: []byte{1}, FirstEventAt: backend.FormatTime(at), LastEventAt: backend.FormatTime(at)}); err != nil {
			return err
		}
		if err := tx.PutAlertRule(ctx, "acme", "r", `{}`, at); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Update = %v, want the function's error", err)
	}
	es, _ := st.Entities(ctx, model.KindMethodology)
	runs, _ := st.Runs(ctx)
	latest, _ := st.LatestRuns(ctx, nil)
	agents, _ := st.Agents(ctx, "")
	rules, _ := st.AlertRules(ctx, "")
	if len(es)+len(runs)+len(latest)+len(agents)+len(rules) != 0 {
		t.Fatalf("a failed Update left entities %v, runs %v, latest %v, agents %v, rules %v", es, runs, latest, agents, rules)
	}
	must(t, st.Update(ctx, func(tx backend.Tx) error {
		in, err := tx.EventIngest(ctx)
		if err != nil {
			return err
		}
		defer in.Close()
		if b, err := hashSet(in, "acme", 10); err != nil || b != nil {
			t.Errorf("hash set after the failed Update = %v, %v", b, err)
		}
		return nil
	}))
}

// testLargeStreamedRun streams more results than one batch holds: the run
// stays invisible until Finish, then every value is there.
func testLargeStreamedRun(t *testing.T, st backend.Backend) {
	const n = 4500
	w, err := st.BeginRun(ctx, run("scan", "big", 1, "", 0))
	must(t, err)
	for i := 0; i < n; i++ {
		must(t, w.Add(ctx, model.Result{TaskSpecificationKey: fmt.Sprintf("t%05d", i), ScorerKey: "s", Metrics: map[string]float64{"x": float64(i)}}))
	}
	if w.Written() != n {
		t.Fatalf("Written = %d, want %d", w.Written(), n)
	}
	if got, _ := st.LatestRuns(ctx, nil); len(got) != 0 {
		t.Fatalf("a running run is visible: %v", got)
	}
	must(t, w.Finish(ctx, model.StatusCompleted))
	ref := model.RunRef{EvaluationKey: "scan", ID: "big"}
	if got, _ := st.LatestRuns(ctx, nil); len(got) != 1 || got[0] != ref {
		t.Fatalf("latest after finish = %v", got)
	}
	vals, err := st.Values(ctx, ref, "x")
	if err != nil || len(vals) != n {
		t.Fatalf("%d values, %v; want %d", len(vals), err, n)
	}
}

// testConcurrentWriters runs writers at once (connections of one handle:
// separate sessions on a server backend): upserts of one key, runs of one
// evaluation key, and ingests into one agent. Nothing is lost, no write
// fails, and the latest run is the newest of all.
func testConcurrentWriters(t *testing.T, st backend.Backend) {
	const writers = 8
	at := time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)
	var wg sync.WaitGroup
	errs := make(chan error, writers*3)
	for i := 0; i < writers; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			errs <- st.Update(ctx, func(tx backend.Tx) error {
				_, err := tx.PutEntity(ctx, backend.Entity{Kind: model.KindRiskScorer, Key: "shared", Body: fmt.Sprintf(`{"key":"shared","metric":"m%d"}`, i)})
				if err == nil {
					_, err = tx.PutEntity(ctx, backend.Entity{Kind: model.KindRiskScorer, Key: fmt.Sprintf("own-%d", i), Body: `{"key":"x"}`})
				}
				return err
			})
			errs <- st.RecordRun(ctx, run("qa", fmt.Sprintf("r%d", i), 1+i, model.StatusCompleted, float64(i)))
			// Each ingest adds one byte to the agent's aggregate: read, merge,
			// write, as agentrisk does.
			errs <- st.Update(ctx, func(tx backend.Tx) error {
				in, err := tx.EventIngest(ctx)
				if err != nil {
					return err
				}
				defer in.Close()
				r, ok, err := in.Agent(ctx, "acme", "a")
				if err != nil {
					return err
				}
				if !ok {
					r = backend.AgentRow{TenantID: "acme", AgentID: "a", FirstEventAt: backend.FormatTime(at), LastEventAt: backend.FormatTime(at)}
				}
				r.Agg = append(r.Agg, byte(i))
				return in.PutAgent(ctx, r)
			})
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("concurrent write failed: %v", err)
		}
	}
	es, err := st.Entities(ctx, model.KindRiskScorer)
	must(t, err)
	if len(es) != writers+1 {
		t.Fatalf("%d scorers, want %d", len(es), writers+1)
	}
	latest, err := st.LatestRuns(ctx, nil)
	must(t, err)
	if want := fmt.Sprintf("r%d", writers-1); len(latest) != 1 || latest[0].ID != want {
		t.Fatalf("latest = %v, want qa/%s", latest, want)
	}
	agents, err := st.Agents(ctx, "acme")
	must(t, err)
	if len(agents) != 1 || len(agents[0].Agg) != writers {
		t.Fatalf("agent aggregate has %d of %d ingests: %+v", len(agents[0].Agg), writers, agents)
	}
}

// testIngestReads checks what an ingest reads back: stored agents and hour
// sets read in key order (backends may read ahead), a missing agent among
// stored ones, and rows written earlier in the same ingest, also after the
// backend sent them (PruneHashSets in between).
func testIngestReads(t *testing.T, st backend.Backend) {
	at := backend.FormatTime(time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC))
	must(t, st.Update(ctx, func(tx backend.Tx) error {
		in, err := tx.EventIngest(ctx)
		if err != nil {
			return err
		}
		defer in.Close()
		for i := 0; i < 40; i += 2 { // even agents only
			if err := in.PutAgent(ctx, backend.AgentRow{TenantID: "acme", AgentID: fmt.Sprintf("a%02d", i), Agg: []byte{byte(i)}, FirstEventAt: at, LastEventAt: at}); err != nil {
				return err
			}
		}
		for h := int64(100); h < 140; h += 2 {
			if err := in.PutHashSet(ctx, "acme", h, 0, []byte{byte(h)}); err != nil {
				return err
			}
		}
		return nil
	}))
	must(t, st.Update(ctx, func(tx backend.Tx) error {
		in, err := tx.EventIngest(ctx)
		if err != nil {
			return err
		}
		defer in.Close()
		for i := 0; i < 40; i++ {
			r, ok, err := in.Agent(ctx, "acme", fmt.Sprintf("a%02d", i))
			if err != nil {
				return err
			}
			if ok != (i%2 == 0) || (ok && (len(r.Agg) != 1 || r.Agg[0] != byte(i))) {
				t.Errorf("agent a%02d: ok %v, %+v", i, ok, r)
			}
			if ok {
				r.Agg = append(r.Agg, 'x')
				if err := in.PutAgent(ctx, r); err != nil {
					return err
				}
			}
		}
		for h := int64(100); h < 140; h++ {
			b, err := hashSet(in, "acme", h)
			if err != nil {
				return err
			}
			if (h%2 == 0) != (len(b) == 1) {
				t.Errorf("hour %d: set %v", h, b)
			}
		}
		if b, _ := hashSet(in, "globex", 100); b != nil {
			t.Errorf("another tenant's hour: %v", b)
		}
		if err := in.PutHashSet(ctx, "acme", 200, 0, []byte{9, 9}); err != nil {
			return err
		}
		// Written in this ingest, before and after the backend sends it.
		if r, ok, _ := in.Agent(ctx, "acme", "a04"); !ok || string(r.Agg) != "\x04x" {
			t.Errorf("a04 after PutAgent = %v %+v", ok, r)
		}
		if err := in.PruneHashSets(ctx, "acme", 101); err != nil {
			return err
		}
		if r, ok, _ := in.Agent(ctx, "acme", "a06"); !ok || string(r.Agg) != "\x06x" {
			t.Errorf("a06 after prune = %v %+v", ok, r)
		}
		if b, _ := hashSet(in, "acme", 200); len(b) != 2 {
			t.Errorf("hour 200 after prune = %v", b)
		}
		if b, _ := hashSet(in, "acme", 100); b != nil {
			t.Errorf("pruned hour 100 = %v", b)
		}
		return nil
	}))
	agents, err := st.Agents(ctx, "acme")
	must(t, err)
	if len(agents) != 20 || string(agents[19].Agg) != "\x26x" {
		t.Fatalf("agents after the second ingest: %d, last %+v", len(agents), agents[len(agents)-1])
	}
}

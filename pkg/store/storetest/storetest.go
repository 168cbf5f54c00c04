// Package storetest is the conformance suite of store backends: every
// backend (SQLite today, PostgreSQL next) runs Run against a fresh, empty
// store and must pass it unchanged.
package storetest

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/lfcli/lf/pkg/model"
	"github.com/lfcli/lf/pkg/store/backend"
)

// Opener returns a fresh, empty store; the suite closes it.
type Opener func(t *testing.T) backend.Backend

// Run runs every conformance test against stores made by open.
func Run(t *testing.T, open Opener) {
	for _, tc := range []struct {
		name string
		fn   func(*testing.T, backend.Backend)
	}{
		{"Entities", testEntities},
		{"RecordedRuns", testRecordedRuns},
		{"RunHistory", testRunHistory},
		{"RiskPartials", testRiskPartials},
		{"RunsFromFiles", testRunsFromFiles},
		{"StreamedRuns", testStreamedRuns},
		{"AlertRules", testAlertRules},
		{"AlertDeliveries", testAlertDeliveries},
		{"AlertOutbox", testAlertOutbox},
		{"RiskConfigs", testRiskConfigs},
		{"AgentsAndScores", testAgents},
		{"GarbageOfLiveWriterKept", testGCKeepsLiveWriter},
		{"Apps", testApps},
		{"UpdateIsAtomic", testAtomic},
		{"LargeStreamedRun", testLargeStreamedRun},
		{"ConcurrentWriters", testConcurrentWriters},
		{"IngestReads", testIngestReads},
		{"HashChunks", testHashChunks},
		{"HashChunksRolledBack", testHashChunksRolledBack},
		{"HashChunksConcurrentWriters", testHashChunksConcurrent},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := open(t)
			defer st.Close()
			tc.fn(t, st)
		})
	}
}

var ctx = context.Background()

func run(key, id string, day int, status string, acc float64) model.EvaluationRun {
	return model.EvaluationRun{
		EvaluationKey: key, ID: id, Status: status,
		CreatedAt: time.Date(2026, 11, day, 0, 0, 0, 0, time.UTC),
		Results:   []model.Result{{TaskSpecificationKey: "t", ScorerKey: "s", Metrics: map[string]float64{"accuracy": acc, "f1": 1}}},
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func testEntities(t *testing.T, st backend.Backend) {
	e := backend.Entity{Kind: model.KindMethodology, Key: "m", Body: `{"key":"m","function":"value"}`, YAML: "- key: m\n"}
	var outs []backend.Outcome
	for _, body := range []string{e.Body, e.Body, `{"key":"m","function":"2*value"}`} {
		e.Body = body
		must(t, st.Update(ctx, func(tx backend.Tx) error {
			o, err := tx.PutEntity(ctx, e)
			outs = append(outs, o)
			return err
		}))
	}
	if want := []backend.Outcome{backend.Created, backend.Unchanged, backend.Updated}; !reflect.DeepEqual(outs, want) {
		t.Fatalf("outcomes = %v, want %v", outs, want)
	}
	ms, err := st.Methodologies(ctx)
	must(t, err)
	if len(ms) != 1 || ms["m"].Function != "2*value" {
		t.Fatalf("methodologies = %+v", ms)
	}
	var found bool
	must(t, st.Update(ctx, func(tx backend.Tx) (err error) {
		found, err = tx.DeleteEntity(ctx, model.KindMethodology, "m")
		return err
	}))
	if es, _ := st.Entities(ctx, model.KindMethodology); !found || len(es) != 0 {
		t.Fatalf("after delete: found %v, left %v", found, es)
	}
}

func testRecordedRuns(t *testing.T, st backend.Backend) {
	for _, r := range []model.EvaluationRun{
		run("qa", "r1", 1, model.StatusCompleted, 0.1),
		run("qa", "r3", 3, model.StatusFailed, 0.3),
		run("qa", "r2", 2, model.StatusCompleted, 0.2),
		run("other", "b", 5, model.StatusCompleted, 0.5),
		run("other", "a", 5, model.StatusCompleted, 0.4),
		run("running", "x", 9, model.StatusRunning, 0.9),
	} {
		must(t, st.RecordRun(ctx, r))
	}
	got, err := st.LatestRuns(ctx, nil)
	must(t, err)
	want := []model.RunRef{{EvaluationKey: "other", ID: "b"}, {EvaluationKey: "qa", ID: "r2"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("latest = %v, want %v", got, want)
	}
	vals, err := st.Values(ctx, model.RunRef{EvaluationKey: "qa", ID: "r2"}, "accuracy")
	if err != nil || len(vals) != 1 || vals[0].Value != 0.2 {
		t.Fatalf("values = %v, %v", vals, err)
	}
	must(t, st.Update(ctx, func(tx backend.Tx) error { return tx.DeleteRun(ctx, "qa", "r2") }))
	got, _ = st.LatestRuns(ctx, []string{"qa", "running", "missing"})
	if want := []model.RunRef{{EvaluationKey: "qa", ID: "r1"}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("after delete = %v, want %v", got, want)
	}
	must(t, st.RecordRun(ctx, run("qa", "r1", 1, model.StatusCompleted, 0.7)))
	back, err := st.Run(ctx, "qa", "r1")
	if err != nil || back == nil || back.Results[0].Metrics["accuracy"] != 0.7 || len(back.Results[0].Metrics) != 2 {
		t.Fatalf("run = %+v, %v", back, err)
	}
	rows, err := st.Runs(ctx)
	must(t, err)
	if len(rows) != 5 || rows[0].EvaluationKey != "other" || rows[0].Values != 2 {
		t.Fatalf("runs = %+v", rows)
	}
}

func testRunsFromFiles(t *testing.T, st backend.Backend) {
	r := run("qa", "f1", 1, model.StatusCompleted, 0.5)
	var outs []backend.Outcome
	for _, y := range []string{"a", "a", "b"} {
		must(t, st.Update(ctx, func(tx backend.Tx) error {
			o, err := tx.PutRunYAML(ctx, r, y)
			outs = append(outs, o)
			return err
		}))
	}
	if want := []backend.Outcome{backend.Created, backend.Unchanged, backend.Updated}; !reflect.DeepEqual(outs, want) {
		t.Fatalf("outcomes = %v, want %v", outs, want)
	}
}

func testStreamedRuns(t *testing.T, st backend.Backend) {
	head := run("scan", "s1", 1, "", 0)
	w, err := st.BeginRun(ctx, head)
	must(t, err)
	for i := 0; i < 3; i++ {
		must(t, w.Add(ctx, model.Result{TaskSpecificationKey: string(rune('a' + i)), ScorerKey: "s", Metrics: map[string]float64{"x": float64(i)}}))
	}
	if got, _ := st.LatestRuns(ctx, []string{"scan"}); len(got) != 0 {
		t.Fatalf("a running run is visible: %v", got)
	}
	// A live writer's run is never garbage.
	res, err := st.CollectGarbage(ctx)
	must(t, err)
	if len(res.Runs) != 0 {
		t.Fatalf("gc removed a live run: %v", res.Runs)
	}
	must(t, w.Finish(ctx, model.StatusCompleted))
	back, err := st.Run(ctx, "scan", "s1")
	if err != nil || back == nil || back.Status != model.StatusCompleted || len(back.Results) != 3 {
		t.Fatalf("finished run = %+v, %v", back, err)
	}
	w2, err := st.BeginRun(ctx, run("scan", "s2", 2, "", 0))
	must(t, err)
	must(t, w2.Abort(ctx))
	if r, _ := st.Run(ctx, "scan", "s2"); r != nil {
		t.Fatalf("aborted run kept: %+v", r)
	}
}

func testAlertRules(t *testing.T, st backend.Backend) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	must(t, st.Update(ctx, func(tx backend.Tx) error {
		if err := tx.PutAlertRule(ctx, "t1", "r1", `{"id":"r1"}`, at); err != nil {
			return err
		}
		return tx.PutAlertRule(ctx, "t2", "r1", `{"id":"r1","x":1}`, at)
	}))
	must(t, st.Update(ctx, func(tx backend.Tx) error {
		states, err := tx.AlertStates(ctx)
		if err != nil {
			return err
		}
		defer states.Close()
		if _, known, err := states.Above(ctx, "t1", "r1", "a"); err != nil || known {
			t.Errorf("state before any write: known %v, %v", known, err)
		}
		if err := states.Set(ctx, "t1", "r1", "a", true, at); err != nil {
			return err
		}
		if above, known, err := states.Above(ctx, "t1", "r1", "a"); err != nil || !known || !above {
			t.Errorf("state = %v %v %v", above, known, err)
		}
		return nil
	}))
	bodies, err := st.AlertRules(ctx, "t1")
	must(t, err)
	if !reflect.DeepEqual(bodies, []string{`{"id":"r1"}`}) {
		t.Fatalf("rules of t1 = %v", bodies)
	}
	if all, _ := st.AlertRules(ctx, ""); len(all) != 2 {
		t.Fatalf("all rules = %v", all)
	}
	must(t, st.Update(ctx, func(tx backend.Tx) error {
		found, err := tx.DeleteAlertRule(ctx, "t1", "r1")
		if !found {
			t.Error("delete found no rule")
		}
		if again, _ := tx.DeleteAlertRule(ctx, "t1", "r1"); again {
			t.Error("deleted twice")
		}
		return err
	}))
}

func testAlertDeliveries(t *testing.T, st backend.Backend) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 1; i <= 3; i++ {
		must(t, st.RecordAlertDelivery(ctx, backend.AlertDelivery{TenantID: "t", RuleID: "r", AgentID: "a", AlertID: "x", Channel: "webhook", Target: "u", Attempt: i, Status: "retrying", Time: at}))
	}
	ds, err := st.AlertDeliveries(ctx, "t", 2)
	must(t, err)
	if len(ds) != 2 || ds[0].Attempt != 3 || !ds[0].Time.Equal(at) {
		t.Fatalf("deliveries = %+v", ds)
	}
}

// testAlertOutbox: alerts written in a transaction are listed when their
// lease is due, claimed by one claimer only, and gone once deleted.
func testAlertOutbox(t *testing.T, st backend.Backend) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	must(t, st.Update(ctx, func(tx backend.Tx) error {
		for i, id := range []string{"alr_b", "alr_a"} {
			a := backend.OutboxAlert{AlertID: id, TenantID: "t", RuleID: "r", AgentID: "a", Body: `{"alertId":"` + id + `"}`, CreatedAt: now.Add(time.Duration(i) * time.Second)}
			if err := tx.PutOutboxAlert(ctx, a); err != nil {
				return err
			}
		}
		return nil
	}))
	due, err := st.OutboxAlerts(ctx, now, 10)
	must(t, err)
	if len(due) != 2 || due[0].AlertID != "alr_b" || due[1].Body != `{"alertId":"alr_a"}` || !due[0].CreatedAt.Equal(now) {
		t.Fatalf("outbox = %+v", due)
	}
	ok, err := st.ClaimOutboxAlert(ctx, "alr_b", now, now.Add(time.Minute))
	must(t, err)
	if again, _ := st.ClaimOutboxAlert(ctx, "alr_b", now, now.Add(time.Minute)); !ok || again {
		t.Fatalf("claims: first %v, second %v; want true, false", ok, again)
	}
	if due, _ := st.OutboxAlerts(ctx, now, 10); len(due) != 1 || due[0].AlertID != "alr_a" {
		t.Fatalf("a leased alert is due: %+v", due)
	}
	if due, _ := st.OutboxAlerts(ctx, now.Add(time.Minute), 10); len(due) != 2 {
		t.Fatalf("an alert whose lease ended is not due: %+v", due)
	}
	must(t, st.DeleteOutboxAlert(ctx, "alr_b"))
	if due, _ := st.OutboxAlerts(ctx, now.Add(time.Hour), 10); len(due) != 1 {
		t.Fatalf("after delete: %+v", due)
	}
}

func testRiskConfigs(t *testing.T, st backend.Backend) {
	at := time.Now()
	must(t, st.PutRiskConfig(ctx, "t1", `{"a":1}`, at))
	must(t, st.Update(ctx, func(tx backend.Tx) error {
		return tx.ReplaceRiskConfigs(ctx, []backend.TenantBody{{TenantID: "t2", Body: `{"b":2}`}}, at)
	}))
	all, err := st.RiskConfigs(ctx)
	must(t, err)
	if !reflect.DeepEqual(all, []backend.TenantBody{{TenantID: "t2", Body: `{"b":2}`}}) {
		t.Fatalf("configs = %v", all)
	}
	if _, ok, _ := st.RiskConfig(ctx, "t1"); ok {
		t.Fatal("replaced config kept")
	}
	if ok, _ := st.HasRiskConfig(ctx, "t2"); !ok {
		t.Fatal("config of t2 missing")
	}
}

// testAgents checks agents, their scores and overrides, per tenant.
func testAgents(t *testing.T, st backend.Backend) {
	first := backend.FormatTime(time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC))
	must(t, st.Update(ctx, func(tx backend.Tx) error {
		in, err := tx.EventIngest(ctx)
		if err != nil {
			return err
		}
		defer in.Close()
		if err := checkHashSets(t, in); err != nil {
			return err
		}
		// The same agent id in two tenants is two agents.
		for _, tenant := range []string{"acme", "globex"} {
			if err := in.PutAgent(ctx, backend.AgentRow{TenantID: tenant, AgentID: "a", AgentName: "bot", Agg: []byte{1, 2}, FirstEventAt: first, LastEventAt: first}); err != nil {
				return err
			}
		}
		return nil
	}))
	agents, err := st.Agents(ctx, "")
	must(t, err)
	if len(agents) != 2 || agents[0].TenantID != "acme" || !reflect.DeepEqual(agents[1].Agg, []byte{1, 2}) {
		t.Fatalf("agents = %+v", agents)
	}
	if ts, _ := st.TenantsOfAgent(ctx, "a"); !reflect.DeepEqual(ts, []string{"acme", "globex"}) {
		t.Fatalf("tenants of a = %v", ts)
	}
	must(t, st.Update(ctx, func(tx backend.Tx) error {
		w, err := tx.ScoreWriter(ctx)
		if err != nil {
			return err
		}
		defer w.Close()
		for i, tenant := range []string{"acme", "globex"} {
			if err := w.Put(ctx, backend.AgentScoreRow{TenantID: tenant, AgentID: "a", Score: 10 * (i + 1), Tier: "normal", TierSince: first, CalculatedAt: first, Components: "[]", Baseline: "{}"}); err != nil {
				return err
			}
		}
		return nil
	}))
	list, err := st.AgentScoreList(ctx, "")
	must(t, err)
	if len(list) != 2 || list[0].TenantID != "globex" || list[0].AgentName != "bot" {
		t.Fatalf("scores = %+v", list)
	}
	must(t, st.SetAgentOverride(ctx, "acme", "a", "normal"))
	r, ok, err := st.AgentScore(ctx, "acme", "a")
	if err != nil || !ok || r.Score != 10 || r.OverrideTier != "normal" {
		t.Fatalf("score = %+v %v %v", r, ok, err)
	}
	if s, ok, _ := st.AgentScoreAt(ctx, "globex", "a", first); !ok || s != 20 {
		t.Fatalf("score at = %v %v", s, ok)
	}
}

// checkHashSets checks the ingest hash sets per (tenant, hour): replaced
// whole, pruned by hour, none in another tenant, no legacy hashes.
func checkHashSets(t *testing.T, in backend.EventIngest) error {
	for _, hour := range []int64{100, 101, 102} {
		if err := in.PutHashSet(ctx, "acme", hour, 0, []byte{byte(hour)}); err != nil {
			return err
		}
	}
	if err := in.PutHashSet(ctx, "acme", 101, 0, []byte{1, 2}); err != nil {
		return err
	}
	if b, err := hashSet(in, "acme", 101); err != nil || !reflect.DeepEqual(b, []byte{1, 2}) {
		t.Errorf("hash set 101 = %v, %v", b, err)
	}
	if b, err := hashSet(in, "globex", 101); err != nil || b != nil {
		t.Errorf("hash set of another tenant = %v, %v", b, err)
	}
	if err := in.PruneHashSets(ctx, "acme", 102); err != nil {
		return err
	}
	if b, _ := hashSet(in, "acme", 101); b != nil {
		t.Errorf("pruned hash set kept: %v", b)
	}
	if h, ok, err := in.LatestHashHour(ctx, "acme"); err != nil || !ok || h != 102 {
		t.Errorf("latest hash hour = %d %v %v", h, ok, err)
	}
	if _, ok, err := in.LatestHashHour(ctx, "globex"); err != nil || ok {
		t.Errorf("latest hash hour of a tenant without sets: %v %v", ok, err)
	}
	if _, ok, err := in.LegacyHashes(ctx); err != nil || ok {
		t.Errorf("a new store has legacy hashes: %v %v", ok, err)
	}
	return nil
}

func testGCKeepsLiveWriter(t *testing.T, st backend.Backend) {
	must(t, st.RecordRun(ctx, run("file", "r", 1, model.StatusRunning, 0)))
	res, err := st.CollectGarbage(ctx)
	must(t, err)
	if len(res.Runs) != 0 {
		t.Fatalf("gc removed a run without a writer: %v", res.Runs)
	}
}

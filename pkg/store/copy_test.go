package store_test

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/lfcli/lf/pkg/model"
	"github.com/lfcli/lf/pkg/store"
	"github.com/lfcli/lf/pkg/store/backend"
	"github.com/lfcli/lf/pkg/store/postgres/pgtest"
	"github.com/lfcli/lf/pkg/store/storetest"
)

// fill writes a little of everything a store holds.
func fill(t *testing.T, st *store.Store) {
	ctx := context.Background()
	at := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	err := st.Update(ctx, func(tx backend.Tx) error {
		if _, err := tx.PutEntity(ctx, backend.Entity{Kind: model.KindMethodology, Key: "m", Body: `{"key":"m","function":"value"}`, YAML: "- key: m\n"}); err != nil {
			return err
		}
		in, err := tx.EventIngest(ctx)
		if err != nil {
			return err
		}
		defer in.Close()
		if err := in.PutHashSet(ctx, "acme", 493000, 0, []byte{0, 1, 2, 255}); err != nil {
			return err
		}
		// An hour in two chunks: both are copied.
		if err := in.AddHashChunk(ctx, "acme", 493000, 1, []byte{3, 4}); err != nil {
			return err
		}
		if err := in.PutAgent(ctx, backend.AgentRow{TenantID: "acme", AgentID: "a", Agg: []byte{9, 0, 9}, FirstEventAt: backend.FormatTime(at), LastEventAt: backend.FormatTime(at)}); err != nil {
			return err
		}
		return tx.PutAlertRule(ctx, "acme", "r", `{"id":"r"}`, at)
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		r := model.EvaluationRun{
			EvaluationKey: "qa", ID: fmt.Sprintf("r%d", i), Status: model.StatusCompleted, CreatedAt: at.Add(time.Duration(i) * time.Hour),
			Results: []model.Result{{TaskSpecificationKey: "t", ScorerKey: "s", Metrics: map[string]float64{"acc": 0.1 * float64(i), "f1": 1.0 / 3}}},
		}
		if err := st.RecordRun(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.RecordAlertDelivery(ctx, backend.AlertDelivery{TenantID: "acme", RuleID: "r", AgentID: "a", AlertID: "x", Channel: "webhook", Target: "u", Attempt: 1, Status: "delivered", Time: at}); err != nil {
		t.Fatal(err)
	}
}

func openURL(t *testing.T, url string) *store.Store {
	st, err := store.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func rowsOf(res store.CopyResult) map[string][2]int64 {
	m := map[string][2]int64{}
	for _, t := range res.Tables {
		m[t.Name] = [2]int64{t.Source, t.After}
	}
	return m
}

// TestCopySQLitePostgresAndBack copies a SQLite store into PostgreSQL and
// back, twice each way: every table arrives with the same checksum, and the
// second copy changes nothing.
func TestCopySQLitePostgresAndBack(t *testing.T) {
	ctx := context.Background()
	a := openURL(t, filepath.Join(t.TempDir(), "a.db"))
	fill(t, a)
	// A table without a primary key: a re-run must not add its row twice.
	if _, err := storetest.SQLiteFile(t, a.Path).Exec(`INSERT INTO agentrisk_seen_legacy (until_hour, kept) VALUES (42, 1)`); err != nil {
		t.Fatal(err)
	}
	pg := openURL(t, pgtest.New(t))
	b := openURL(t, filepath.Join(t.TempDir(), "b.db"))

	there, err := store.Copy(ctx, a, pg, nil)
	if err != nil {
		t.Fatal(err)
	}
	again, err := store.Copy(ctx, a, pg, nil)
	if err != nil {
		t.Fatal(err)
	}
	back, err := store.Copy(ctx, pg, b, nil)
	if err != nil {
		t.Fatal(err)
	}
	sums := map[string]string{}
	filled := map[string]bool{
		"entities": true, "evaluation_runs": true, "metric_values": true, "agentrisk_agents": true,
		"agentrisk_seen_hours": true, "agentrisk_seen_legacy": true, "alert_rules": true, "alert_deliveries": true,
	}
	for _, tb := range there.Tables {
		sums[tb.Name] = tb.Checksum
		if filled[tb.Name] && tb.Source == 0 {
			t.Errorf("table %s copied no rows", tb.Name)
		}
		delete(filled, tb.Name)
	}
	if len(filled) > 0 {
		t.Errorf("tables not copied: %v", filled)
	}
	for _, tb := range back.Tables {
		if sums[tb.Name] != tb.Checksum {
			t.Errorf("table %s: checksum %s there, %s back", tb.Name, sums[tb.Name], tb.Checksum)
		}
	}
	if !reflect.DeepEqual(rowsOf(there), rowsOf(again)) {
		t.Errorf("second copy changed row counts: %v then %v", rowsOf(there), rowsOf(again))
	}
	backAgain, err := store.Copy(ctx, pg, b, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := rowsOf(backAgain)["agentrisk_seen_legacy"]; got != [2]int64{1, 1} {
		t.Errorf("a table without a key copied twice into SQLite: %v", got)
	}
	if m := rowsOf(there); m["metric_values"] != [2]int64{6, 6} || m["latest_runs"][1] != 1 || m["agentrisk_seen_legacy"] != [2]int64{1, 1} ||
		m["agentrisk_seen_hours"] != [2]int64{2, 2} {
		t.Errorf("counts = %v", m)
	}
	// What scoring reads is the same at both ends.
	for _, st := range []*store.Store{pg, b} {
		refs, err := st.LatestRuns(ctx, nil)
		if err != nil || len(refs) != 1 || refs[0].ID != "r2" {
			t.Fatalf("%s: latest = %v, %v", st.Path, refs, err)
		}
		vals, err := st.Values(ctx, refs[0], "f1")
		if err != nil || len(vals) != 1 || vals[0].Value != 1.0/3 {
			t.Fatalf("%s: values = %v, %v", st.Path, vals, err)
		}
		agents, err := st.Agents(ctx, "")
		if err != nil || len(agents) != 1 || !reflect.DeepEqual(agents[0].Agg, []byte{9, 0, 9}) {
			t.Fatalf("%s: agents = %+v, %v", st.Path, agents, err)
		}
	}
	// Deliveries copied with their numbers continue after them.
	if err := pg.RecordAlertDelivery(ctx, backend.AlertDelivery{TenantID: "acme", RuleID: "r", AgentID: "a", AlertID: "y", Channel: "webhook", Target: "u", Attempt: 1, Status: "delivered", Time: time.Now()}); err != nil {
		t.Fatal(err)
	}
	ds, _ := pg.AlertDeliveries(ctx, "acme", 0)
	if len(ds) != 2 || ds[0].Seq != 2 {
		t.Fatalf("deliveries after copy = %+v", ds)
	}
}

// TestCopyMergesIntoAStoreWithRows keeps the destination's own rows and
// recomputes the latest runs from both.
func TestCopyMergesIntoAStoreWithRows(t *testing.T) {
	ctx := context.Background()
	a := openURL(t, filepath.Join(t.TempDir(), "a.db"))
	fill(t, a)
	pg := openURL(t, pgtest.New(t))
	newer := model.EvaluationRun{EvaluationKey: "qa", ID: "z", Status: model.StatusCompleted, CreatedAt: time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)}
	if err := pg.RecordRun(ctx, newer); err != nil {
		t.Fatal(err)
	}
	res, err := store.Copy(ctx, a, pg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if m := rowsOf(res); m["evaluation_runs"] != [2]int64{3, 4} {
		t.Fatalf("evaluation_runs = %v", m["evaluation_runs"])
	}
	refs, _ := pg.LatestRuns(ctx, nil)
	if len(refs) != 1 || refs[0].ID != "z" {
		t.Fatalf("latest = %v", refs)
	}
}

package server

import (
	"context"
	"net/http"
	"regexp"
	"testing"
	"time"

	"github.com/lfcli/lf/pkg/model"
	"github.com/lfcli/lf/pkg/store"
)

// reportAtRuns are the runs of TestReportAt, added in an order other than
// their created_at.
var reportAtRuns = []model.EvaluationRun{
	{
		EvaluationKey: "qa", ID: "late", CreatedAt: time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC), Status: model.StatusCompleted,
		Results: []model.Result{{TaskSpecificationKey: "t", ScorerKey: "k", Metrics: map[string]float64{"m": 0.1}}},
	},
	{
		EvaluationKey: "qa", ID: "early", CreatedAt: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), Status: model.StatusCompleted,
		Results: []model.Result{{TaskSpecificationKey: "t", ScorerKey: "k", Metrics: map[string]float64{"m": 0.9}}},
	},
	{
		EvaluationKey: "qa", ID: "mid", CreatedAt: time.Date(2026, 11, 10, 0, 0, 0, 0, time.UTC), Status: model.StatusCompleted,
		Results: []model.Result{{TaskSpecificationKey: "t", ScorerKey: "k", Metrics: map[string]float64{"m": 0.5}}},
	},
}

// fillReportStore stores a methodology, a scorer and the runs created at or
// before upTo (every run when upTo is zero).
func fillReportStore(t *testing.T, st *store.Store, upTo time.Time) {
	t.Helper()
	ctx := context.Background()
	err := st.Update(ctx, func(tx store.Tx) error {
		if _, err := tx.PutEntity(ctx, store.Entity{Kind: model.KindMethodology, Key: "lin", Body: `{"key":"lin","display_name":"L","function":"(1 - value) * 10"}`}); err != nil {
			return err
		}
		_, err := tx.PutEntity(ctx, store.Entity{Kind: model.KindRiskScorer, Key: "acc_risk", Body: `{"key":"acc_risk","display_name":"A","domain":"quality","risk_scoring_methodology_key":"lin","scope":"all_latest","metric":"m","aggregation":"mean"}`})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range reportAtRuns {
		if upTo.IsZero() || !r.CreatedAt.After(upTo) {
			if err := st.RecordRun(ctx, r); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// reportMoment is what differs between two reports of the same data: when
// each was generated, and the moment an as-of report says it shows.
var reportMoment = regexp.MustCompile(`Generated [^·<]*|· risk scorers and AgentLeak scans as of <b class="asof">[^<]*</b> \([^)]*\) `)

// TestReportAt: GET /report?at=TIME (RFC 3339 or a time ago) is the report
// of a store holding only the runs created up to TIME; a moment it cannot
// read, or ?at= on a tenant's report, is a 400 naming the parameter.
func TestReportAt(t *testing.T) {
	full := startServer(t, testConfig(t, ""))
	fillReportStore(t, full.store, time.Time{})
	for _, at := range []time.Time{
		time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2026, 11, 10, 0, 0, 0, 0, time.UTC),
		time.Date(2026, 11, 15, 0, 0, 0, 0, time.UTC),
	} {
		then := startServer(t, testConfig(t, ""))
		fillReportStore(t, then.store, at)
		code, got := full.call(t, keyAdmin, "GET", "/report?at="+at.Format(time.RFC3339), nil)
		if code != http.StatusOK {
			t.Fatalf("?at=%s: %d %s", at.Format(time.RFC3339), code, got)
		}
		if !regexp.MustCompile(`as of <b class="asof">` + at.Format(time.RFC3339)).Match(got) {
			t.Errorf("?at=%s: the page does not say the moment", at.Format(time.RFC3339))
		}
		_, want := then.call(t, keyAdmin, "GET", "/report", nil)
		if g, w := reportMoment.ReplaceAllString(string(got), ""), reportMoment.ReplaceAllString(string(want), ""); g != w {
			t.Errorf("?at=%s differs from the store of that moment:\n got %.2000s\nwant %.2000s", at.Format(time.RFC3339), g, w)
		}
	}
	if code, out := full.call(t, keyAdmin, "GET", "/report?at=7d", nil); code != http.StatusOK {
		t.Errorf("?at=7d: %d %s", code, out)
	}
	for _, c := range []struct{ key, path string }{
		{keyAdmin, "/report?at=yesterday"},
		{keyT1, "/report?at=7d"},
		{keyT1, "/tenants/t1/report?at=7d"},
	} {
		code, out := full.call(t, c.key, "GET", c.path, nil)
		if code != http.StatusBadRequest || !regexp.MustCompile(`"field": ?"at"`).Match(out) {
			t.Errorf("GET %s: %d %s, want 400 on field at", c.path, code, out)
		}
	}
}

package project

import (
	"context"
	"time"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/model"
	"github.com/lfcli/lf/pkg/risk"
	"github.com/lfcli/lf/pkg/store"
)

// timeline adapts the store's RunTimeline to risk.Timeline.
type timeline struct{ st *store.Store }

// RunTimeline returns the completed runs of keys (every key when nil) in
// (created_at, id) order.
func (t timeline) RunTimeline(ctx context.Context, keys []string) ([]risk.TimedRun, error) {
	rows, err := t.st.RunTimeline(ctx, keys)
	if err != nil {
		return nil, err
	}
	out := make([]risk.TimedRun, len(rows))
	for i, r := range rows {
		out[i] = risk.TimedRun{RunRef: risk.RunRef{EvaluationKey: r.EvaluationKey, ID: r.ID}, CreatedAt: r.CreatedAt}
	}
	return out, nil
}

// Histories computes the history of the stored risk scorers that pass f
// (f.At is ignored): one point per moment a run entered a scorer's scope.
func Histories(ctx context.Context, st *store.Store, f OverviewFilter) ([]risk.History, error) {
	var scorers []*model.RiskScorer
	var err error
	if len(f.Keys) > 0 {
		scorers, err = st.RiskScorersOf(ctx, f.Keys) // not every scorer's body
	} else {
		scorers, err = st.RiskScorers(ctx)
	}
	if err != nil {
		return nil, diag.Internal(err)
	}
	methods, err := st.Methodologies(ctx)
	if err != nil {
		return nil, diag.Internal(err)
	}
	selected, missing := f.apply(scorers)
	if len(missing) > 0 {
		return nil, diag.Invalidf("risk scorer %q not found", missing[0])
	}
	hs, err := risk.Histories(ctx, st, timeline{st}, methods, selected)
	if err != nil {
		return nil, diag.Internal(err)
	}
	for _, h := range hs {
		for i := range h.Points {
			// Stored times are fixed-width; show them as RFC 3339 does.
			if t, err := time.Parse(time.RFC3339Nano, h.Points[i].At); err == nil {
				h.Points[i].At = t.UTC().Format(time.RFC3339Nano)
			}
		}
	}
	return hs, nil
}

package project

import (
	"context"
	"time"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/risk"
	"github.com/lfcli/lf/pkg/store"
)

// asOf is the store as scoring saw it at a moment: the latest run of each
// evaluation key is the latest completed run created at or before at. The
// entities (methodologies, risk scorers) are the stored ones.
type asOf struct {
	st *store.Store
	at string // store.TimeFormat
}

// LatestRuns returns the latest completed run created at or before the
// moment of each key in keys (of every key when keys is nil).
func (a asOf) LatestRuns(ctx context.Context, keys []string) ([]risk.RunRef, error) {
	return a.st.LatestRunsAt(ctx, keys, a.at)
}

// Values reads the values of metric in run from the store.
func (a asOf) Values(ctx context.Context, run risk.RunRef, metric string) ([]risk.Value, error) {
	return a.st.Values(ctx, run, metric)
}

// source is what scoring reads for f: the store's latest runs, or the
// runs as of f.At when it is set.
func (f OverviewFilter) source(st *store.Store) risk.Source {
	if f.At.IsZero() {
		return st
	}
	return asOf{st: st, at: store.FormatTime(f.At)}
}

// RunsAt reports whether any completed run was created at or before at: an
// overview as of a moment before every run sees nothing, which a gate must
// not take for a pass.
func RunsAt(ctx context.Context, st *store.Store, at time.Time) (bool, error) {
	runs, err := st.LatestRunsAt(ctx, nil, store.FormatTime(at))
	if err != nil {
		return false, diag.Internal(err)
	}
	return len(runs) > 0, nil
}

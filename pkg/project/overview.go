package project

import (
	"context"
	"sort"
	"time"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/model"
	"github.com/lfcli/lf/pkg/risk"
	"github.com/lfcli/lf/pkg/store"
)

// OverviewFilter narrows the risk-scorer overview.
type OverviewFilter struct {
	Keys   []string // only these risk scorers (all when empty)
	Domain string   // only this domain (all when empty)
	// At scores as of this moment: the latest completed run of each
	// evaluation key created at or before it (the zero time: the latest).
	At time.Time
}

// Overview scores the stored risk scorers that pass the filter, sorted by key.
func Overview(ctx context.Context, st *store.Store, f OverviewFilter) ([]risk.Result, error) {
	scorers, err := st.RiskScorers(ctx)
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
	res, err := risk.Score(ctx, f.source(st), methods, selected)
	if err != nil {
		return nil, diag.Internal(err)
	}
	return res, nil
}

// apply returns the scorers that pass the filter, and the wanted keys that
// name no scorer that passes the domain filter (sorted). The wanted set is kept whole while filtering: a
// key found early must not widen the filter for the scorers after it.
func (f OverviewFilter) apply(scorers []*model.RiskScorer) (selected []*model.RiskScorer, missing []string) {
	want := map[string]bool{}
	for _, k := range f.Keys {
		want[k] = true
	}
	found := map[string]bool{}
	for _, s := range scorers {
		if len(want) > 0 && !want[s.Key] {
			continue
		}
		if f.Domain != "" && s.Domain != f.Domain {
			continue
		}
		selected = append(selected, s)
		found[s.Key] = true
	}
	for k := range want {
		if !found[k] {
			missing = append(missing, k)
		}
	}
	sort.Strings(missing)
	return selected, missing
}

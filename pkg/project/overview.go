package project

import (
	"context"
	"sort"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/model"
	"github.com/lfcli/lf/pkg/risk"
	"github.com/lfcli/lf/pkg/store"
)

// OverviewFilter narrows the risk-scorer overview.
type OverviewFilter struct {
	Keys   []string // only these risk scorers (all when empty)
	Domain string   // only this domain (all when empty)
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
	want := map[string]bool{}
	for _, k := range f.Keys {
		want[k] = true
	}
	var selected []*model.RiskScorer
	for _, s := range scorers {
		if len(want) > 0 && !want[s.Key] {
			continue
		}
		if f.Domain != "" && s.Domain != f.Domain {
			continue
		}
		selected = append(selected, s)
		delete(want, s.Key)
	}
	if len(want) > 0 {
		return nil, diag.Invalidf("risk scorer %q not found", sortedKeys(want)[0])
	}
	res, err := risk.Score(ctx, st, methods, selected)
	if err != nil {
		return nil, diag.Internal(err)
	}
	return res, nil
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

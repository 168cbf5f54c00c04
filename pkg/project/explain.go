package project

import (
	"context"
	"time"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/risk"
	"github.com/lfcli/lf/pkg/store"
)

// Explain explains the score of the stored risk scorer key, now or as of
// at (the zero time: now), as the overview computes it.
func Explain(ctx context.Context, st *store.Store, key string, at time.Time) (*risk.Explanation, error) {
	scorers, err := st.RiskScorers(ctx)
	if err != nil {
		return nil, diag.Internal(err)
	}
	methods, err := st.Methodologies(ctx)
	if err != nil {
		return nil, diag.Internal(err)
	}
	for _, s := range scorers {
		if s.Key != key {
			continue
		}
		e, err := risk.Explain(ctx, OverviewFilter{At: at}.source(st), methods, s)
		if err != nil {
			return nil, diag.Internal(err)
		}
		return e, nil
	}
	return nil, diag.Invalidf("risk scorer %q not found", key)
}

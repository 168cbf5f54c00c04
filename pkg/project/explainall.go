package project

import (
	"context"
	"time"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/risk"
	"github.com/lfcli/lf/pkg/store"
)

// ExplainAll explains every stored risk scorer, now or as of at (the zero
// time: now), keyed by scorer key: the documents `lf explain risk-scorer
// KEY` prints, read with one pass over the scorers and methodologies (the
// HTML report's drill-down).
func ExplainAll(ctx context.Context, st *store.Store, at time.Time) (map[string]*risk.Explanation, error) {
	scorers, err := st.RiskScorers(ctx)
	if err != nil {
		return nil, diag.Internal(err)
	}
	methods, err := st.Methodologies(ctx)
	if err != nil {
		return nil, diag.Internal(err)
	}
	src := OverviewFilter{At: at}.source(st)
	out := make(map[string]*risk.Explanation, len(scorers))
	for _, s := range scorers {
		e, err := risk.Explain(ctx, src, methods, s)
		if err != nil {
			return nil, diag.Internal(err)
		}
		out[s.Key] = e
	}
	return out, nil
}

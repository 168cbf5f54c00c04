package project

import (
	"context"
	"sort"

	"github.com/lfcli/lf/pkg/model"
	"github.com/lfcli/lf/pkg/risk"
	"github.com/lfcli/lf/pkg/store"
)

// RiskPartials returns the risk partials the store keeps under signature
// (timeline is then a risk.PartialStore: histories read runs' partials
// instead of their values).
func (t timeline) RiskPartials(ctx context.Context, signature string, keys []string) (map[risk.RunRef][]byte, error) {
	return t.st.RiskPartials(ctx, signature, keys)
}

// PutRiskPartials keeps partials in the store.
func (t timeline) PutRiskPartials(ctx context.Context, signature string, partials map[risk.RunRef][]byte) error {
	return t.st.PutRiskPartials(ctx, signature, partials)
}

// KeepRunPartials computes and keeps the risk partials of runs just
// written (completed ones) for every stored risk scorer whose scope takes
// them, so that histories read them instead of the runs' values. A
// failure leaves the runs as written: a history computes the partials it
// misses, so callers may ignore the error.
func KeepRunPartials(ctx context.Context, st *store.Store, runs []risk.RunRef) error {
	if len(runs) == 0 {
		return nil
	}
	scorers, err := st.RiskScorers(ctx)
	if err != nil || len(scorers) == 0 {
		return err
	}
	methods, err := st.Methodologies(ctx)
	if err != nil {
		return err
	}
	bySig, err := risk.RunPartials(ctx, st, methods, scorers, runs)
	if err != nil {
		return err
	}
	sigs := make([]string, 0, len(bySig))
	for sig := range bySig {
		sigs = append(sigs, sig)
	}
	sort.Strings(sigs)
	for _, sig := range sigs {
		if err := st.PutRiskPartials(ctx, sig, bySig[sig]); err != nil {
			return err
		}
	}
	return nil
}

// completedRuns lists, by entity index, the completed runs of a batch.
func completedRuns(entities []*Entity) map[int]risk.RunRef {
	out := map[int]risk.RunRef{}
	for i, e := range entities {
		if e.Kind != model.KindEvaluationRun {
			continue
		}
		run := e.Run
		if run == nil && e.packed != nil {
			run = &e.packed.head
		}
		if run != nil && run.Status == model.StatusCompleted {
			out[i] = risk.RunRef{EvaluationKey: run.EvaluationKey, ID: run.ID}
		}
	}
	return out
}

// writtenRuns lists the runs of completed that changes say were created
// or updated, in entity order.
func writtenRuns(completed map[int]risk.RunRef, changes []Change) []risk.RunRef {
	var out []risk.RunRef
	for i, c := range changes {
		if r, ok := completed[i]; ok && (c.Outcome == store.Created || c.Outcome == store.Updated) {
			out = append(out, r)
		}
	}
	return out
}

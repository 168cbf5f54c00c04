package project

import (
	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/model"
)

// runProblems are the checks of one run that need nothing but the run: a
// value given twice, and a completed run that holds no value.
func runProblems(e *Entity) diag.List {
	return append(duplicateResults(e), noValues(e)...)
}

// noValues refuses a completed run without a single metric value: stored,
// it would become the latest run of its evaluation key and turn every risk
// scorer of that key to no_data, hiding the runs before it.
func noValues(e *Entity) diag.List {
	if e.Run == nil || e.Run.Status != model.StatusCompleted || RunValues(e.Run) > 0 {
		return nil
	}
	return diag.List{e.Errorf("/results", "completed run %s holds no metric value: give its results, or store it with status: failed", e.Key)}
}

// RunValues counts the metric values of a run.
func RunValues(r *model.EvaluationRun) int {
	n := 0
	for _, res := range r.Results {
		n += len(res.Metrics)
	}
	return n
}

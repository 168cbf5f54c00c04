package backend

import (
	"context"
	"slices"
	"strings"

	"github.com/lfcli/lf/pkg/model"
)

// RunHistory reads the runs of the handle's app as they were at a moment,
// and the order in which they entered time (created_at), so that risk
// scorers can be scored as of any moment and followed over time. Both read
// evaluation_runs, which keeps every run: nothing is written for them, and a
// run added late with an earlier created_at takes its place in time.
type RunHistory interface {
	// LatestRunsAt is LatestRuns as of at (TimeFormat): the latest completed
	// run created at or before at of each evaluation key in keys (in the
	// order of keys), or of every evaluation key when keys is nil (in the
	// order LatestRuns gives). Ties on created_at go to the greater id, as
	// for LatestRuns.
	LatestRunsAt(ctx context.Context, keys []string, at string) ([]model.RunRef, error)
	// RunTimeline returns the completed runs of the evaluation keys in keys,
	// or of every key when keys is nil, in (created_at, id) order.
	RunTimeline(ctx context.Context, keys []string) ([]TimelineRun, error)
}

// TimelineRun is one completed run on the timeline of RunTimeline.
type TimelineRun struct {
	EvaluationKey string
	ID            string
	CreatedAt     string // TimeFormat
}

// SortTimeline sorts runs in (created_at, id, evaluation_key) order, the
// order of RunTimeline, byte-wise whatever the database's collation.
func SortTimeline(runs []TimelineRun) {
	slices.SortFunc(runs, func(a, b TimelineRun) int {
		if c := strings.Compare(a.CreatedAt, b.CreatedAt); c != 0 {
			return c
		}
		if c := strings.Compare(a.ID, b.ID); c != 0 {
			return c
		}
		return strings.Compare(a.EvaluationKey, b.EvaluationKey)
	})
}

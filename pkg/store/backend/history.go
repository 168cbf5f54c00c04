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
// order of RunTimeline, byte-wise whatever the database's collation. Runs
// read in an index's order come as a few sorted stretches (one per
// evaluation key): those are merged, a pass per doubling, rather than
// sorted again.
func SortTimeline(runs []TimelineRun) {
	var starts []int // where each sorted stretch starts
	for i := range runs {
		if i == 0 || compareTimeline(runs[i-1], runs[i]) > 0 {
			starts = append(starts, i)
		}
	}
	switch {
	case len(starts) <= 1:
		return
	case len(starts) > len(runs)/8:
		slices.SortFunc(runs, compareTimeline)
		return
	}
	starts = append(starts, len(runs))
	src, dst := runs, make([]TimelineRun, len(runs))
	for len(starts) > 2 {
		next := []int{0}
		for i := 0; i+1 < len(starts); i += 2 {
			lo, end := starts[i], starts[i+1]
			if i+2 < len(starts) {
				mergeTimeline(dst[lo:starts[i+2]], src[lo:end], src[end:starts[i+2]])
				end = starts[i+2]
			} else {
				copy(dst[lo:end], src[lo:end])
			}
			next = append(next, end)
		}
		src, dst, starts = dst, src, next
	}
	if &src[0] != &runs[0] {
		copy(runs, src)
	}
}

// mergeTimeline merges the sorted a and b into out.
func mergeTimeline(out, a, b []TimelineRun) {
	i, j := 0, 0
	for k := range out {
		if j == len(b) || (i < len(a) && compareTimeline(a[i], b[j]) <= 0) {
			out[k] = a[i]
			i++
		} else {
			out[k] = b[j]
			j++
		}
	}
}

func compareTimeline(a, b TimelineRun) int {
	if c := strings.Compare(a.CreatedAt, b.CreatedAt); c != 0 {
		return c
	}
	if c := strings.Compare(a.ID, b.ID); c != 0 {
		return c
	}
	return strings.Compare(a.EvaluationKey, b.EvaluationKey)
}

package backend

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"
)

// TestSortTimeline: runs in sorted stretches (as an index per evaluation
// key gives them), in random order, or sorted already, come out as a
// plain sort puts them, ties on created_at broken by id then key.
func TestSortTimeline(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	for trial := 0; trial < 200; trial++ {
		var runs []TimelineRun
		keys := 1 + r.Intn(12)
		for k := 0; k < keys; k++ {
			var stretch []TimelineRun
			for i := 0; i < r.Intn(40); i++ {
				stretch = append(stretch, TimelineRun{
					EvaluationKey: fmt.Sprintf("e%02d", r.Intn(keys)),
					ID:            fmt.Sprintf("r%d", r.Intn(20)),
					CreatedAt:     fmt.Sprintf("2026-01-%02dT00:00:00Z", 1+r.Intn(9)),
				})
			}
			if trial%4 != 0 { // a stretch per key; else random order
				slices.SortFunc(stretch, compareTimeline)
			}
			runs = append(runs, stretch...)
		}
		want := slices.Clone(runs)
		slices.SortStableFunc(want, compareTimeline)
		SortTimeline(runs)
		if !slices.Equal(runs, want) {
			t.Fatalf("trial %d:\n got %v\nwant %v", trial, runs, want)
		}
	}
}

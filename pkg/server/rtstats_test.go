package server

import (
	"math"
	"runtime/metrics"
	"strings"
	"testing"
)

// histSummary counts only the samples added since the earlier reading and
// reports bucket upper bounds in milliseconds.
func TestHistSummary(t *testing.T) {
	buckets := []float64{0, 0.001, 0.002, 0.010, math.Inf(1)}
	old := &metrics.Float64Histogram{Buckets: buckets, Counts: []uint64{5, 0, 0, 0}}
	h := &metrics.Float64Histogram{Buckets: buckets, Counts: []uint64{5 + 98, 1, 1, 0}}
	got := histSummary(h, old)
	want := "n=100 p50 1 p99 2 p99.9 10 max 10 ms"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := histSummary(old, old); got != "n=0" {
		t.Errorf("no new samples: %q", got)
	}
	// The runtime's own reading renders every statistic.
	line := readRuntimeStats().since(readRuntimeStats())
	for _, name := range rtStatNames {
		if !strings.Contains(line, name) {
			t.Errorf("%s missing from %q", name, line)
		}
	}
}

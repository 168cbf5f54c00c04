package risk

import "math"

// aggregator combines the function's values of one risk scorer as its
// aggregation says: "mean" (also when absent), "max" or "min". Values are
// added one at a time, so no slice of them is kept.
type aggregator struct {
	kind string
	acc  float64
	n    int
}

func newAggregator(kind string) *aggregator { return &aggregator{kind: kind} }

// add takes one value of the function.
func (a *aggregator) add(x float64) {
	switch {
	case a.n == 0:
		a.acc = x
	case a.kind == "max":
		a.acc = math.Max(a.acc, x)
	case a.kind == "min":
		a.acc = math.Min(a.acc, x)
	default:
		a.acc += x
	}
	a.n++
}

// score returns the aggregate clamped to 0..10, or false when no value was
// added.
func (a *aggregator) score() (float64, bool) {
	if a.n == 0 {
		return 0, false
	}
	agg := a.acc
	if a.kind == "mean" || a.kind == "" {
		agg /= float64(a.n)
	}
	// Rounding to 1e-9 drops float noise (0.7999999999999998) from reports.
	return math.Round(math.Min(10, math.Max(0, agg))*1e9) / 1e9, true
}

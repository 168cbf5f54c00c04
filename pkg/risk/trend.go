package risk

import (
	"math"
	"strconv"
)

// Trend is how a score moved between two points: Direction is rising,
// falling or steady, Delta the change (rounded to 1e-9 like scores).
type Trend struct {
	Direction string  `json:"direction"`
	Delta     float64 `json:"delta"`
}

// Trend directions.
const (
	Rising  = "rising"
	Falling = "falling"
	Steady  = "steady"
)

// TrendOf is the trend from score from to score to.
func TrendOf(from, to float64) Trend {
	d := math.Round((to-from)*1e9) / 1e9
	switch {
	case d > 0:
		return Trend{Rising, d}
	case d < 0:
		return Trend{Falling, d}
	}
	return Trend{Steady, 0}
}

// String renders the trend as "rising +1.50".
func (t Trend) String() string {
	sign := "+"
	if t.Delta < 0 {
		sign = ""
	}
	return t.Direction + " " + sign + strconv.FormatFloat(t.Delta, 'f', 2, 64)
}

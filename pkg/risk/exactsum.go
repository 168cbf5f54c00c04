package risk

import (
	"math"
	"math/big"
)

// exactSum is the exact sum of float64 values, so that a mean does not
// depend on the order or grouping in which its values were added: the sum
// of one run's risks, kept in the store, added to other runs' sums gives
// bit for bit the mean that adding every risk one at a time gives.
//
// It is an expansion (Shewchuk): float64 parts in increasing magnitude that
// do not overlap, whose exact sum is the sum; adding a value is a few
// two-sum steps. Values whose parts could overflow switch it to a big.Float
// wide enough to hold any sum of float64s exactly.
type exactSum struct {
	parts []float64
	wide  *big.Float
}

// bigLimit is the magnitude above which a two-sum step could overflow.
const bigLimit = 0x1p1000

// wideBits holds any sum of up to 2^60 float64 values exactly: 2,098 bits
// from the smallest subnormal to the largest float64, plus carries.
const wideBits = 2200

// add adds x exactly.
func (s *exactSum) add(x float64) {
	if s.wide == nil && (math.Abs(x) > bigLimit || (len(s.parts) > 0 && math.Abs(s.parts[len(s.parts)-1]) > bigLimit/4)) {
		s.wide = s.exact()
	}
	if s.wide != nil {
		s.wide.Add(s.wide, new(big.Float).SetPrec(wideBits).SetFloat64(x))
		return
	}
	i := 0
	for _, y := range s.parts {
		if math.Abs(x) < math.Abs(y) {
			x, y = y, x
		}
		hi := x + y
		lo := y - (hi - x)
		if lo != 0 {
			s.parts[i] = lo
			i++
		}
		x = hi
	}
	s.parts = append(s.parts[:i], x)
}

// addSum adds every part of o exactly.
func (s *exactSum) addSum(o *exactSum) {
	if o.wide != nil {
		if s.wide == nil {
			s.wide = s.exact()
		}
		s.wide.Add(s.wide, o.wide)
		return
	}
	for _, x := range o.parts {
		s.add(x)
	}
}

// subSum takes every part of o away exactly (o was added before, or not:
// the result is the exact difference either way).
func (s *exactSum) subSum(o *exactSum) {
	if o.wide != nil {
		if s.wide == nil {
			s.wide = s.exact()
		}
		s.wide.Sub(s.wide, o.wide)
		return
	}
	for _, x := range o.parts {
		s.add(-x)
	}
}

// exact returns the sum as a big.Float without rounding.
func (s *exactSum) exact() *big.Float {
	if s.wide != nil {
		return new(big.Float).SetPrec(wideBits).Set(s.wide)
	}
	f := new(big.Float).SetPrec(wideBits)
	for _, x := range s.parts {
		f.Add(f, new(big.Float).SetPrec(wideBits).SetFloat64(x))
	}
	return f
}

// float64 returns the sum rounded once to the nearest float64 (ties to
// even; beyond the float64 range, an infinity).
func (s *exactSum) float64() float64 {
	switch {
	case s.wide == nil && len(s.parts) == 0:
		return 0
	case s.wide == nil && len(s.parts) == 1:
		return s.parts[0]
	}
	f, _ := s.exact().Float64()
	return f
}

package project

import (
	"strconv"
	"time"
)

// WhenUnits are the units of a relative moment ("7d": seven days ago).
var WhenUnits = map[byte]time.Duration{'s': time.Second, 'm': time.Minute, 'h': time.Hour, 'd': 24 * time.Hour, 'w': 7 * 24 * time.Hour}

// ParseWhen reads a moment as --at and ?at= take it: RFC 3339, or a whole
// number and a unit (s, m, h, d, w) meaning that long before now (at most
// 200 years). ok is false when s is neither.
func ParseWhen(s string, now time.Time) (t time.Time, ok bool) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UTC(), true
	}
	if n := len(s); n >= 2 {
		if unit, ok := WhenUnits[s[n-1]]; ok {
			if k, err := strconv.ParseUint(s[:n-1], 10, 31); err == nil && int64(k) <= int64(200*365*24*time.Hour/unit) {
				return now.Add(-time.Duration(k) * unit).UTC(), true
			}
		}
	}
	return time.Time{}, false
}

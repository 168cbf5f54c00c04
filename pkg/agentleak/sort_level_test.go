package agentleak

import (
	"math/rand"
	"sort"
	"strconv"
	"testing"
)

// TestSortByLevelIsStable holds the counting sort to a stable comparison
// sort: the same order for levels in its range, outside it and mixed.
func TestSortByLevelIsStable(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for trial := 0; trial < 2000; trial++ {
		n := rng.Intn(40)
		lo, span := 0, 5
		switch trial % 4 {
		case 1:
			lo, span = 0, 8 // the whole counted range
		case 2:
			lo, span = -2, 14 // some levels outside it
		}
		f := make([]Finding, n)
		for i := range f {
			f[i] = Finding{EventID: strconv.Itoa(i), Level: lo + rng.Intn(span)}
		}
		if trial%4 == 3 {
			sort.SliceStable(f, func(i, j int) bool { return f[i].Level > f[j].Level })
		}
		want := append([]Finding(nil), f...)
		sort.SliceStable(want, func(i, j int) bool { return want[i].Level > want[j].Level })
		scratch := sortByLevel(f, make([]Finding, 3))
		for i := range f {
			if f[i] != want[i] {
				t.Fatalf("trial %d: position %d holds %+v, want %+v", trial, i, f[i], want[i])
			}
		}
		for i := range scratch[:cap(scratch)] {
			if scratch[:cap(scratch)][i] != (Finding{}) {
				t.Fatalf("trial %d: scratch keeps finding %d", trial, i)
			}
		}
	}
}

package agentleak

import (
	"math"
	"math/rand"
	"sort"
	"strconv"
	"testing"

	"github.com/lfcli/lf/pkg/internal/testfiles"
)

// TestRound4MatchesText holds round4 to rounding through the decimal text
// on ratios of small integers (what scores are), on every tie and its
// neighbours, and on random and extreme values.
func TestRound4MatchesText(t *testing.T) {
	check := func(x float64) {
		t.Helper()
		if got, want := round4(x), round4Text(x); math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Fatalf("round4(%v) = %v, want %v", x, got, want)
		}
	}
	for d := 1; d <= 400; d++ {
		for n := 0; n <= d; n++ {
			check(float64(n) / float64(d))
			check(float64(n) * 0.25 / float64(d))
		}
	}
	for k := 0; k <= 40000; k++ {
		tie := (float64(k) + 0.5) / 1e4
		check(tie)
		check(math.Nextafter(tie, 0))
		check(math.Nextafter(tie, 2))
		check(-tie)
		check(-tie / 10)
	}
	rng := rand.New(rand.NewSource(4))
	for k := 0; k < testfiles.Iterations(200000); k++ {
		check(rng.Float64())
		check(rng.Float64() * 200)
		check(rng.NormFloat64() * 1e7)
	}
	for _, x := range []float64{0, math.Copysign(0, -1), 99.99995, 100.00005, 1e-300, 5e-5, 4.99999999e-5, math.Inf(1), math.Inf(-1), math.NaN(), math.MaxFloat64} {
		check(x)
	}
}

// TestChannelRiskOrder: the insertion sort orders channel risks as
// sort.Slice with the same rule does.
func TestChannelRiskOrder(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	for k := 0; k < 20000; k++ {
		var rc ChannelRisks
		for _, c := range rng.Perm(len(Channels)) {
			if rng.Intn(3) > 0 {
				rc = append(rc, ChannelRisk{Channels[c], float64(rng.Intn(4)) / 4})
			}
		}
		want := append(ChannelRisks(nil), rc...)
		sort.Slice(want, func(i, j int) bool { return channelRiskBefore(want[i], want[j]) })
		got := append(ChannelRisks(nil), rc...)
		sortChannelRisks(got)
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("%v sorted to %v, want %v", rc, got, want)
			}
		}
	}
}

// TestBelowReasonCached: the block reason of each privacy score reads as
// formatted afresh, on first use and from the scanner's cache, for
// scores in and out of 0-100.
func TestBelowReasonCached(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Scoring.FailBelow = 62.5
	sc := NewScanner(cfg, nil)
	for round := 0; round < 2; round++ {
		for _, score := range []int{-1, 0, 1, 7, 49, 62, 99, 100, 101, 1000} {
			want := "privacy score " + strconv.Itoa(score) + " below 62.5"
			if got := sc.belowReason(score); got != want {
				t.Errorf("round %d: belowReason(%d) = %q", round, score, got)
			}
		}
	}
}

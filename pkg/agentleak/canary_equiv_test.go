package agentleak

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/lfcli/lf/pkg/agentleak/detect"
	"github.com/lfcli/lf/pkg/internal/testfiles"
)

// checkCanary fails t unless the scan's canary search agrees with
// strings.Contains on text s and canary c.
func checkCanary(t *testing.T, s, c string) {
	t.Helper()
	v := &Vault{canaryList: []canary{{text: c, probe: detect.NewCanaryProbe(c)}}}
	if got, want := v.canaryHits(s) == 1, strings.Contains(s, c); got != want {
		t.Fatalf("canaryHits(%q) for canary %q: %v, strings.Contains says %v (probe %+v)", s, c, got, want, v.canaryList[0].probe)
	}
}

// TestCanaryContainsAdversarial covers the edges: empty and one- or
// two-byte canaries, canaries as long as the text or longer, occurrences
// at either end, non-ASCII canaries, and texts full of the canary's rarest
// byte (which switch to the runtime's search part-way).
func TestCanaryContainsAdversarial(t *testing.T) {
	long := strings.Repeat("z", 5000)
	cases := []struct{ s, c string }{
		{"", ""},
		{"abc", ""},
		{"", "a"},
		{"a", "a"},
		{"b", "a"},
		{"ab", "b"},
		{"ab", "ab"},
		{"ab", "ba"},
		{"ab", "abc"},
		{"xyzab", "ab"},
		{"abxyz", "ab"},
		{"aab", "ab"},
		{"zq", "qz"},
		{"qz", "qz"},
		{"the pizza party", "pizza"},
		{"pizzpizz pizza", "pizza"},
		{"pizz", "pizza"},
		{"izza", "pizza"},
		{"paid to spotify.", "to spotify"},
		{"paid to Spotify", "to spotify"},
		{"café crème", "crème"},
		{"café creme", "crème"},
		{"\xe2\x80\x94—", "—"},
		{"\xe2\x80", "—"},
		{"日本語テキスト", "本語"},
		{"日本語テキスト", "語テ"},
		{"日本語", "日本語テ"},
		{long, "zzzq"},
		{long + "q", "zzzq"},
		{long + "zq" + long, "zzzq"},
		{"q" + long, "qzzz"},
		{long, strings.Repeat("z", 100) + "!"},
		{long + "!", strings.Repeat("z", 100) + "!"},
		{long[:300] + "y" + long, "z" + long[:200] + "y"},
		{long[:300] + "y" + long, "z" + long[:200] + "yz"},
		{strings.Repeat("ab", 3000) + "abc", "abababc"},
		{strings.Repeat("ab", 3000), "abababc"},
	}
	for _, tc := range cases {
		checkCanary(t, tc.s, tc.c)
	}
}

// TestCanaryContainsRandom compares containsCanary with strings.Contains on
// random texts over small alphabets (partial occurrences everywhere), with
// canaries cut from the text, cut and changed by one byte, and random.
func TestCanaryContainsRandom(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewSource(9))
	alphabets := []string{"ab", "abz", "ab z!", " etaoinszqQ\"", "zzzzq", "é—日a", "\x00\xff\x80a"}
	n := 20000
	if testfiles.Reduced() {
		n = 3000
	}
	for iter := 0; iter < n; iter++ {
		alpha := alphabets[rng.Intn(len(alphabets))]
		size := rng.Intn(200)
		if rng.Intn(10) == 0 {
			size = rng.Intn(3000)
		}
		b := make([]byte, size)
		for i := range b {
			b[i] = alpha[rng.Intn(len(alpha))]
		}
		s := string(b)
		for k := 0; k < 4; k++ {
			var c string
			switch {
			case k < 2 && len(s) > 0:
				i := rng.Intn(len(s))
				j := i + rng.Intn(min(len(s)-i, 80)+1)
				c = s[i:j]
				if k == 1 && len(c) > 0 {
					cb := []byte(c)
					cb[rng.Intn(len(cb))] = alpha[rng.Intn(len(alpha))]
					c = string(cb)
				}
			default:
				cb := make([]byte, rng.Intn(12))
				for i := range cb {
					cb[i] = alpha[rng.Intn(len(alpha))]
				}
				c = string(cb)
			}
			checkCanary(t, s, c)
		}
	}
}

// TestCanaryHitsVault compares canaryHits with strings.Contains for vaults
// of up to fewCanaries canaries (found or not, in any order, repeated), the
// set the scan reports in list order.
func TestCanaryHitsVault(t *testing.T) {
	rng := rand.New(rand.NewSource(8))
	words := []string{"zeta", "alpha", "a", "—", "pizza", "to spotify", "spotify", "Émile", "zz", "q", "the"}
	for iter := 0; iter < 5000; iter++ {
		var b strings.Builder
		for i := rng.Intn(30); i > 0; i-- {
			b.WriteString(words[rng.Intn(len(words))])
			b.WriteByte(" \n,z"[rng.Intn(4)])
		}
		s := b.String()
		items := make([]string, 1+rng.Intn(fewCanaries))
		for i := range items {
			items[i] = words[rng.Intn(len(words))]
			if rng.Intn(3) == 0 {
				items[i] += " " + words[rng.Intn(len(words))]
			}
		}
		v := &Vault{}
		v.addCanaries(rng.Intn(len(canaryTiers)), items)
		var want uint64
		for id, c := range v.canaryList {
			if strings.Contains(s, c.text) {
				want |= 1 << id
			}
		}
		if got := v.canaryHits(s); got != want {
			t.Fatalf("canaryHits(%q) with canaries %q = %b, want %b", s, items, got, want)
		}
	}
}

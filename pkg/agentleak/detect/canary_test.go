package detect

import "testing"

// TestCanaryProbeBytes checks the probe picks the canary's bytes it says it
// picks, and that commonBytes ranks each byte once.
func TestCanaryProbeBytes(t *testing.T) {
	seen := map[byte]bool{}
	for i := 0; i < len(commonBytes); i++ {
		if seen[commonBytes[i]] {
			t.Errorf("commonBytes lists %q twice", commonBytes[i])
		}
		seen[commonBytes[i]] = true
	}
	for _, c := range []string{"a", "ab", "pizza", "spotify", "to spotify", "Émile", "x\x00y", "zzzz"} {
		p := NewCanaryProbe(c)
		if c[p.At] != p.Rare || c[p.At2] != p.Rare2 || len(c) > 1 && p.At == p.At2 {
			t.Errorf("NewCanaryProbe(%q) = %+v", c, p)
		}
	}
	if p := NewCanaryProbe("pizza"); p.Rare != 'z' {
		t.Errorf("pizza's rarest byte: %q, want 'z'", p.Rare)
	}
}

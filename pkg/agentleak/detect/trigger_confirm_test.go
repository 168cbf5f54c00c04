package detect

import (
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/lfcli/lf/pkg/internal/testfiles"
)

// TestTriggersAtMatchesWalk holds triggersAt, which compares the words of
// a bucket a word at a time, to the trie's walk (triggersWalk) at every
// position a word can begin with: the same rules' candidates in the same
// order. The texts hold each trigger word in several cases, cut short,
// with a byte changed at each place (the sixteen-byte halves and the tail
// past them included), run on into letters, and at the end of the text;
// then random texts (a tenth of them unless LF_TEST_FULL=1) and the packs.
func TestTriggersAtMatchesWalk(t *testing.T) {
	t.Parallel()
	ps := NewPatternSet(allFamilies())
	seen := map[string]bool{}
	var words []string
	for ri := range ps.rules {
		for _, w := range ps.rules[ri].triggers {
			for _, v := range caseVariants(w) {
				if !seen[v] {
					seen[v] = true
					words = append(words, v)
				}
			}
		}
	}
	if ps.trie.short {
		t.Skip("a one-byte trigger word: triggersAt walks the trie")
	}
	var texts []string
	for _, w := range words {
		for _, v := range []string{w, strings.ToUpper(w), strings.ToUpper(w[:1]) + w[1:]} {
			texts = append(texts, v, v+"s and more", "("+v+")", v[:len(v)-1], "x "+v)
			for k := 0; k < len(v); k++ {
				b := []byte(v)
				b[k] ^= 0x01
				texts = append(texts, string(b)+" tail", string(b))
			}
		}
	}
	rng := rand.New(rand.NewSource(11))
	for i := 0; i < testfiles.Iterations(2000); i++ {
		texts = append(texts, adversarialText(rng), randomText(rng))
	}
	texts = append(texts, packTexts(t)...)
	st := ps.state
	snap := func() [][]int {
		out := make([][]int, len(st.cands))
		for ri, c := range st.cands {
			out[ri] = slices.Clone(c)
		}
		return out
	}
	for _, s := range texts {
		for p := 0; p < len(s); p++ {
			if !ps.trie.first[s[p]] {
				continue
			}
			st.clearStarts()
			ps.triggersAt(s, p)
			got, gotUnsorted := snap(), st.unsorted
			st.clearStarts()
			ps.triggersWalk(s, p)
			for ri, want := range st.cands {
				if !slices.Equal(got[ri], want) {
					t.Fatalf("%q at %d, rule %d: candidates %v, the walk's %v", s, p, ri, got[ri], want)
				}
			}
			if gotUnsorted != st.unsorted {
				t.Fatalf("%q at %d: unsorted %v, the walk's %v", s, p, gotUnsorted, st.unsorted)
			}
		}
	}
}

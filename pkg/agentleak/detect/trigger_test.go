package detect

import (
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/lfcli/lf/pkg/internal/testfiles"
)

// TestTriggerWordsStartWords checks what triggerTrie relies on: a rule
// whose trigger word begins with an ASCII word byte starts with \b, or is
// a key-name rule (which keeps a trigger only where Python's \b holds), so
// a trigger inside a run of ASCII word bytes cannot start its match.
func TestTriggerWordsStartWords(t *testing.T) {
	for i := range builtin().rules {
		r := &builtin().rules[i]
		if r.wordHead || r.family == famKeyname {
			continue
		}
		for _, w := range r.triggers {
			if asciiWord[w[0]] {
				t.Errorf("rule %d (%s): trigger %q begins with a word byte but the rule does not start with \\b", i, r.dt, w)
			}
		}
	}
}

// TestTriggerTrieMatchesAutomaton compares the trie's words with every
// occurrence an automaton over the lowered text finds, on the positions
// where the trie looks.
func TestTriggerTrieMatchesAutomaton(t *testing.T) {
	var words []string
	for ri := range builtin().rules {
		for _, w := range builtin().rules[ri].triggers {
			words = append(words, caseVariants(w)...)
		}
	}
	ac, trie := NewMatcher(words), newTriggerTrie(words)
	if len(trie.out) != cap(trie.out) {
		t.Errorf("trieSize: room for %d states, %d used", cap(trie.out), len(trie.out))
	}
	rng := rand.New(rand.NewSource(3))
	for n := 0; n < 3000; n++ {
		text := randomText(rng)
		var want, got []string
		ac.Each(LowerASCII(nil, text), func(id, s, _ int) {
			if s == 0 || !asciiWord[text[s-1]] || !asciiWord[text[s]] {
				want = append(want, fmt.Sprint(words[id], "@", s))
			}
		})
		trie.each(text, func(id, p int) { got = append(got, fmt.Sprint(words[id], "@", p)) })
		sortStrings(want)
		sortStrings(got)
		if !reflect.DeepEqual(want, got) {
			t.Fatalf("%q:\nautomaton: %v\ntrie:      %v", text, want, got)
		}
	}
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// TestFastRulesMatchPlainOnMutations mutates the shared packs' texts (a
// letter, digit, quote, space or non-ASCII letter inserted or a byte
// dropped next to a trigger word or a digit, the case of a run flipped)
// and holds the fast path to the plain expressions on each.
func TestFastRulesMatchPlainOnMutations(t *testing.T) {
	t.Parallel()
	texts := packTexts(t)
	rng := rand.New(rand.NewSource(11))
	inserts := []string{"x", "X", "7", "_", "'", "\"", " ", "é", "É", "٣", "\u00a0", "-", ":", "=", "K", "ſ"}
	n := 4000
	if testfiles.Reduced() {
		n = 400
	}
	all := familySets()[:1]
	for k := 0; k < n; k++ {
		s := texts[rng.Intn(len(texts))]
		if len(s) > 600 {
			o := rng.Intn(len(s) - 600)
			s = s[o : o+600]
		}
		b := []byte(s)
		for m := 0; m < 1+rng.Intn(4) && len(b) > 0; m++ {
			i := rng.Intn(len(b))
			switch rng.Intn(4) {
			case 0, 1:
				b = append(b[:i], append([]byte(inserts[rng.Intn(len(inserts))]), b[i:]...)...)
			case 2:
				b = append(b[:i], b[i+1:]...)
			default:
				j := i + rng.Intn(12)
				if j > len(b) {
					j = len(b)
				}
				copy(b[i:j], strings.ToUpper(string(b[i:j])))
			}
		}
		text := strings.ToValidUTF8(string(b), "?")
		for _, fam := range all {
			fast, plain := fastRules(fam, text), plainRulesList(fam, text)
			if !reflect.DeepEqual(fast, plain) {
				t.Fatalf("mutation %d: %q\nfast:  %q\nplain: %q", k, text, fast, plain)
			}
		}
	}
}

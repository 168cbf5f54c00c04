package detect

import (
	"reflect"
	"strings"
	"testing"
	"unicode"
)

// TestNameTriggersTakeEveryStart: after each of the person name rule's
// words, in two cases, every ASCII character and every Unicode space (the
// pattern wants \b and then ["'\s:_]+ there, \s widened to Python's
// spaces), the fast path finds what the expression finds. It guards any
// narrowing of where the rule starts, such as trigger words that include
// the character after the word (tried: dropping the quote from those fails
// this test and no other).
func TestNameTriggersTakeEveryStart(t *testing.T) {
	var after []string
	for r := rune(0); r <= 0x3000; r++ {
		if r < 0x80 || unicode.Is(unicode.Z, r) || r == 0x85 {
			after = append(after, string(r))
		}
	}
	fam := map[string]bool{"pii": true}
	found := 0
	for _, w := range detectorOf(t, "person_name").triggers {
		for _, word := range []string{w, strings.ToUpper(w[:1]) + w[1:]} {
			for _, a := range after {
				for _, text := range []string{word + a + "Jane Doe", "x " + word + a + a + "Jane Doe."} {
					got, want := fastRules(fam, text), plainRulesList(fam, text)
					if !reflect.DeepEqual(got, want) {
						t.Fatalf("%q: fast %q, plain %q", text, got, want)
					}
					found += len(want)
				}
			}
		}
	}
	if found < 1000 {
		t.Fatalf("only %d names found: the texts no longer exercise the rule", found)
	}
}

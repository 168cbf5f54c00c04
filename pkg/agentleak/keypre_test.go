package agentleak

import (
	"math/rand"
	"regexp"
	"strings"
	"testing"
)

// TestKeyPreIsNecessary: wherever a key-name pattern matches, keyPre says
// yes. Texts are random joins of stems' words, other words, separators,
// quotes, the spaces Python's \s accepts, colons and non-ASCII bytes.
func TestKeyPreIsNecessary(t *testing.T) {
	var res []*regexp.Regexp
	for _, k := range keyStems {
		res = append(res, regexp.MustCompile(`^`+pyClasses(`(?i)["']?\b(?:`+k.stem+`)\b["']?\s*[:=]`)))
	}
	parts := []string{
		"date", "of", "birth", "DOB", "social", "security", "number", "home", "address", "credit", "score",
		"patient", "name", "the", "we", "agreed", "on", "x", " ", "  ", "_", "-", "\"", "'", ":", "=",
		"\t", "\n", "\v", "\f", "\r", "\x1c", "\x1f", "\u00a0", "\u2028", "é", "K", "\u212a", "7", ".",
	}
	keys := []string{"date of birth", "social_security_number", "DOB", "home address", "Credit Score", "patient name", "'mrn'", "\"phone\""}
	rng := rand.New(rand.NewSource(6))
	checked, matched := 0, 0
	for n := 0; n < 20000; n++ {
		var b strings.Builder
		if rng.Intn(2) == 0 {
			b.WriteString(keys[rng.Intn(len(keys))])
		}
		for k := rng.Intn(12) + 1; k > 0; k-- {
			b.WriteString(parts[rng.Intn(len(parts))])
		}
		text := b.String()
		for p := 0; p < len(text); p++ {
			for _, re := range res {
				if re.MatchString(text[p:]) {
					matched++
					if !keyPre(text, p) {
						t.Fatalf("keyPre(%q, %d) = false, but %s matches there", text, p, re)
					}
				}
			}
			checked++
		}
	}
	if matched < 1000 {
		t.Fatalf("only %d matches in %d positions: the generator no longer exercises the patterns", matched, checked)
	}
}

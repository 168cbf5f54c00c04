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

// TestPrePhoneIsNecessary: wherever the phone pattern matches, prePhone
// says yes; texts mix ASCII and Unicode digits and spaces, separators,
// parentheses and prose.
func TestPrePhoneIsNecessary(t *testing.T) {
	re := regexp.MustCompile(`^` + pyClasses(`(?:\+?\d{1,3}[-.\s]?)?(?:\(\d{3}\)|\d{3})[-.\s]\d{3}[-.\s]\d{4}`))
	parts := []string{
		"1", "23", "456", "7890", "555", "0100", "+1", "+44", "(", ")", "-", ".", " ", "\t", "\u00a0", "\u2009",
		"٣", "٤٥٦", "７", "call", "me at", "x", "é", ",", "ext", "2024",
	}
	digit := []string{"0", "1", "5", "9", "٣", "７"}
	sep := []string{"", "-", ".", " ", "\u00a0", "/"}
	digits := func(b *strings.Builder, rng *rand.Rand, n int) {
		for ; n > 0; n-- {
			b.WriteString(digit[rng.Intn(len(digit))])
		}
	}
	rng := rand.New(rand.NewSource(7))
	matched := 0
	for n := 0; n < 30000; n++ {
		var b strings.Builder
		if rng.Intn(2) == 0 { // a near-phone: country code, groups, separators
			if rng.Intn(2) == 0 {
				b.WriteString("+")
				digits(&b, rng, 1+rng.Intn(3))
				b.WriteString(sep[rng.Intn(len(sep))])
			}
			for _, g := range []int{3, 3, 4} {
				digits(&b, rng, g+rng.Intn(3)-1)
				b.WriteString(sep[rng.Intn(len(sep))])
			}
		}
		for k := rng.Intn(8); k > 0; k-- {
			b.WriteString(parts[rng.Intn(len(parts))])
		}
		text := b.String()
		for p := 0; p < len(text); p++ {
			if re.MatchString(text[p:]) {
				matched++
				if !prePhone(text, p) {
					t.Fatalf("prePhone(%q, %d) = false, but the phone pattern matches there", text, p)
				}
			}
		}
	}
	if matched < 1000 {
		t.Fatalf("only %d matches: the generator no longer exercises the pattern", matched)
	}
}

// TestRulePreChecksAreNecessary: for every rule with a necessary check,
// wherever the rule's anchored expression matches, the check says yes.
// Texts join the rules' trigger words (in mixed case), numbers, dates,
// separators and Unicode digits and spaces.
func TestRulePreChecksAreNecessary(t *testing.T) {
	e := builtin()
	var words []string
	for _, ws := range ruleTriggers {
		words = append(words, ws...)
	}
	for _, k := range keyStems {
		words = append(words, k.first...)
	}
	words = append(words, "score", "record", "number", "of", "birth", "date", "id", "key", "_", "-", "d.o.b.",
		"health id", "credit score", "api_key", "medical record", "date of birth")
	tails := []string{
		" ", ": ", "=", " = ", "\t", "\v", "\u00a0", "#", "'", "\"", "-", "/", ".", ",", "x", "é",
		"1990-01-02", "12/31/1990", "720", "123456789", "$12,500", "٣٤٥", "ABCD12345678", "s3cr3tValue!",
	}
	rng := rand.New(rand.NewSource(8))
	matched := map[string]int{}
	for n := 0; n < 20000; n++ {
		var b strings.Builder
		for k := rng.Intn(6) + 1; k > 0; k-- {
			w := words[rng.Intn(len(words))]
			if rng.Intn(3) == 0 {
				w = strings.ToUpper(w)
			}
			b.WriteString(w)
			b.WriteString(tails[rng.Intn(len(tails))])
			if rng.Intn(2) == 0 {
				b.WriteString(tails[rng.Intn(len(tails))])
			}
		}
		text := b.String()
		for i := range e.rules {
			r := &e.rules[i]
			if r.pre == nil {
				continue
			}
			for p := 0; p < len(text); p++ {
				if r.anchored.get().MatchString(text[p:]) {
					matched[r.dt]++
					if !r.pre(text, p) {
						t.Fatalf("%s/%s: the check says no at %d of %q, where %s matches", r.family, r.dt, p, text, r.anchored.src)
					}
				}
			}
		}
	}
	for _, dt := range []string{"credit_score", "secret_assignment", "health_identifier", "date_of_birth"} {
		if matched[dt] < 50 {
			t.Errorf("%s matched only %d times: the generator no longer exercises it", dt, matched[dt])
		}
	}
}

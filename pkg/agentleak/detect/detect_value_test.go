package detect

import (
	"math/rand"
	"strings"
	"testing"
)

// valueTexts are random key-name values: the placeholders and the runs
// the trivial-value expression takes, their near misses, other cases and
// non-ASCII letters (the Kelvin sign, the long s) in random joins.
func valueTexts(seed int64, n int) []string {
	parts := []string{
		"none", "NULL", "n/a", "N/A", "na", "nA", "true", "False", "redacted", "UNKNOWN", "unknown", "fal", "nul", "null1",
		"?", "??", "-", "--", "x", "xx", "xxx", "XxX", "*", "**", "<", ">", "<x>", "<>", "<a>b>", "{", "{{", "{{x}}", "$", "${", "${x}",
		"\n", " ", "a", "1", "é", "\u212a", "\u017f", "fal\u017fe", "un\u212anown", "x\u212a",
	}
	rng := rand.New(rand.NewSource(seed))
	out := make([]string, n)
	for i := range out {
		var b strings.Builder
		for k := 1 + rng.Intn(3); k > 0; k-- {
			b.WriteString(parts[rng.Intn(len(parts))])
		}
		out[i] = b.String()
	}
	return append(out, parts...)
}

// trivialDisagreement returns a value where check and trivialValue's
// expression disagree, and how many values the expression takes.
func trivialDisagreement(check func(string) bool, values []string) (bad string, found bool, taken int) {
	re := trivialValue.get()
	for _, v := range values {
		want := re.MatchString(v)
		if want {
			taken++
		}
		if check(v) != want && !found {
			bad, found = v, true
		}
	}
	return bad, found, taken
}

// TestTrivialAgreesWithExpression: the hand check of key-name values says
// what trivialValue's expression says; and the test catches deliberately
// wrong checks.
func TestTrivialAgreesWithExpression(t *testing.T) {
	values := valueTexts(3, 20000)
	if bad, found, taken := trivialDisagreement(trivial, values); found {
		t.Errorf("trivial(%q) = %v, the expression says otherwise", bad, trivial(bad))
	} else if taken < 500 {
		t.Errorf("the expression takes only %d values: the texts no longer exercise it", taken)
	}
	wrong := map[string]func(string) bool{
		"xx":           func(v string) bool { return trivial(v) || v == "xx" },
		"{{ multiline": func(v string) bool { return trivial(v) || strings.HasPrefix(v, "{{") },
		"<a>b>":        func(v string) bool { return trivial(v) || strings.HasPrefix(v, "<") && strings.HasSuffix(v, ">") },
		"n/a only":     func(v string) bool { return trivial(v) && !strings.EqualFold(v, "na") },
	}
	for name, check := range wrong {
		if _, found, _ := trivialDisagreement(check, values); !found {
			t.Errorf("%s: a deliberately wrong check passes the test", name)
		}
	}
}

// TestLuhnAgreesWithRunes: the ASCII Luhn check says what the check over
// runes says, on card-like strings with spaces, dashes, Unicode digits and
// 12 to 17 digits; and the test catches a check that skips the doubling.
func TestLuhnAgreesWithRunes(t *testing.T) {
	rng := rand.New(rand.NewSource(4))
	var cards []string
	valid := 0
	for n := 0; n < 20000; n++ {
		var b strings.Builder
		for k := 12 + rng.Intn(6); k > 0; k-- {
			switch rng.Intn(12) {
			case 0:
				b.WriteByte(' ')
			case 1:
				b.WriteByte('-')
			case 2:
				b.WriteString("\u0664") // Arabic-Indic four
			}
			b.WriteByte(byte('0' + rng.Intn(10)))
		}
		cards = append(cards, b.String())
	}
	cards = append(cards, "4111 1111 1111 1111", "4111-1111-1111-1111", "4111111111111111", "41111111111111112", "")
	check := func(f func(string) bool) (string, bool) {
		for _, c := range cards {
			if f(c) != luhnRunes(c) {
				return c, true
			}
		}
		return "", false
	}
	if c, bad := check(luhn); bad {
		t.Errorf("luhn(%q) = %v, luhnRunes says otherwise", c, luhn(c))
	}
	for _, c := range cards {
		if luhnRunes(c) {
			valid++
		}
	}
	if valid < 500 {
		t.Errorf("only %d valid numbers: the strings no longer exercise the check", valid)
	}
	noDouble := func(s string) bool {
		sum, n := 0, 0
		for i := 0; i < len(s); i++ {
			if c := s[i]; c >= 0x80 {
				return luhnRunes(s)
			} else if isDigit(c) {
				sum += int(c - '0')
				n++
			}
		}
		return n >= 13 && n <= 16 && sum%10 == 0
	}
	if _, bad := check(noDouble); !bad {
		t.Error("a deliberately wrong check passes the test")
	}
}

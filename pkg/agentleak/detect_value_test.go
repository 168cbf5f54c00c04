package agentleak

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

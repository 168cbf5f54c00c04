package detect

import (
	"slices"
	"testing"
)

// TestCardUnicodeDigits: the card pattern `\b(?:\d[ -]?){13,16}\b` on
// digits of other scripts, where Python's \d and closing \b are Unicode
// and Go's \b is not. The wanted matches are what Python 3's re.finditer
// gives for each text (checked with CPython 3.11); Luhn decides afterwards
// which are reported, so the test holds the match itself, on both paths:
// the hand matcher walked as finditer walks, and the reference path's
// expression with giveBack.
func TestCardUnicodeDigits(t *testing.T) {
	t.Parallel()
	cases := []struct {
		text string
		want []string
	}{
		{"card ٣٧٤٥ ٥٣٦٤١٧ ٥١٢٣١; DOB", []string{"٣٧٤٥ ٥٣٦٤١٧ ٥١٢٣١"}},
		{"card ４１１１ １１１１ １１１１ １１１１.", []string{"４１１１ １１１１ １１１１ １１１１"}},
		{"x ٣٧٤٥٥٣٦٤١٧٥١٢٣١ب", nil},
		{"x ٣٧٤٥٥٣٦٤١٧٥١٢٣١ ب", []string{"٣٧٤٥٥٣٦٤١٧٥١٢٣١ "}},
		{"x 4111-1111-1111-1111-ب", []string{"4111-1111-1111-1111-"}},
		{"x ٤١١١-١١١١-١١١١-١١١١-", []string{"٤١١١-١١١١-١١١١-١١١١"}},
		{"x 4111 1111 1111 11١١ é", []string{"4111 1111 1111 11١١ "}},
		{"x ४१११४१११४१११४१११४", nil},
		{"١٢٣٤٥٦٧٨٩٠١٢٣٤٥٦٧٨", nil},
	}
	r := cardRule(t)
	for _, c := range cases {
		if got := finditerHand(r, c.text); !slices.Equal(got, c.want) {
			t.Errorf("hand matcher on %q: %q, Python's re: %q", c.text, got, c.want)
		}
		if got := finditerPlain(r, c.text); !slices.Equal(got, c.want) {
			t.Errorf("reference expression on %q: %q, Python's re: %q", c.text, got, c.want)
		}
	}
}

// TestCardFoundInArabicIndicDigits: the coverage pack's card in
// Arabic-Indic digits is reported by both paths, as the engine reports it.
func TestCardFoundInArabicIndicDigits(t *testing.T) {
	t.Parallel()
	text := "Phone ٤١٥-٥٥٥-٠١١٧; SSN ４０４-７０-７６０７; card ٣٧٤٥ ٥٣٦٤١٧ ٥١٢٣١; DOB १९८४-०६-०२"
	want := "pii_detector/credit_card/4/high/0.95=٣٧٤٥ ٥٣٦٤١٧ ٥١٢٣١"
	fam := map[string]bool{"pii": true}
	if got := fastRules(fam, text); !slices.Contains(got, want) {
		t.Errorf("fast path: %q lacks %q", got, want)
	}
	if got := plainRulesList(fam, text); !slices.Contains(got, want) {
		t.Errorf("reference path: %q lacks %q", got, want)
	}
}

func cardRule(t *testing.T) *rule {
	rs := builtinRules()
	for i := range rs {
		if rs[i].dt == "credit_card" && rs[i].family != famKeyname {
			return &rs[i]
		}
	}
	t.Fatal("no card rule")
	return nil
}

// finditerHand walks text as Python's finditer does, asking the hand
// matcher at every position where the pattern's leading \b holds.
func finditerHand(r *rule, text string) []string {
	return finditer(text, func(p int) []int {
		m := make([]int, 2)
		if r.match(text, p, m) != 1 {
			return nil
		}
		return m
	})
}

// finditerPlain is finditerHand with the rule's anchored expression and
// giveBack in place of the hand matcher.
func finditerPlain(r *rule, text string) []string {
	return finditer(text, func(p int) []int {
		m := r.anchored.get().FindStringIndex(text[p:])
		if m == nil {
			return nil
		}
		m[0], m[1] = m[0]+p, m[1]+p
		return r.giveBack(text, m)
	})
}

// finditer collects the matches at (p) gives, from left to right, where
// the pattern's leading \b holds, going on after each match's end.
func finditer(text string, at func(p int) []int) []string {
	var out []string
	for p := 0; p < len(text); {
		if unicodeBound(text, p) {
			if m := at(p); m != nil {
				out = append(out, text[m[0]:m[1]])
				p = m[1]
				continue
			}
		}
		_, n := firstRune(text[p:])
		p += n
	}
	return out
}

func firstRune(s string) (string, int) {
	for i := range s {
		if i > 0 {
			return s[:i], i
		}
	}
	return s, len(s)
}

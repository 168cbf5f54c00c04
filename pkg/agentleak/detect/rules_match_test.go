package detect

import (
	"math/rand"
	"slices"
	"strings"
	"testing"
)

// matchTexts are random texts for the hand matchers: the necessary-check
// tests' texts, and joins of every word list's words with their near
// misses (cut short, run on into a letter, digit, underscore or non-ASCII
// letter, in other cases) and separators.
func matchTexts(seed int64, n int) []string {
	var pool []string
	add := func(w string) {
		pool = append(pool, w, strings.ToUpper(w), strings.ToUpper(w[:1])+w[1:], w+"s", w+"_", w+"1", w+"é", w+"ing", w[:len(w)-1], w+"-", w+".")
	}
	for _, d := range builtinDetectors() {
		if d.words != nil && d.family != famHealthcare {
			for _, w := range d.words.words {
				add(w)
			}
		}
	}
	for _, w := range append(lowerAll(healthConditions), lowerAll(medications)...) {
		add(w)
	}
	pool = append(pool, " ", " ", "  ", ",", ".", "'", "\"", ":", "\n", "\u00a0", "é", "\u212a", "\u017f", "risk", "internal", "cancer du", "cancer dux",
		"a@b.co", "x.y+z@ex-ample.com", "foo@bar", "@", "DE89370400440532013000", "GB82WEST12345698765432", "FR76300060000112345678901890123456789", "ÉMILE", "ß",
		"ACC-123", "acct_4567", "CUST12345", "client-999x", "USER_12", "member123456_", "ACCT123", "Acc-", "user", "٣٤٥", "1234", "12",
		"4111 1111 1111 1111", "4111-1111-1111-1111-", "41111111111111112222", "4111 1111 1111 111 ", "(555) 123-4567", "+1 555.123.4567", "+44-555-123-4567", "1555-123-4567",
		"555\x1c123\x1c4567", "555\v123\v4567", "12 Main Street Street", "5 Oak Road Way ", "123456 Elm St", "7\x1cSt. Louis Ave.", "42  Rue Drive", "12-34 Rue Saint-Denis", "12-1234 Rue Saint-Denis", "3 4321 Av Foo", "1234 5 Av. Mont Royal Est Ouest Nord", "12 Boul René-Lévesque", "7 Ch. du Lac", "3 Avenue  Des Pins", "44 Côte Vertu", "5 rue a", "12 Rue O'Brien.", "12\x1cRue X1", "123456 Rue Foo", "1 12345 Rue Foo", "9 Chemin-Foo", "9 Dr Dr. Who", "10 Main\vSt", "412-55-9087", "123 456 789", "123-456 789",
		"Émile Zola", "Jean-Luc Picard", "Zoë Ångström", "Ab×Cd", "Ab÷cd", "Éa", "ÿa", "Àÿ Bé", "Name", "name", "Patient", "MRS", "Mr.", "mrs", "dr", "Prof", "employee", "customer_",
		"Jean", "O'Brien", "Tremblay-Roy", "Name: Jean-Luc Picard Roy", "Mr Ab Cd Ef Gh", "dr 'Àb Cd-Éf'", "patient\x1c:Zoë Ab-Cd", "client 'Ab Cd'", "Ab Cd Ef Gh", "Ab-Cd-Ef-Gh", "jean", "JEAN", ": ", ":_", "_:", "'\x1c", "\"",
		"account", "Account Number", "acct", "ACCT#", "compte", "no.", "num", "number", "#", "$", "$$", "1234567", "123456", "12345", "1,234", ",123", "12,", "$1,000,000",
		"income", "revenue", "revenu", "salary income", "gross income", "loan", "mortgage", "prêt", "pret", "amount", "montant", "balance", "solde", "salary", "salaire", "compensation", "base pay")
	seps := []string{" ", "  ", ",", ".", "'", "\"", ":", "\n", "-", "_", "\u00a0", "\x1c", "\v", "é"}
	rng := rand.New(rand.NewSource(seed))
	out := append(preTexts(seed, n/2), keyTexts(rng, n/4)...)
	for len(out) < n {
		var b strings.Builder
		for k := 1 + rng.Intn(8); k > 0; k-- {
			b.WriteString(pool[rng.Intn(len(pool))])
			if rng.Intn(2) == 0 {
				b.WriteString(seps[rng.Intn(len(seps))])
			}
		}
		out = append(out, b.String())
	}
	return out
}

// keyTexts are random texts for the key-name Matcher: a stem's spellings
// in any case, quoted or not, then the quotes, spaces (Unicode ones and
// newlines among them), colons and values (empty, quoted, cut by the
// value class's bytes, non-ASCII) in random joins.
func keyTexts(rng *rand.Rand, n int) []string {
	var keys []string
	for _, k := range keyStems {
		keys = append(keys, newKeyMatch(k.stem).forms...)
	}
	pick := func(ws []string) string { return ws[rng.Intn(len(ws))] }
	lead := []string{"", "", "\"", "'", " ", "x", "_", "é", "{\"", "K"}
	seps := []string{"", "", "", "\"", "'", " ", "  ", "\n", "\t", "\v", "\x1c", "\u00a0", "\u2028", "\u0085", "s", "_", "é", ":", "="}
	colon := []string{":", "=", ":", "=", "", "-", ": :", "=="}
	vals := []string{"", "123-45-6789", " John Smith", "'Emma'", "\"x\"", ",", "|", "}", "\n", "\n\nv", " \n", "\"\"", "''", "é", "José", "a", " ", "\t ", "\"", "'", "\x1cv", "\u00a0v", "ok, more"}
	out := make([]string, n)
	for i := range out {
		var b strings.Builder
		for k := 1 + rng.Intn(3); k > 0; k-- {
			b.WriteString(pick(lead))
			w := pick(keys)
			switch rng.Intn(3) {
			case 0:
				w = strings.ToUpper(w)
			case 1:
				w = strings.ToUpper(w[:1]) + w[1:]
			}
			if rng.Intn(6) == 0 {
				w = w[:rng.Intn(len(w))+1]
			}
			b.WriteString(w)
			b.WriteString(pick(seps))
			b.WriteString(pick(seps))
			b.WriteString(pick(colon))
			b.WriteString(pick(seps))
			b.WriteString(pick(seps))
			b.WriteString(pick(vals))
			b.WriteString(pick(vals))
		}
		out[i] = b.String()
	}
	return out
}

// matchDisagreement returns the first text and position where the hand
// Matcher and the rule's anchored expression disagree (the Matcher
// leaving the position to the expression is no disagreement), and how
// many positions the Matcher decided with a match.
func matchDisagreement(r *rule, match func(string, int, []int) int, texts []string) (text string, at, matched int) {
	m := make([]int, 2*r.group+2)
	re := r.anchored.get()
	for _, s := range texts {
		for p := 0; p <= len(s); p++ {
			got := match(s, p, m)
			if got == -1 {
				continue
			}
			want := re.FindStringSubmatchIndex(s[p:])
			if want != nil && r.givesBack {
				want[0], want[1] = want[0]+p, want[1]+p
				if want = r.giveBack(s, want); want != nil {
					want[0], want[1] = want[0]-p, want[1]-p
				}
			}
			switch {
			case got == 0 && want == nil:
				continue
			case got == 1 && want != nil && sameGroups(m, want, p):
				matched++
				continue
			}
			if text == "" {
				text, at = s, p
			}
		}
	}
	return text, at, matched
}

// sameGroups: the hand match m (indexes into the text) is the
// expression's match want at p (indexes from p), the reported group and
// those before it.
func sameGroups(m, want []int, p int) bool {
	for k := range m {
		if w := want[k]; w < 0 && m[k] != w || w >= 0 && m[k] != p+w {
			return false
		}
	}
	return true
}

// TestHandMatchersAgreeWithExpressions: wherever a rule's hand Matcher
// decides (a match or none), its anchored expression decides the same,
// with the same end.
func TestHandMatchersAgreeWithExpressions(t *testing.T) {
	t.Parallel()
	skipUnderShort(t)
	texts := matchTexts(21, 6000)
	e := builtin()
	n := 0
	for i := range e.rules {
		r := &e.rules[i]
		if r.match == nil {
			continue
		}
		n++
		if text, at, matched := matchDisagreement(r, r.match, texts); text != "" {
			m := make([]int, 2*r.group+2)
			got := r.match(text, at, m)
			t.Errorf("rule %d %s/%s at %d of %q: the hand Matcher says %d %v, %s says %v",
				i, r.family, r.dt, at, text, got, m, r.anchored.src, r.anchored.get().FindStringSubmatchIndex(text[at:]))
		} else if matched < 20 {
			t.Errorf("rule %d %s/%s: only %d matches: the texts no longer exercise it", i, r.family, r.dt, matched)
		}
	}
	if n < 10 {
		t.Errorf("only %d rules have a hand Matcher", n)
	}
}

// TestHandMatcherTestCatchesWrongMatchers: the test above fails for
// matchers that are deliberately wrong: words tried in another order, the
// \b after a word forgotten, the \w* tail dropped.
func TestHandMatcherTestCatchesWrongMatchers(t *testing.T) {
	skipUnderShort(t)
	texts := matchTexts(21, 6000)
	e := builtin()
	ruleOf := func(dt string) *rule {
		for i := range e.rules {
			if r := &e.rules[i]; r.dt == dt && r.family != famKeyname {
				return r
			}
		}
		t.Fatalf("no rule %s", dt)
		return nil
	}
	conditions := lowerAll(dictOrder(healthConditions))
	slices.Reverse(conditions)
	noBound := func(match func(string, int, []int) int) func(string, int, []int) int {
		return func(s string, p int, m []int) int {
			got := match(s, p, m)
			if got == 0 && strings.HasPrefix(strings.ToLower(s[p:]), "terminateds") {
				m[0], m[1] = p, p+len("terminated")
				return 1
			}
			return got
		}
	}
	wrong := []struct {
		dt    string
		match func(string, int, []int) int
	}{
		{"health_condition", words(conditions...).Matcher()},
		{"employment_status", noBound(ruleOf("employment_status").match)},
		{"performance_review", words(detectorOf(t, "performance_review").words.words...).Matcher()},
		{"sin", matchFixed("ddd-ddd-ddd")},
		{"credit_card", func(s string, p int, m []int) int {
			got := matchCard(s, p, m)
			if got == 1 && m[1] > p && (s[m[1]-1] == ' ' || s[m[1]-1] == '-') {
				m[1]--
			}
			return got
		}},
		{"phone_number", func(s string, p int, m []int) int {
			got := matchPhone(s, p, m)
			if got == 1 && byteAt(s, p) != '+' && m[1]-p > 14 {
				return 0
			}
			return got
		}},
		{"client_identifier", func(s string, p int, m []int) int {
			got := matchClientID(s, p, m)
			if got == 0 && strings.HasPrefix(strings.ToLower(s[p:]), "user_12") {
				m[0], m[1] = p, p+7
				return 1
			}
			return got
		}},
		{"address", func(s string, p int, m []int) int {
			got := matchStreet(s, p, m)
			if got == 1 && strings.Count(s[p:m[1]], " ") > 2 {
				return 0 // three words never
			}
			return got
		}},
		{"person_name", func(s string, p int, m []int) int {
			got := matchName(s, p, m)
			if got == 1 && strings.Count(s[m[2]:m[3]], " ")+strings.Count(s[m[2]:m[3]], "-") == 2 {
				m[3] = m[2] + strings.LastIndexAny(s[m[2]:m[3]], " -")
				m[1] = m[3] // two words at most
			}
			return got
		}},
		{"person_name", func(s string, p int, m []int) int {
			got := matchName(s, p, m)
			if got == 1 && s[m[2]] >= 0x80 {
				return 0 // À-Ý forgotten
			}
			return got
		}},
		{"income", func(s string, p int, m []int) int {
			got := detectorOf(t, "income").amount.match(s, p, m)
			if got == 1 && s[m[2]-1] == '$' {
				return 0 // the dollar forgotten
			}
			return got
		}},
		{"loan_amount", (&amountMatch{keys: detectorOf(t, "loan_amount").amount.keys, more: 3}).match},
		{"account_number", (&amountMatch{keys: []string{"account", "acct", "compte"}, opts: []string{"number", "no", "num", "#"}, digits: 5}).match},
		{"email", func(s string, p int, m []int) int {
			got := matchEmail(s, p, m)
			if got == 1 && m[1] > p+1 && s[m[1]-1] != '.' {
				m[1]--
			}
			return got
		}},
	}
	keyRule := func(dt string) *rule {
		for i := range e.rules {
			if r := &e.rules[i]; r.dt == dt && r.family == famKeyname {
				return r
			}
		}
		t.Fatalf("no key-name rule %s", dt)
		return nil
	}
	// (The stems' spellings exclude each other where a key ends, so their
	// order cannot be caught; a spelling left out can.)
	noUnderscore := newKeyMatch(keyStems[0].stem)
	noUnderscore.forms = slices.DeleteFunc(noUnderscore.forms, func(f string) bool { return strings.Contains(f, "_") })
	wrongKeys := []struct {
		dt    string
		match func(string, int, []int) int
	}{
		{"ssn", noUnderscore.match},
		{"address", func(s string, p int, m []int) int {
			got := keyRule("address").match(s, p, m)
			if got == 1 && m[2] > 0 && keySpace(s[m[2]]) {
				return 0 // the value never begins among the spaces
			}
			return got
		}},
		{"phone_number", func(s string, p int, m []int) int {
			got := keyRule("phone_number").match(s, p, m)
			if got == 1 && m[2] > 0 && (s[m[2]-1] == '"' || s[m[2]-1] == '\'') {
				m[2]-- // the quote before the value taken into it
			}
			return got
		}},
	}
	for _, w := range wrongKeys {
		if text, _, _ := matchDisagreement(keyRule(w.dt), w.match, texts); text == "" {
			t.Errorf("key-name %s: a deliberately wrong Matcher passes the test", w.dt)
		}
	}
	for _, w := range wrong {
		if text, _, _ := matchDisagreement(ruleOf(w.dt), w.match, texts); text == "" {
			t.Errorf("%s: a deliberately wrong Matcher passes the test", w.dt)
		}
	}
}

package detect

import (
	"math/rand"
	"regexp"
	"strings"
	"testing"

	"github.com/lfcli/lf/pkg/internal/testfiles"
)

// TestKeyPreIsNecessary: wherever a key-name pattern matches, keyPre says
// yes. Texts are random joins of stems' words, other words, separators,
// quotes, the spaces Python's \s accepts, colons and non-ASCII bytes.
func TestKeyPreIsNecessary(t *testing.T) {
	testfiles.SkipUnlessFull(t)
	var res []*regexp.Regexp
	for _, k := range keyStems {
		res = append(res, regexp.MustCompile(`^`+pyClasses(`(?i)["']?\b(?:`+k.stem+`)\b["']?\s*[:=]`)))
	}
	parts := []string{
		"date", "of", "birth", "DOB", "social", "security", "number", "home", "address", "credit", "score",
		"patient", "name", "the", "we", "agreed", "on", "x", " ", "  ", "_", "-", "\"", "'", ":", "=",
		"\t", "\n", "\v", "\f", "\r", "\x1c", "\x1f", "\u00a0", "\u2028", "é", "K", "\u212a", "7", ".",
	}
	keys := []string{
		"date of birth", "social_security_number", "DOB", "home address", "Credit Score", "patient name", "'mrn'", "\"phone\"",
		"birth_date", "Medical Record Number", "'account_no'", "full name", "mailing_address", "Phone Number", "health_ID", "Diagnoses",
		"prescriptions", "rx", "Base Pay", "disciplinary_note", "card number", "iban", "sin", "Social Insurance", "nam", "name",
	}
	var keyRules []*rule
	for i := range builtin().rules {
		if r := &builtin().rules[i]; r.family == famKeyname {
			keyRules = append(keyRules, r)
		}
	}
	// Wrong checks the test must catch: a form left out, a separator
	// refused, the quote after the key forgotten.
	stemOf := func(dt string) int {
		for k := range keyStems {
			if keyStems[k].dt == dt {
				return k
			}
		}
		panic(dt)
	}
	without := func(dt, form string) func(string, int) bool {
		f := stemForms(keyStems[stemOf(dt)].stem)
		delete(f, form)
		return keyStemPre(f)
	}
	wrong := []*struct {
		stem   int
		pre    func(string, int) bool
		caught bool
	}{
		{stem: stemOf("date_of_birth"), pre: without("date_of_birth", "birthdate")},
		{stem: stemOf("ssn"), pre: func(s string, p int) bool {
			return keyRules[stemOf("ssn")].pre(s, p) && !strings.HasPrefix(s[p:], "social_")
		}},
		{stem: stemOf("phone_number"), pre: func(s string, p int) bool {
			return keyRules[stemOf("phone_number")].pre(s, p) && !strings.HasPrefix(s[p:], "\"phone\"")
		}},
	}
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
			for k, re := range res {
				if re.MatchString(text[p:]) {
					matched++
					if !keyPre(text, p) {
						t.Fatalf("keyPre(%q, %d) = false, but %s matches there", text, p, re)
					}
					if !keyRules[k].pre(text, p) {
						t.Fatalf("%s: the stem's check says no at %d of %q, but %s matches there", keyRules[k].dt, p, text, re)
					}
					for _, w := range wrong {
						if w.stem == k && !w.pre(text, p) {
							w.caught = true
						}
					}
				}
			}
			checked++
		}
	}
	if matched < 1000 {
		t.Fatalf("only %d matches in %d positions: the generator no longer exercises the patterns", matched, checked)
	}
	for _, w := range wrong {
		if !w.caught {
			t.Errorf("a deliberately wrong check for %s passes the test", keyStems[w.stem].dt)
		}
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
	testfiles.SkipUnlessFull(t)
	e := builtin()
	var words []string
	for _, ws := range detectorTriggers() {
		words = append(words, ws...)
	}
	for _, k := range keyStems {
		// The keys, and the first word of each (a trigger word before the
		// trie held whole keys).
		for _, f := range keyTriggers(k.stem) {
			words = append(words, f, strings.FieldsFunc(f, func(r rune) bool { return r == ' ' || r == '_' })[0])
		}
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

// preFragments add to the differential test's fragments the separators
// Python's \s has beyond the usual six (\x1c-\x1f, \x85 and \v, which Go's \s
// lacks) inside the shapes the digit and capital rules want.
var preFragments = append(append([]string(nil), fragments...),
	"\x1c", "\x1d", "\x1f", "\v", "\u0085", "\u2028",
	"555\x1c123\x1c4567", "(555)\x1f123-4567", "+1\x1d555 123 4567", "+44 20 7946 0958", "555.123.4567", "5551234567", "1-800-555-0199", "1555 123 4567", "44555-123-4567", "1(555) 123-4567", "+44 (20) 794-6095", "+1-(555) 123 4567",
	"AB\x1c12\x1c34\x1c56\x1cC", "AB 12 34 56 D", "ABCD\x1c1234\x1c5678", "NAM\x1cTREM 8842", "12\x1cMain Street", "12 Main\x1cSt", "12\x1cRue Saint-Denis",
	"patient:\x1cJean Tremblay", "Name: Jean-Luc Picard", "name': 'Emma',", "Mr. Smith", "dr Who",
	"2022-01-01", "2022, 1, 1", "100.0, ", "id=1, ", "10:30", "3GS", "1234 5678 9012 3456", "4111-1111-1111-1111 ", "123 456 789 ", "192.168.0.1", "256.1.1.1", "1.2.3.4.5",
	"account no: 12345678", "Acct# 1234567", "loan montant: 250,000", "Mortgage Amount $410,000", "balance: $1,20", "solde 999", "base pay: 85,000", "salary $95,000", "revenue 1,234", "income: 5,000", "date='2022-01-01'", "date: ", "password: hunter22!", "api_key=abcdef123", "token = \"s3cr3tValue\"", "Birthday Party", "Credit Card Number': ", "card number: 4111", "medical condition: ", "health_id: ", "Names: ",
)

// preTexts draws random texts from preFragments, the way randomText does.
func preTexts(seed int64, n int) []string {
	rng := rand.New(rand.NewSource(seed))
	out := make([]string, n)
	for k := range out {
		pool := make([]string, 2+rng.Intn(6))
		for i := range pool {
			pool[i] = preFragments[rng.Intn(len(preFragments))]
		}
		var b strings.Builder
		for i := 1 + rng.Intn(12); i > 0; i-- {
			b.WriteString(pool[rng.Intn(len(pool))])
			if rng.Intn(3) == 0 {
				b.WriteByte(' ')
			}
		}
		out[k] = b.String()
	}
	return out
}

// preViolation returns the first text and position where re (anchored)
// matches and pre says no, and how many matches it saw.
func preViolation(pre func(string, int) bool, re *regexp.Regexp, texts []string) (text string, at, matched int) {
	for _, s := range texts {
		for p := 0; p <= len(s); p++ {
			if re.MatchString(s[p:]) {
				matched++
				if !pre(s, p) && text == "" {
					text, at = s, p
				}
			}
		}
	}
	return text, at, matched
}

// TestEveryPreCheckIsNecessary: for every rule with a necessary check,
// wherever its anchored expression matches in random texts of the rules'
// shapes, near misses and every kind of space, the check says yes.
func TestEveryPreCheckIsNecessary(t *testing.T) {
	testfiles.SkipUnlessFull(t)
	texts := preTexts(11, 8000)
	e := builtin()
	for i := range e.rules {
		r := &e.rules[i]
		if r.pre == nil {
			continue
		}
		text, at, matched := preViolation(r.pre, r.anchored.get(), texts)
		if text != "" {
			t.Errorf("rule %d %s/%s: the check says no at %d of %q, where %s matches", i, r.family, r.dt, at, text, r.anchored.src)
		}
		if matched == 0 && r.family != famKeyname {
			t.Errorf("rule %d %s/%s: no match in the texts: the generator no longer exercises it", i, r.family, r.dt)
		}
	}
}

// TestPreCheckTestCatchesWrongChecks: the test above fails for checks that
// are deliberately wrong in the ways a real one could be (a separator
// forgotten, a shape too strict).
func TestPreCheckTestCatchesWrongChecks(t *testing.T) {
	testfiles.SkipUnlessFull(t)
	texts := preTexts(11, 8000)
	e := builtin()
	ruleOf := func(dt, src string) *rule {
		for i := range e.rules {
			if r := &e.rules[i]; r.dt == dt && strings.Contains(r.re.src, src) {
				return r
			}
		}
		t.Fatalf("no rule %s with %q", dt, src)
		return nil
	}
	noFS := func(pre func(string, int) bool) func(string, int) bool {
		return func(s string, p int) bool {
			return !strings.ContainsAny(s[p:min(p+24, len(s))], "\x1c\x1d\x1e\x1f") && pre(s, p)
		}
	}
	wrong := []struct {
		r   *rule
		pre func(string, int) bool
	}{
		{ruleOf("phone_number", `\(`), noFS(prePhone)},
		{ruleOf("national_insurance_number", ""), noFS(preNINO)},
		{ruleOf("address", "Street"), noFS(preStreet)},
		{ruleOf("person_name", ""), noFS(preName)},
		{ruleOf("ssn", ""), func(s string, p int) bool { return preSSN(s, p) && byteAt(s, p+11) != ' ' }},
		{ruleOf("credit_card", ""), func(s string, p int) bool { return preCard(s, p) && byteAt(s, p+4) != '-' }},
		{ruleOf("credit_card", ""), func(s string, p int) bool { return preCard(s, p) && p+13 < len(s) }},
		{ruleOf("credit_card", ""), func(s string, p int) bool { return preCard(s, p) && byteAt(s, p+12) != ' ' }},
		{ruleOf("ip_address", "25"), func(s string, p int) bool { return preIPv4(s, p) && byteAt(s, p+1) != '.' }},
		{ruleOf("phone_number", `\(`), func(s string, p int) bool { return prePhone(s, p) && !isDigit(byteAt(s, p+3)) }},
		{ruleOf("phone_number", `\(`), func(s string, p int) bool { return prePhone(s, p) && byteAt(s, p+1) != '(' && byteAt(s, p+2) != '(' }},
		{ruleOf("person_name", ""), func(s string, p int) bool { return preName(s, p) && !strings.Contains(s[p:min(p+16, len(s))], "-") }},
		{ruleOf("person_name", ""), func(s string, p int) bool { return preName(s, p) && !strings.HasPrefix(s[p:], "Mr") }},
		{ruleOf("account_number", ""), amountPre([]string{"account", "acct", "compte"}, []string{"number", "num"}, sixDigits)},
		{ruleOf("income", ""), amountPre([]string{"income", "revenue", "revenu", "salary income", "gross income"}, nil, amountValue(4))},
		{ruleOf("loan_amount", ""), amountPre([]string{"loan", "mortgage", "prêt", "pret"}, []string{"amount"}, amountValue(3))},
		{ruleOf("account_balance", ""), amountPre([]string{"balance", "solde"}, nil, amountValue(3))},
		{ruleOf("salary", ""), amountPre([]string{"salary", "salaire", "compensation"}, nil, amountValue(3))},
		{ruleOf("phone_number", `\(`), func(s string, p int) bool { return prePhone(s, p) && p+12 < len(s) }},
		{ruleOf("phone_number", `\(`), func(s string, p int) bool { return prePhone(s, p) && byteAt(s, p+6) != ')' }},
		{ruleOf("ip_address", "25"), func(s string, p int) bool { return preIPv4(s, p) && p+7 < len(s) }},
		{ruleOf("sin", ""), func(s string, p int) bool { return preSIN(s, p) && byteAt(s, p+3) != ' ' }},
		{ruleOf("address", "Street"), func(s string, p int) bool { return preStreet(s, p) && byteAt(s, p+2) != ' ' }},
		{ruleOf("address", "Rue"), func(s string, p int) bool { return preRue(s, p) && byteAt(s, p+2) != '-' }},
	}
	for _, w := range wrong {
		if text, _, _ := preViolation(w.pre, w.r.anchored.get(), texts); text == "" {
			t.Errorf("%s/%s: a deliberately wrong check passes the test", w.r.family, w.r.dt)
		}
	}
}

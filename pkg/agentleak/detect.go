package agentleak

import (
	"bytes"
	"strings"
)

// The built-in detectors. Each one is a small hand-written scanner started
// from a cheap trigger: a keyword found by one Aho-Corasick pass over the
// lowercased text, an '@', or the start of a word beginning with a digit or
// an upper-case letter. No regular expression runs on the hot path.

// action says what to do where a keyword occurs.
type action uint8

const (
	actTerm        action = iota // the keyword itself is the finding
	actName                      // capitalised words follow: a person name
	actDOB                       // a date follows
	actAmount                    // an amount follows (income, salary, balance)
	actCreditScore               // a three-digit score follows
	actAccount                   // an account number follows
	actSecret                    // `: value` or `= value` follows: a secret
	actKeyname                   // `: value` follows a sensitive key name
	actPrefix                    // a token with a known prefix (sk-, ghp_, ...)
	actClientID                  // digits follow (CUST-, user_)
)

type keyword struct {
	word   string
	act    action
	dt     string // data type reported (or checked) for the finding
	family string
}

// keywords lists the triggers per family, in lower case (they match
// case-insensitively).
var keywords = []keyword{
	{"name", actName, "person_name", famPII},
	{"patient", actName, "person_name", famPII},
	{"client", actName, "person_name", famPII},
	{"employee", actName, "person_name", famPII},
	{"dob", actDOB, "date_of_birth", famPII},
	{"date of birth", actDOB, "date_of_birth", famPII},
	{"birth date", actDOB, "date_of_birth", famPII},
	{"birthdate", actDOB, "date_of_birth", famPII},
	{"born on", actDOB, "date_of_birth", famPII},
	{"cust-", actClientID, "client_identifier", famPII},
	{"user_", actClientID, "client_identifier", famPII},
	{"client_", actClientID, "client_identifier", famPII},
	{"customer-", actClientID, "client_identifier", famPII},

	{"password", actSecret, "secret_assignment", famSecrets},
	{"passwd", actSecret, "secret_assignment", famSecrets},
	{"api key", actSecret, "secret_assignment", famSecrets},
	{"api_key", actSecret, "secret_assignment", famSecrets},
	{"apikey", actSecret, "secret_assignment", famSecrets},
	{"secret_key", actSecret, "secret_assignment", famSecrets},
	{"client_secret", actSecret, "secret_assignment", famSecrets},
	{"access_token", actSecret, "secret_assignment", famSecrets},
	{"auth_token", actSecret, "secret_assignment", famSecrets},
	{"sk-", actPrefix, "api_key", famSecrets},
	{"akia", actPrefix, "api_key", famSecrets},
	{"ghp_", actPrefix, "access_token", famSecrets},
	{"gho_", actPrefix, "access_token", famSecrets},
	{"xoxb-", actPrefix, "access_token", famSecrets},
	{"xoxp-", actPrefix, "access_token", famSecrets},
	{"bearer ", actPrefix, "access_token", famSecrets},
	{"eyj", actPrefix, "jwt", famSecrets},
	{"-----begin", actPrefix, "private_key", famSecrets},

	{"diabetes", actTerm, "health_condition", famHealthcare},
	{"hiv", actTerm, "health_condition", famHealthcare},
	{"aids", actTerm, "health_condition", famHealthcare},
	{"depression", actTerm, "health_condition", famHealthcare},
	{"anxiety", actTerm, "health_condition", famHealthcare},
	{"epilepsy", actTerm, "health_condition", famHealthcare},
	{"alzheimer", actTerm, "health_condition", famHealthcare},
	{"pregnancy", actTerm, "health_condition", famHealthcare},
	{"hypertension", actTerm, "health_condition", famHealthcare},
	{"cancer", actTerm, "health_condition", famHealthcare},
	{"asthma", actTerm, "health_condition", famHealthcare},
	{"schizophrenia", actTerm, "health_condition", famHealthcare},
	{"bipolar", actTerm, "health_condition", famHealthcare},
	{"dementia", actTerm, "health_condition", famHealthcare},
	{"hepatitis", actTerm, "health_condition", famHealthcare},
	{"tuberculosis", actTerm, "health_condition", famHealthcare},
	{"insulin", actTerm, "medication", famHealthcare},
	{"antiretroviral", actTerm, "medication", famHealthcare},
	{"metformin", actTerm, "medication", famHealthcare},
	{"chemotherapy", actTerm, "medication", famHealthcare},
	{"antidepressant", actTerm, "medication", famHealthcare},
	{"antidepressants", actTerm, "medication", famHealthcare},

	{"account", actAccount, "account_number", famFinance},
	{"income", actAmount, "income", famFinance},
	{"balance", actAmount, "balance", famFinance},
	{"credit score", actCreditScore, "credit_score", famFinance},
	{"internal risk note", actTerm, "internal_note", famFinance},
	{"internal note", actTerm, "internal_note", famFinance},

	{"salary", actAmount, "salary", famHR},
	{"sick leave", actTerm, "sick_leave", famHR},
	{"stress leave", actTerm, "sick_leave", famHR},
	{"medical leave", actTerm, "sick_leave", famHR},
	{"disciplinary", actTerm, "disciplinary_action", famHR},
	{"final warning", actTerm, "disciplinary_action", famHR},
	{"written warning", actTerm, "disciplinary_action", famHR},
	{"performance review", actTerm, "performance_review", famHR},
	{"performance improvement plan", actTerm, "performance_review", famHR},
	{"termination", actTerm, "employment_status", famHR},
	{"terminated", actTerm, "employment_status", famHR},
	{"severance", actTerm, "employment_status", famHR},
	{"laid off", actTerm, "employment_status", famHR},

	{"diagnosis", actKeyname, "health_condition", famKeyname},
	{"medication", actKeyname, "medication", famKeyname},
	{"address", actKeyname, "address", famKeyname},
	{"account id", actKeyname, "account_number", famKeyname},
	{"account number", actKeyname, "account_number", famKeyname},
	{"income", actKeyname, "income", famKeyname},
	{"salary", actKeyname, "salary", famKeyname},
	{"credit score", actKeyname, "credit_score", famKeyname},
	{"disciplinary action", actKeyname, "disciplinary_action", famKeyname},
	{"performance review", actKeyname, "performance_review", famKeyname},
}

// patternSet is the built-in detectors enabled by a config.
type patternSet struct {
	fam      map[string]bool
	words    []string // automaton patterns: keyword words, lower case
	kws      []keyword
	kwm      *matcher
	kwByWord [][]int // pattern id -> keyword indexes
	state    *ruleState
}

func newPatternSet(enabled map[string]bool) *patternSet {
	ps := &patternSet{fam: enabled, state: newRuleState()}
	idx := map[string]int{}
	var words []string
	for _, k := range keywords {
		if !enabled[k.family] {
			continue
		}
		ps.kws = append(ps.kws, k)
		id, ok := idx[k.word]
		if !ok {
			id = len(words)
			idx[k.word] = id
			words = append(words, k.word)
			ps.kwByWord = append(ps.kwByWord, nil)
		}
		ps.kwByWord[id] = append(ps.kwByWord[id], len(ps.kws)-1)
	}
	ps.words = words
	ps.kwm = newMatcher(words)
	return ps
}

// hit is one automaton match: pattern id and span.
type hit struct{ id, s, e int32 }

// scanWithHits is scan with the keyword matches already found (by an
// automaton that also holds a vault's values).
func (ps *patternSet) scanWithHits(text string, emit emitFunc, hits []hit) {
	ps.runRules(text, strings.ToLower(text), emit)
}

func (ps *patternSet) oldScanWithHits(text string, emit emitFunc, hits []hit) {
	if ps.fam[famPII] {
		scanEmails(text, emit)
	}
	if ps.fam[famPII] || ps.fam[famHealthcare] || ps.fam[famFinance] {
		ps.scanWords(text, emit)
	}
	for _, h := range hits {
		for _, ki := range ps.kwByWord[h.id] {
			ps.keyword(text, &ps.kws[ki], int(h.s), int(h.e), emit)
		}
	}
}

// emitFunc receives one detection: the data type reported, the key into
// builtinTypes (or "" for keyname findings, which carry their own level),
// the family and the matched text.
type emitFunc func(dt, typeKey, family, value string)

func isWordByte(c byte) bool {
	return c == '_' || c-'0' < 10 || (c|0x20)-'a' < 26 || c >= 0x80
}
func isDigit(c byte) bool      { return c-'0' < 10 }
func isUpper(c byte) bool      { return c-'A' < 26 }
func isLower(c byte) bool      { return c-'a' < 26 }
func isAlnumUpper(c byte) bool { return isDigit(c) || isUpper(c) }

func leftBound(t string, s int) bool  { return s == 0 || !isWordByte(t[s-1]) }
func rightBound(t string, e int) bool { return e >= len(t) || !isWordByte(t[e]) }

// scan runs every enabled built-in detector over text; lower is text with
// ASCII letters lowercased.
func (ps *patternSet) scan(text string, lower []byte, emit emitFunc) {
	ps.runRules(text, string(lower), emit)
}

func (ps *patternSet) oldScan(text string, lower []byte, emit emitFunc) {
	if ps.fam[famPII] {
		scanEmails(text, emit)
	}
	if ps.fam[famPII] || ps.fam[famHealthcare] || ps.fam[famFinance] {
		ps.scanWords(text, emit)
	}
	if len(ps.kws) > 0 {
		ps.kwm.each(lower, func(id, s, e int) {
			for _, ki := range ps.kwByWord[id] {
				ps.keyword(text, &ps.kws[ki], s, e, emit)
			}
		})
	}
}

func (ps *patternSet) keyword(t string, k *keyword, s, e int, emit emitFunc) {
	switch k.act {
	case actTerm:
		if leftBound(t, s) && rightBound(t, e) {
			emit(k.dt, k.dt, k.family, t[s:e])
		}
	case actName:
		if leftBound(t, s) && rightBound(t, e) {
			if v := nameAfter(t, e); v != "" {
				emit(k.dt, k.dt, k.family, v)
			}
		}
	case actDOB:
		if leftBound(t, s) && rightBound(t, e) {
			if v := dateAfter(t, e); v != "" {
				emit(k.dt, k.dt, k.family, v)
			}
		}
	case actAmount:
		if leftBound(t, s) && rightBound(t, e) {
			if v := amountAfter(t, e); v != "" {
				emit(k.dt, k.dt, k.family, v)
			}
		}
	case actCreditScore:
		if leftBound(t, s) {
			i := skipSep(t, e, " \t:")
			j := digitsEnd(t, i)
			if j-i == 3 && rightBound(t, j) {
				emit(k.dt, k.dt, k.family, t[i:j])
			}
		}
	case actAccount:
		if leftBound(t, s) {
			i := e
			for _, suf := range []string{" number", " no.", " no", " #"} {
				if len(t)-i >= len(suf) && strings.EqualFold(t[i:i+len(suf)], suf) {
					i += len(suf)
					break
				}
			}
			if !(i == e && !rightBound(t, e)) {
				i = skipSep(t, i, " \t:'\"#=")
				j := digitsEnd(t, i)
				if j-i >= 6 && j-i <= 17 && rightBound(t, j) {
					emit(k.dt, k.dt, k.family, t[i:j])
				}
			}
		}
	case actSecret:
		if leftBound(t, s) && rightBound(t, e) {
			i := skipSep(t, e, " \t")
			if i < len(t) && (t[i] == ':' || t[i] == '=') {
				i = skipSep(t, i+1, " \t\"'")
				j := i
				for j < len(t) && t[j] != ' ' && t[j] != '\t' && t[j] != '\n' && t[j] != '\r' && t[j] != '"' && t[j] != '\'' && t[j] != ',' && t[j] != '|' {
					j++
				}
				if j-i >= 4 {
					emit(k.dt, k.dt, k.family, t[i:j])
				}
			}
		}
	case actKeyname:
		if !leftBound(t, s) || !rightBound(t, e) {
			return
		}
		i := e
		if i < len(t) && (t[i] == '"' || t[i] == '\'') {
			i++
		}
		i = skipSep(t, i, " \t")
		if i >= len(t) || t[i] != ':' {
			return
		}
		i = skipSep(t, i+1, " \t")
		if i < len(t) && (t[i] == '"' || t[i] == '\'') {
			i++
		}
		j := i
		for j < len(t) && j-i < 120 && !strings.ContainsRune("|,;\"'}\n\r", rune(t[j])) {
			j++
		}
		v := strings.TrimRight(t[i:j], " \t")
		if len(v) >= 2 {
			emit(k.dt, "", k.family, v)
		}
	case actClientID:
		if !leftBound(t, s) {
			return
		}
		j := digitsEnd(t, e)
		if j-e >= 3 && rightBound(t, j) {
			emit(k.dt, k.dt, k.family, t[s:j])
		}
	case actPrefix:
		prefixToken(t, k, s, e, emit)
	}
}

func prefixToken(t string, k *keyword, s, e int, emit emitFunc) {
	if !leftBound(t, s) && k.word != "-----begin" {
		return
	}
	j := e
	tokenChar := func(c byte) bool { return isWordByte(c) && c < 0x80 || c == '-' }
	switch k.word {
	case "akia":
		if t[s:e] != "AKIA" {
			return
		}
		for j < len(t) && isAlnumUpper(t[j]) {
			j++
		}
		if j-e != 16 {
			return
		}
	case "bearer ":
		for j < len(t) && (tokenChar(t[j]) || t[j] == '.' || t[j] == '~' || t[j] == '+' || t[j] == '/' || t[j] == '=') {
			j++
		}
		if j-e < 16 {
			return
		}
		emit(k.dt, k.dt, k.family, t[e:j])
		return
	case "eyj":
		dots := 0
		for j < len(t) && (tokenChar(t[j]) || t[j] == '.') {
			if t[j] == '.' {
				dots++
			}
			j++
		}
		if dots != 2 || j-s < 30 || t[s:e] != "eyJ" {
			return
		}
	case "-----begin":
		end := strings.Index(t[e:], "PRIVATE KEY-----")
		if end < 0 || end > 40 {
			return
		}
		j = e + end + len("PRIVATE KEY-----")
	default:
		for j < len(t) && tokenChar(t[j]) {
			j++
		}
		if j-e < 20 {
			return
		}
	}
	if !rightBound(t, j) && k.word != "-----begin" {
		return
	}
	emit(k.dt, k.dt, k.family, t[s:j])
}

func skipSep(t string, i int, set string) int {
	for i < len(t) && strings.IndexByte(set, t[i]) >= 0 {
		i++
	}
	return i
}

func digitsEnd(t string, i int) int {
	for i < len(t) && isDigit(t[i]) {
		i++
	}
	return i
}

// nameAfter reads two or three capitalised words after a name keyword and
// the separators (`: "`) between them.
func nameAfter(t string, i int) string {
	start := i
	for i < len(t) && i-start < 4 && strings.IndexByte(" \t:\"'", t[i]) >= 0 {
		i++
	}
	if i == start {
		return ""
	}
	s := i
	words := 0
	end := i
	for words < 3 {
		j := i
		if j >= len(t) || !isUpper(t[j]) {
			break
		}
		j++
		k := j
		for k < len(t) && isLower(t[k]) {
			k++
		}
		if k == j || !rightBound(t, k) {
			break
		}
		words++
		end = k
		if k+1 < len(t) && t[k] == ' ' && isUpper(t[k+1]) {
			i = k + 1
			continue
		}
		break
	}
	if words < 2 {
		return ""
	}
	return t[s:end]
}

// dateAfter reads a date (YYYY-MM-DD, DD/MM/YYYY or MM/DD/YYYY) after a
// birth keyword.
func dateAfter(t string, i int) string {
	i = skipSep(t, i, " \t:")
	if i+10 > len(t) {
		return ""
	}
	d := t[i : i+10]
	iso := isDigit(d[0]) && isDigit(d[1]) && isDigit(d[2]) && isDigit(d[3]) && d[4] == '-' && isDigit(d[5]) && isDigit(d[6]) && d[7] == '-' && isDigit(d[8]) && isDigit(d[9])
	slash := isDigit(d[0]) && isDigit(d[1]) && d[2] == '/' && isDigit(d[3]) && isDigit(d[4]) && d[5] == '/' && isDigit(d[6]) && isDigit(d[7]) && isDigit(d[8]) && isDigit(d[9])
	if (iso || slash) && rightBound(t, i+10) {
		return d
	}
	return ""
}

// amountAfter reads `[: ]$125,000` after an amount keyword; the run of digits
// and commas is kept as written.
func amountAfter(t string, i int) string {
	i = skipSep(t, i, " \t:")
	if i < len(t) && t[i] == '$' {
		i++
	}
	j := i
	digits := 0
	for j < len(t) && (isDigit(t[j]) || t[j] == ',') {
		if isDigit(t[j]) {
			digits++
		}
		j++
	}
	if digits < 4 || !isDigit(t[i]) {
		return ""
	}
	return t[i:j]
}

// scanEmails finds local@domain.tld around every '@'.
func scanEmails(t string, emit emitFunc) {
	off := 0
	for {
		k := strings.IndexByte(t[off:], '@')
		if k < 0 {
			return
		}
		at := off + k
		off = at + 1
		s := at
		for s > 0 && (isWordByte(t[s-1]) && t[s-1] < 0x80 || strings.IndexByte(".%+-", t[s-1]) >= 0) {
			s--
		}
		e := at + 1
		lastDot := -1
		for e < len(t) && (isWordByte(t[e]) && t[e] < 0x80 || t[e] == '.' || t[e] == '-') {
			if t[e] == '.' {
				lastDot = e
			}
			e++
		}
		if s == at || lastDot < 0 {
			continue
		}
		// The top-level domain is the last dot-separated label with at least
		// two letters; a sentence's full stop right after it stays attached.
		tld := strings.TrimRight(t[lastDot+1:e], ".")
		if lastDot == e-1 {
			p := strings.LastIndexByte(t[at+1:e-1], '.')
			if p < 0 {
				continue
			}
			tld = t[at+1+p+1 : e-1]
		}
		if len(tld) < 2 || !allLetters(tld) {
			continue
		}
		emit("email", "email", famPII, t[s:e])
	}
}

func allLetters(s string) bool {
	for i := 0; i < len(s); i++ {
		if (s[i]|0x20)-'a' >= 26 {
			return false
		}
	}
	return true
}

var streetSuffixes = map[string]bool{
	"Street": true, "St": true, "Avenue": true, "Ave": true, "Lane": true, "Ln": true,
	"Road": true, "Rd": true, "Way": true, "Boulevard": true, "Blvd": true, "Drive": true,
	"Dr": true, "Court": true, "Ct": true, "Place": true, "Pl": true, "Circle": true,
	"Highway": true, "Parkway": true,
}

// scanWords looks at every word that starts with a digit, an upper-case
// letter or a phone prefix: numbers (SSN, SIN, phones, cards, IPs,
// addresses), IBANs, health identifiers, postal codes.
func (ps *patternSet) scanWords(t string, emit emitFunc) {
	pii, fin, hc := ps.fam[famPII], ps.fam[famFinance], ps.fam[famHealthcare]
	for i := 0; i < len(t); i++ {
		c := t[i]
		if !(isDigit(c) || isUpper(c) || c == '+' || c == '(') {
			continue
		}
		if i > 0 && isWordByte(t[i-1]) {
			continue
		}
		switch {
		case isDigit(c):
			if pii {
				if n := numberAt(t, i, emit); n > i {
					i = n - 1
				}
			}
		case c == '+' || c == '(':
			if pii {
				if n := phoneAt(t, i); n > i {
					emit("phone_number", "phone_number", famPII, t[i:n])
					i = n - 1
				}
			}
		default:
			if fin {
				if n := ibanAt(t, i); n > i {
					emit("iban", "iban", famFinance, t[i:n])
					i = n - 1
					continue
				}
			}
			if hc {
				if n := healthIDAt(t, i); n > i {
					emit("health_identifier", "health_identifier", famHealthcare, t[i:n])
					i = n - 1
					continue
				}
			}
			if pii {
				if n := postalAt(t, i); n > i {
					emit("address", "postal_code", famPII, t[i:n])
					i = n - 1
				}
			}
		}
	}
}

// groups are the lengths of digit groups read by digitGroups; a value
// type, so that reading numbers allocates nothing.
type groups struct {
	n int
	g [5]int
}

// digitGroups reads up to max (<= 5) digit groups separated by one of
// seps (the same separator throughout), returning their lengths and the end.
func digitGroups(t string, i int, seps string, max int) (gs groups, sep byte, end int) {
	for {
		j := digitsEnd(t, i)
		if j == i {
			break
		}
		gs.g[gs.n] = j - i
		gs.n++
		end = j
		if gs.n == max || j+1 >= len(t) || !isDigit(t[j+1]) {
			break
		}
		if strings.IndexByte(seps, t[j]) < 0 || (sep != 0 && t[j] != sep) {
			break
		}
		sep = t[j]
		i = j + 1
	}
	return gs, sep, end
}

func (gs *groups) is(want ...int) bool {
	if gs.n != len(want) {
		return false
	}
	for i, w := range want {
		if gs.g[i] != w {
			return false
		}
	}
	return true
}

// numberAt classifies the number starting at i and returns where it ends
// (i when nothing was found).
func numberAt(t string, i int, emit emitFunc) int {
	gs, sep, end := digitGroups(t, i, "- .", 5)
	g := gs.g[:gs.n]
	if !rightBound(t, end) {
		return i
	}
	switch {
	case sep == '-' && gs.is(3, 2, 4):
		emit("ssn", "ssn", famPII, t[i:end])
		return end
	case (sep == '-' || sep == ' ') && gs.is(3, 3, 3):
		emit("sin", "sin", famPII, t[i:end])
		return end
	case sep != '.' && gs.is(3, 3, 4):
		emit("phone_number", "phone_number", famPII, t[i:end])
		return end
	case sep == '.' && gs.is(3, 3, 4):
		emit("phone_number", "phone_number", famPII, t[i:end])
		return end
	case sep == '.' && len(g) == 4 && g[0] <= 3 && g[1] <= 3 && g[2] <= 3 && g[3] <= 3:
		if end < len(t)-1 && t[end] == '.' && isDigit(t[end+1]) {
			return end
		}
		if ipOctets(t[i:end]) {
			emit("ip_address", "ip_address", famPII, t[i:end])
		}
		return end
	case (sep == '-' || sep == ' ') && len(g) >= 3:
		if cardNumber(t[i:end]) {
			emit("credit_card", "credit_card", famPII, t[i:end])
			return end
		}
	case len(g) == 1 && g[0] >= 13 && g[0] <= 19:
		if cardNumber(t[i:end]) {
			emit("credit_card", "credit_card", famPII, t[i:end])
			return end
		}
	}
	if len(g) == 1 && g[0] <= 5 {
		if n := streetAt(t, end); n > end {
			emit("address", "address", famPII, t[i:n])
			return n
		}
	}
	return i
}

func ipOctets(s string) bool {
	for _, p := range strings.Split(s, ".") {
		n := 0
		for i := 0; i < len(p); i++ {
			n = n*10 + int(p[i]-'0')
		}
		if n > 255 {
			return false
		}
	}
	return true
}

// cardNumber checks 13 to 19 digits (with separators) against Luhn.
func cardNumber(s string) bool {
	var d [19]byte
	n := 0
	for i := 0; i < len(s); i++ {
		if isDigit(s[i]) {
			if n == 19 {
				return false
			}
			d[n] = s[i] - '0'
			n++
		}
	}
	if n < 13 {
		return false
	}
	sum := 0
	for i := 0; i < n; i++ {
		x := int(d[n-1-i])
		if i%2 == 1 {
			x *= 2
			if x > 9 {
				x -= 9
			}
		}
		sum += x
	}
	return sum%10 == 0
}

// streetAt reads ` Main Street`, ` Rue de la Paix` after a house number.
func streetAt(t string, i int) int {
	if i+2 >= len(t) || t[i] != ' ' || !isUpper(t[i+1]) {
		return i
	}
	p := i + 1
	if strings.HasPrefix(t[p:], "Rue ") {
		end := p + 3
		q := p + 4
		for q < len(t) {
			k := q
			for k < len(t) && (isUpper(t[k]) || isLower(t[k]) || t[k] == '\'' || t[k] == '-' || t[k] >= 0x80) {
				k++
			}
			if k == q {
				break
			}
			end = k
			if k+1 < len(t) && t[k] == ' ' && (isUpper(t[k+1]) || isLower(t[k+1])) {
				q = k + 1
				continue
			}
			break
		}
		return end
	}
	words := 0
	for words < 5 {
		if p >= len(t) || !isUpper(t[p]) {
			return i
		}
		k := p + 1
		for k < len(t) && (isLower(t[k]) || isUpper(t[k])) {
			k++
		}
		if !rightBound(t, k) {
			return i
		}
		words++
		if words > 1 && streetSuffixes[t[p:k]] {
			if k < len(t) && t[k] == '.' {
				k++
			}
			return k
		}
		if k+1 < len(t) && t[k] == ' ' {
			p = k + 1
			continue
		}
		return i
	}
	return i
}

func phoneAt(t string, i int) int {
	j := i
	if t[j] == '+' {
		j++
		k := digitsEnd(t, j)
		if k == j || k-j > 3 || k >= len(t) || (t[k] != ' ' && t[k] != '-') {
			return i
		}
		j = k + 1
	}
	if j < len(t) && t[j] == '(' {
		k := digitsEnd(t, j+1)
		if k-j-1 != 3 || k >= len(t) || t[k] != ')' {
			return i
		}
		j = k + 1
		if j < len(t) && t[j] == ' ' {
			j++
		}
		gs, _, end := digitGroups(t, j, "-. ", 2)
		if gs.is(3, 4) && rightBound(t, end) {
			return end
		}
		return i
	}
	if t[i] != '+' {
		return i
	}
	gs, _, end := digitGroups(t, j, "-. ", 3)
	if gs.is(3, 3, 4) && rightBound(t, end) {
		return end
	}
	return i
}

func ibanAt(t string, i int) int {
	if i+15 > len(t) || !isUpper(t[i+1]) || !isDigit(t[i+2]) || !isDigit(t[i+3]) {
		return i
	}
	j := i + 4
	for j < len(t) && isAlnumUpper(t[j]) {
		j++
	}
	if n := j - i - 4; n < 11 || n > 30 || !rightBound(t, j) {
		return i
	}
	return j
}

func healthIDAt(t string, i int) int {
	if i+12 > len(t) {
		return i
	}
	for k := 0; k < 4; k++ {
		if !isUpper(t[i+k]) {
			return i
		}
	}
	for k := 4; k < 12; k++ {
		if !isDigit(t[i+k]) {
			return i
		}
	}
	if !rightBound(t, i+12) {
		return i
	}
	return i + 12
}

// postalAt matches a Canadian postal code (A1B 2C3 or A1B2C3).
func postalAt(t string, i int) int {
	if i+6 > len(t) {
		return i
	}
	if !(isUpper(t[i]) && isDigit(t[i+1]) && isUpper(t[i+2])) {
		return i
	}
	j := i + 3
	if t[j] == ' ' {
		j++
	}
	if j+3 > len(t) || !(isDigit(t[j]) && isUpper(t[j+1]) && isDigit(t[j+2])) || !rightBound(t, j+3) {
		return i
	}
	return j + 3
}

var _ = bytes.IndexByte

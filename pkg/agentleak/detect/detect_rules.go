package detect

import (
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// The engine's regex tier (AgentLeak 0.11.8 "fast" mode; see
// docs/agentleak.md). Each built-in detector is one value in
// detect_builtin.go; a rule is a detector compiled into the form the scanner
// runs. Rules run one after the other over the whole event text, the way the
// engine's detectors do (pii, secrets, healthcare, finance, hr, keyname), so
// the first finding of a data type and value in an event is the one kept.

// rule is a detector as the scanner runs it (detector.rule); the fields
// are the detector's (see there), its expression compiled lazily and
// anchored at a start, and what its findings report resolved once.
type rule struct {
	family string
	dt     string // data type reported
	re     *lazyRe
	group  int
	keep   func(text string, m []int) bool // a check on one match
	look   func(text string, m []int) bool // a lookaround of the pattern: no match when false
	value  func(v string) string           // how the value is cleaned

	// Where a match can start: a character class (starts) or trigger words
	// (lower case) at whose position, or the quote just before, it may begin.
	starts   byte
	triggers []string
	window   int // bytes a match can span (plus one), 0 for no limit
	anchored *lazyRe
	wordHead bool // the pattern begins with \b (checked outside the regexp)
	wordTail bool // the pattern ends with \b
	// givesBack: re lacks the pattern's closing \b, which giveBack judges
	// (the detector's givesBack); whole is re anchored at both ends.
	givesBack bool
	whole     *lazyRe
	pre       func(t string, p int) bool // a cheap necessary condition at p
	// match, when set, matches at p by hand: it fills m and returns 1, returns
	// 0 where the expression cannot match, -1 to leave it to the expression.
	match  func(t string, p int, m []int) int
	screen int8 // the rule's slot in its class's screen (detect_screen.go), 0 for none
	info   *ReportInfo
}

// Start classes.
const (
	startAny    byte = iota
	startDigit       // a digit at a word start
	startPhone       // a digit, '+' or '(' not after a digit
	startUpper       // an upper-case letter at a word start
	startLetter      // a letter at a word start
	startHex         // a hex digit at a word start
	startEmail       // the local part before an '@'
)

func hasDigit(s string) bool {
	for i := 0; i < len(s); i++ {
		if isDigit(s[i]) || s[i] >= 0x80 {
			return true
		}
	}
	return false
}

// dictOrder is the order of a dictionary's alternation: longest (quoted)
// term first, ties in list order.
func dictOrder(terms []string) []string {
	q := append([]string(nil), terms...)
	sort.SliceStable(q, func(i, j int) bool { return len(regexp.QuoteMeta(q[i])) > len(regexp.QuoteMeta(q[j])) })
	return q
}

// leadingBound: the pattern begins with \b (after an optional (?i)).
func leadingBound(pat string) bool {
	return strings.HasPrefix(strings.TrimPrefix(pat, "(?i)"), `\b`)
}

// goPattern turns an engine pattern into Go's: Python's \d and \s widened
// to Unicode, and a leading \b dropped, because Go's \b knows only ASCII
// letters (\bévaluation never matches): the scanner checks Python's Unicode
// boundary at the match start itself (rule.wordHead).
func goPattern(pat string) string {
	if leadingBound(pat) {
		i := strings.Index(pat, `\b`)
		pat = pat[:i] + pat[i+2:]
	}
	return pyClasses(pat)
}

// lazyRe is a regular expression compiled when first used: most rules'
// expressions run rarely (hand checks decide most starts), and every lf
// command would otherwise pay for compiling them all at start-up.
type lazyRe struct {
	once sync.Once
	src  string
	re   *regexp.Regexp
}

func lazy(src string) *lazyRe { return &lazyRe{src: src} }

func (l *lazyRe) get() *regexp.Regexp {
	l.once.Do(func() { l.re = regexp.MustCompile(l.src) })
	return l.re
}

// healthConditions and medications are the engine's healthcare dictionaries.
var healthConditions = []string{
	"diabetes", "cancer", "hypertension", "asthma", "depression", "anxiety",
	"pregnancy", "hiv", "aids", "hepatitis", "schizophrenia", "bipolar",
	"epilepsy", "alzheimer", "parkinson", "leukemia", "tumor", "stroke",
	"carcinoma", "colorectal", "melanoma", "lymphoma", "sarcoma", "metastatic",
	"myocardial infarction", "copd", "cirrhosis", "sclerosis", "psychosis",
	"diabète", "cancer du", "asthme", "dépression", "grossesse", "carcinome",
}

var medications = []string{
	"insulin", "metformin", "chemotherapy", "morphine", "oxycodone",
	"antidepressant", "antiretroviral", "lithium", "warfarin", "prednisone",
	"folfox", "folfiri", "oxaliplatin", "5-fu", "fluorouracil", "cisplatin",
	"carboplatin", "paclitaxel", "docetaxel", "rituximab", "tamoxifen",
	"insuline", "chimiothérapie",
}

func lowerAll(ws []string) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = strings.ToLower(w)
	}
	return out
}

// amountSep is the engine's tolerant separator between a keyword and its value.
const amountSep = `["'\s:=#-]*`

// versionPrefix is the engine's version-keyword test on the 16 characters
// before an IPv4 address (Python's \s: any Unicode space).
var versionPrefix = lazy(pyClasses(`(?i)\b(?:version|ver|build|release|rev)\b[\s:v.]*$`))

// runesBefore returns the (up to) n characters of t that end at byte i.
func runesBefore(t string, i, n int) string {
	s := i
	for k := 0; k < n && s > 0; k++ {
		if t[s-1] < 0x80 {
			s--
			continue
		}
		_, w := utf8.DecodeLastRuneInString(t[:s])
		s -= w
	}
	return t[s:i]
}

var secretPlaceholders = map[string]bool{"none": true, "null": true, "true": true, "false": true, "redacted": true, "xxxxxx": true, "******": true}

var (
	secretReference = lazy(`(?i)^(?:os\.environ|os\.getenv|getenv|environ|.*\.get\(|.*\(|(?:self|settings|config|cfg|conf|env|os|process)\.)`)
	constantRef     = lazy(`^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$`)
	trivialValue    = lazy(`(?i)^(?:none|null|n/?a|true|false|redacted|unknown|\?+|-+|x{3,}|\*{2,}|<[^>]*>|\{\{.*|\$\{.*)$`)
)

// luhn checks 13 to 16 digits (the digits of s, which may hold spaces
// and dashes). An ASCII s, a card number nearly always, is read in place;
// other digits go to luhnRunes.
func luhn(s string) bool {
	var d [16]byte
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 {
			return luhnRunes(s)
		}
		if isDigit(c) {
			if n == len(d) {
				return false // more than 16 digits, whatever follows
			}
			d[n] = c - '0'
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
			if x *= 2; x > 9 {
				x -= 9
			}
		}
		sum += x
	}
	return sum%10 == 0
}

// luhnRunes is luhn for any text: every Unicode decimal digit counts as
// its value.
func luhnRunes(s string) bool {
	var d []int
	for _, r := range s {
		if unicode.IsDigit(r) {
			z := r
			for unicode.IsDigit(z - 1) {
				z--
			}
			d = append(d, int(r-z)%10)
		}
	}
	if len(d) < 13 || len(d) > 16 {
		return false
	}
	sum := 0
	for i := range d {
		x := d[len(d)-1-i]
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

func strip(v string) string { return strings.TrimSpace(v) }

var ninoExcluded = map[string]bool{"BG": true, "GB": true, "NK": true, "KN": true, "TN": true, "NT": true, "ZZ": true}

// keyStems are the key-name detector's 16 sensitive field names.
var keyStems = []struct {
	stem, dt string
}{
	{`ssn|social[_ ]?security(?:[_ ]?number)?`, "ssn"},
	{`sin|social[_ ]?insurance(?:[_ ]?number)?`, "sin"},
	{`health[_ ]?id|health[_ ]?identifier|mrn|medical[_ ]?record(?:[_ ]?number)?|nam`, "health_identifier"},
	{`diagnos(?:is|es)|condition`, "health_condition"},
	{`medications?|prescriptions?|\bdrug\b|\brx\b`, "medication"},
	{`account[_ ]?(?:number|no|id)|iban`, "account_number"},
	{`credit[_ ]?card|card[_ ]?number|\bpan\b`, "credit_card"},
	{`salary|compensation|base[_ ]?pay`, "salary"},
	{`income`, "income"},
	{`credit[_ ]?score`, "credit_score"},
	{`date[_ ]?of[_ ]?birth|\bdob\b|birth[_ ]?date`, "date_of_birth"},
	{`(?:home[_ ]?|mailing[_ ]?)?address`, "address"},
	{`disciplinary(?:[_ ]?note|[_ ]?action)?`, "disciplinary_action"},
	{`phone(?:[_ ]?number)?|telephone|mobile`, "phone_number"},
	{`performance[_ ]?review`, "performance_review"},
	{`patient[_ ]?name|student[_ ]?name|customer[_ ]?name|full[_ ]?name`, "person_name"},
}

// keynameRules are the key-name detector: a value after one of the 16
// sensitive field names and a colon or an equals sign.
func keynameRules() []rule {
	var rs []rule
	for _, k := range keyStems {
		re := lazy(pyClasses(`(?i)["']?\b(?:` + k.stem + `)\b["']?\s*[:=]\s*["']?([^"'|,}\n]+)`))
		rs = append(rs, rule{
			family: famKeyname, dt: k.dt, re: re, group: 1, triggers: keyTriggers(k.stem), pre: keyStemPre(stemForms(k.stem)),
			value: keyValue, match: newKeyMatch(k.stem).match, info: keyInfo(k.dt),
		})
	}
	return rs
}

// keyTriggers are a key-name rule's trigger words: every spelling of its
// stem (date_of_birth, date of birth, dateofbirth...), so that the trie
// finds only whole keys: a word that begins a key but is not one ("date"
// in datetime or date:, "credit" in credit card for the credit score key)
// gives the rule no start. (The necessary check still reads the whole
// key: nam in Name is a key's spelling.)
func keyTriggers(stem string) []string {
	var out []string
	for _, f := range newKeyMatch(stem).forms {
		if f != "" && !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}

// keyValue cleans a key-name value: trimmed of spaces and quotes, and
// dropped when shorter than two characters or a placeholder.
func keyValue(v string) string {
	v = strings.TrimSpace(v)
	v = strings.Trim(v, `"'`)
	v = strings.TrimSpace(v)
	if utf8.RuneCountInString(v) < 2 || trivial(v) {
		return ""
	}
	return v
}

// ruleEngine is the built-in rule set and the trie of its rules' trigger
// words.
type ruleEngine struct {
	rules     []rule
	trie      *triggerTrie
	trigRules [][]int // trigger word id -> indexes of its rules
}

// Cheap necessary conditions at a start position. Any byte above 0x7f
// (a Unicode digit or space may be there) leaves the decision to the regex.
func asciiRun(t string, p int, pred func(byte) bool) int {
	n := 0
	for p+n < len(t) && t[p+n] < 0x80 && pred(t[p+n]) {
		n++
	}
	return n
}

func byteAt(t string, i int) byte {
	if i < len(t) {
		return t[i]
	}
	return 0
}

func isSpaceOrHigh(c byte) bool { return keySpace(c) || c >= 0x80 }

// prePostal: a letter, a digit (or a byte above 0x7f), a letter.
func prePostal(t string, p int) bool {
	c1 := byteAt(t, p+1)
	return c1 >= 0x80 || isDigit(c1) && (byteAt(t, p+2)|0x20)-'a' < 26
}

// keyPre: a key-name match at p is an optional quote, the stem (at most
// three words joined by single spaces or underscores: "social security
// number", "date_of_birth"), an optional quote, spaces, then ':' or '='. A
// trigger word in running text ("the date we agreed on: ...") fails here
// instead of in the expression: it has more words before its colon.
func keyPre(t string, p int) bool {
	i := p
	if c := byteAt(t, i); c == '"' || c == '\'' {
		i++
	}
	words := 0
	for i < len(t) {
		c := t[i]
		switch {
		case c >= 0x80:
			return true // Unicode spaces or case folds: the expression decides
		case (c|0x20)-'a' < 26:
			if words++; words > 3 {
				return false
			}
			for i < len(t) && (t[i]|0x20)-'a' < 26 {
				i++
			}
		case c == '_' || keySpace(c):
			i++
		case c == '"' || c == '\'':
			return words > 0 && keyColon(t, i+1)
		case c == ':' || c == '=':
			return words > 0
		default:
			return false
		}
	}
	return false
}

// keySpace: an ASCII byte the pattern's \s accepts (Python's: also \v and
// the separators \x1c-\x1f).
func keySpace(c byte) bool {
	return c == ' ' || c-'\t' <= '\r'-'\t' || c-0x1c <= 3
}

// keyColon: spaces, then ':' or '=' (or a byte above 0x7f among them).
func keyColon(t string, i int) bool {
	for i < len(t) && keySpace(t[i]) {
		i++
	}
	c := byteAt(t, i)
	return c == ':' || c == '=' || c >= 0x80
}

var namTight = lazy(`\b[A-Z]{4}\d{8}\b`)

// pyClasses widens \d and \s to Python's Unicode meaning (any decimal
// digit, any Unicode space), inside and outside character classes.
func pyClasses(p string) string {
	var b strings.Builder
	inClass := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c == '\\' && i+1 < len(p) {
			switch p[i+1] {
			case 'd':
				b.WriteString(`\p{Nd}`)
			case 's':
				if inClass {
					b.WriteString(`\s\v\p{Z}\x{85}\x{1c}-\x{1f}`)
				} else {
					b.WriteString(`[\s\v\p{Z}\x{85}\x{1c}-\x{1f}]`)
				}
			default:
				b.WriteByte(c)
				b.WriteByte(p[i+1])
			}
			i++
			continue
		}
		if c == '[' && !inClass {
			inClass = true
		} else if c == ']' && inClass {
			inClass = false
		}
		b.WriteByte(c)
	}
	return b.String()
}

// unicodeBound reports whether Python's Unicode \b holds at byte offset i.
// It is asked at every start of most rules: two ASCII bytes, the common
// case, are judged by a table without decoding.
func unicodeBound(t string, i int) bool {
	if i > 0 && i < len(t) {
		if a, b := t[i-1], t[i]; a|b < 0x80 {
			return asciiWord[a] != asciiWord[b]
		}
	}
	return unicodeBoundAt(t, i)
}

// unicodeBoundAt is unicodeBound for any text: at an end of it, or next to
// a character above 0x7f.
func unicodeBoundAt(t string, i int) bool {
	before, after := false, false
	if i > 0 {
		if c := t[i-1]; c < 0x80 {
			before = isWordByte(c)
		} else {
			r, _ := utf8.DecodeLastRuneInString(t[:i])
			before = isWordRune(r)
		}
	}
	if i < len(t) {
		if c := t[i]; c < 0x80 {
			after = isWordByte(c)
		} else {
			r, _ := utf8.DecodeRuneInString(t[i:])
			after = isWordRune(r)
		}
	}
	return before != after
}

// giveBack ends m, a match of a givesBack rule's expression (which lacks
// the closing \b), where Python's backtracking would: the greedy match
// gives back its end one character at a time, longest first, until the
// expression still matches the shorter text and Python's Unicode \b holds
// there. It returns nil when no end does. For the card pattern, the only
// such rule, a shorter end is always a later try of the backtracking.
func (r *rule) giveBack(t string, m []int) []int {
	for e := m[1]; e > m[0]; e-- {
		if e < len(t) && !utf8.RuneStart(t[e]) {
			continue // inside a character
		}
		if unicodeBound(t, e) && r.whole.get().MatchString(t[m[0]:e]) {
			m[1] = e
			return m
		}
	}
	return nil
}

// nonASCII reports a match whose edge \b holds only in ASCII terms
// (a letter or digit of another script touches it).
func (r *rule) nonASCII(t string, m []int) bool {
	return r.wordHead && !unicodeBound(t, m[0]) || r.wordTail && !unicodeBound(t, m[1])
}

// digitBefore and digitAt: Python's \d (any decimal digit) just before or at i.
func digitBefore(t string, i int) bool {
	if i <= 0 {
		return false
	}
	if c := t[i-1]; c < 0x80 {
		return isDigit(c)
	}
	r, _ := utf8.DecodeLastRuneInString(t[:i])
	return unicode.IsDigit(r)
}

func digitAt(t string, i int) bool {
	if i >= len(t) {
		return false
	}
	if c := t[i]; c < 0x80 {
		return isDigit(c)
	}
	r, _ := utf8.DecodeRuneInString(t[i:])
	return unicode.IsDigit(r)
}

func isWordRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsNumber(r)
}

// buildTriggers makes the trie that finds the rules' trigger words where a
// word can begin, and maps a trigger word id to the indexes of its rules.
func buildTriggers(rs []rule) (*triggerTrie, [][]int) {
	idx := map[string]int{}
	var words []string
	var rules [][]int
	for ri := range rs {
		for _, t := range rs[ri].triggers {
			for _, w := range caseVariants(t) {
				id, ok := idx[w]
				if !ok {
					id = len(words)
					idx[w] = id
					words = append(words, w)
					rules = append(rules, nil)
				}
				rules[id] = append(rules[id], ri)
			}
		}
	}
	return newTriggerTrie(words), rules
}

// caseVariants spells a lower-case trigger word with each of its non-ASCII
// letters in every case (the text is searched with only ASCII lowered, and
// the rules are case-insensitive: DÉPRESSION is dépression).
func caseVariants(w string) []string {
	if IsASCII(w) {
		return []string{w}
	}
	out := []string{""}
	for _, r := range w {
		forms := []rune{r}
		if r >= 0x80 {
			for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
				forms = append(forms, f)
			}
		}
		var next []string
		for _, o := range out {
			for _, f := range forms {
				next = append(next, o+string(f))
			}
		}
		out = next
	}
	return out
}

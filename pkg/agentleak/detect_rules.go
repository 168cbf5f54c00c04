package agentleak

import (
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// The engine's regex tier, rule by rule (AgentLeak 0.11.8 "fast" mode; see
// docs/agentleak.md). Each rule is one pattern family with the data type it
// reports, the group that holds the value and an optional check on the match.
// Rules run one after the other over the whole event text, the way the
// engine's detectors do (pii, secrets, healthcare, finance, hr, keyname), so
// the first finding of a data type and value in an event is the one kept.

type rule struct {
	family string
	dt     string // data type reported
	key    string // key into builtinTypes ("" for keyname rules)
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
	wordHead bool                       // the pattern begins with \b (checked outside the regexp)
	wordTail bool                       // the pattern ends with \b
	pre      func(t string, p int) bool // a cheap necessary condition at p
	// match, when set, matches at p by hand: it fills m and returns 1, returns
	// 0 where the expression cannot match, -1 to leave it to the expression.
	match  func(t string, p int, m []int) int
	screen int8 // the rule's slot in its class's screen (detect_screen.go), 0 for none
	info   *reportInfo
}

// ruleTriggers are the words a keyword-anchored rule starts with.
var ruleTriggers = map[string][]string{
	"date_of_birth":       {"dob", "d.o.b.", "date of birth", "born", "birth"},
	"client_identifier":   {"acc", "cust", "client", "user", "member"},
	"person_name":         {"patient", "client", "customer", "employee", "name", "mr", "mrs", "ms", "dr", "prof"},
	"private_key":         {"-----begin"},
	"aws_access_key":      {"akia"},
	"github_token":        {"gh"},
	"slack_token":         {"xox"},
	"stripe_key":          {"sk_", "rk_"},
	"llm_api_key":         {"sk-"},
	"google_api_key":      {"aiza"},
	"jwt":                 {"eyj"},
	"bearer_token":        {"bearer"},
	"connection_string":   {"postgres", "mysql", "mongodb", "redis", "amqp"},
	"secret_assignment":   {"password", "passwd", "pwd", "secret", "token", "api", "access"},
	"account_number":      {"account", "acct", "compte"},
	"credit_score":        {"credit"},
	"income":              {"income", "revenu", "salary income", "gross income"},
	"loan_amount":         {"loan", "mortgage", "prêt", "pret"},
	"account_balance":     {"balance", "solde"},
	"internal_note":       {"internal", "risk note", "underwriter"},
	"salary":              {"salary", "salaire", "compensation", "base pay"},
	"sick_leave":          {"sick leave", "medical leave", "congé", "stress leave", "fmla"},
	"performance_review":  {"performance", "pip", "évaluation", "valuation", "underperform"},
	"disciplinary_action": {"disciplinary", "written warning", "final warning", "misconduct", "reprimand", "mesure disciplinaire"},
	"hr_complaint":        {"grievance", "harassment complaint", "hr complaint", "plainte", "whistleblow"},
	"employment_status":   {"terminated", "termination", "laid off", "let go", "severance"},
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

// dictionary builds `\b(term|...)\b`, longest term first, case-insensitive.
func dictionary(terms []string) *lazyRe {
	q := dictOrder(terms)
	for i, t := range q {
		q[i] = regexp.QuoteMeta(t)
	}
	return lazy(goPattern(`(?i)\b(` + strings.Join(q, "|") + `)\b`))
}

// dictOrder is the order of a dictionary's alternation: longest (quoted)
// term first, ties in list order.
func dictOrder(terms []string) []string {
	q := append([]string(nil), terms...)
	sort.SliceStable(q, func(i, j int) bool { return len(regexp.QuoteMeta(q[i])) > len(regexp.QuoteMeta(q[j])) })
	return q
}

// fixedTail are the rules whose pattern has a fixed width.
var fixedTail = map[string]bool{"ssn": true, "sin": true}

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

var (
	conditionWords  = lowerAll(healthConditions)
	medicationWords = lowerAll(medications)
)

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

// buildRules lists the engine's rules in the order its detectors run.
func buildRules() []rule {
	var rs []rule
	for _, family := range [][]rule{piiRules(), secretRules(), healthcareRules(), financeRules(), hrRules()} {
		rs = append(rs, family...)
	}
	for i := range rs {
		addChecks(&rs[i])
	}
	return append(rs, keynameRules()...)
}

// newRule is one pattern rule; the value is group of the match.
func newRule(fam, dt, key, pat string, group int) rule {
	src := goPattern(pat)
	if fixedTail[dt] {
		// Fixed width: the match's end does not depend on the \b after
		// it, which the scanner checks itself (Go's \b misses ４０４-７０-７６０７).
		src = strings.TrimSuffix(src, `\b`)
	}
	return rule{family: fam, dt: dt, key: key, re: lazy(src), group: group, wordHead: leadingBound(pat), wordTail: strings.HasSuffix(pat, `\b`)}
}

// piiRules are the PII detector: contact details, identifiers, names and addresses.
func piiRules() []rule {
	return []rule{
		newRule(famPII, "email", "email", `[A-Za-z0-9_.+-]+@[A-Za-z0-9-]+\.[A-Za-z0-9-.]+`, 0),
		newRule(famPII, "ssn", "ssn", `\b\d{3}-\d{2}-\d{4}\b`, 0),
		newRule(famPII, "sin", "sin", `\b\d{3}[- ]\d{3}[- ]\d{3}\b`, 0),
		newRule(famPII, "phone_number", "phone_number", `(?:\+?\d{1,3}[-.\s]?)?(?:\(\d{3}\)|\d{3})[-.\s]\d{3}[-.\s]\d{4}`, 0),
		newRule(famPII, "credit_card", "credit_card", `\b(?:\d[ -]?){13,16}\b`, 0),
		newRule(famPII, "ip_address", "ip_address", `\b(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)\b`, 0),
		newRule(famPII, "ip_address", "ip_address", `\b(?:[A-Fa-f0-9]{1,4}:){3,7}[A-Fa-f0-9]{1,4}\b|\b(?:[A-Fa-f0-9]{1,4}:){1,6}:[A-Fa-f0-9]{1,4}\b`, 0),
		newRule(famPII, "date_of_birth", "date_of_birth", `(?i)\b(?:dob|d\.o\.b\.|date of birth|born|birth ?date)\b[:\s]*(\d{4}-\d{2}-\d{2}|\d{1,2}[/-]\d{1,2}[/-]\d{2,4})`, 1),
		newRule(famPII, "client_identifier", "client_identifier", `(?i)\b(?:ACC|ACCT|CUST|CLIENT|USER|MEMBER)[-_]?\d{3,}\b`, 0),
		newRule(famPII, "national_insurance_number", "national_insurance_number", `\b[ABCEGHJ-PRSTW-Z][ABCEGHJ-NPRSTW-Z]\s?\d{2}\s?\d{2}\s?\d{2}\s?[A-D]\b`, 0),
		newRule(famPII, "person_name", "person_name", `\b(?i:patient|client|customer|employee|name|mr|mrs|ms|dr|prof)\b["'\s:_]+([A-ZÀ-Ý][a-zà-ÿ]+(?:[ -][A-ZÀ-Ý][a-zà-ÿ]+){1,2})`, 1),
		newRule(famPII, "address", "address", `(?i)\b\d{1,5}\s+(?:[A-Z][A-Za-z.]+\s){1,3}(?:Street|St|Avenue|Ave|Road|Rd|Boulevard|Blvd|Drive|Dr|Lane|Ln|Court|Ct|Way|Place|Pl)\b\.?`, 0),
		newRule(famPII, "address", "address", `(?i)\b\d{1,5}(?:[-\s]\d{1,4})?\s+(?:Rue|Avenue|Av|Boulevard|Boul|Bd|Chemin|Ch|C[ôo]te|Place|All[ée]e|Impasse|Mont[ée]e|Rang|Croissant|Promenade|Terrasse|Carr[ée])\.?\s+[A-ZÀ-Ý][\wÀ-ÿ'’.-]+(?:[ -][A-ZÀ-Ý][\wÀ-ÿ'’.-]+){0,3}`, 0),
		newRule(famPII, "address", "postal_code", `\b[A-Za-z]\d[A-Za-z][ -]?\d[A-Za-z]\d\b`, 0),
	}
}

// secretRules are the secrets detector: provider keys, tokens, connection strings and assignments.
func secretRules() []rule {
	return []rule{
		newRule(famSecrets, "private_key", "private_key", `-----BEGIN (?:RSA |EC |DSA |OPENSSH |PGP )?PRIVATE KEY-----`, 0),
		newRule(famSecrets, "aws_access_key", "aws_access_key", `\bAKIA[0-9A-Z]{16}\b`, 0),
		newRule(famSecrets, "github_token", "github_token", `\bgh[oprsu]_[A-Za-z0-9]{36}\b`, 0),
		newRule(famSecrets, "slack_token", "slack_token", `\bxox[baprs]-[A-Za-z0-9-]{10,}\b`, 0),
		newRule(famSecrets, "stripe_key", "stripe_key", `\b[sr]k_(?:live|test)_[A-Za-z0-9]{16,}\b`, 0),
		newRule(famSecrets, "llm_api_key", "llm_api_key", `\bsk-(?:proj|svcacct|admin|ant-api\d{2})?-?[A-Za-z0-9_-]{16,}\b`, 0),
		newRule(famSecrets, "google_api_key", "google_api_key", `\bAIza[0-9A-Za-z_-]{35}\b`, 0),
		newRule(famSecrets, "jwt", "jwt", `\beyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\b`, 0),
		newRule(famSecrets, "bearer_token", "bearer_token", `(?i)\bbearer\s+([A-Za-z0-9._~+/=-]{16,})`, 1),
		newRule(famSecrets, "connection_string", "connection_string", `(?i)\b(?:postgres(?:ql)?|mysql|mongodb(?:\+srv)?|redis|amqps?)://[^\s'"]+`, 0),
		newRule(famSecrets, "secret_assignment", "secret_assignment", `(?i)\b(password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key)\b\s*[:=]\s*["']?([^"'\s,}]{6,})`, 2),
	}
}

// healthcareRules are the healthcare detector: health identifiers and the condition and medication dictionaries.
func healthcareRules() []rule {
	return []rule{
		newRule(famHealthcare, "health_identifier", "health_identifier", `\b[A-Z]{4}\d{8}\b`, 0),
		newRule(famHealthcare, "health_identifier", "health_identifier", `\b(?:NAM\s+)?[A-Z]{4}(?:[\s-]\d{2,4}){2,4}\b`, 0),
		newRule(famHealthcare, "health_identifier", "health_identifier", `(?i)\b(?:mrn|medical record(?: number)?|health[_ ]?id)\b[:\s#]*((?:NAM\s*)?[A-Z0-9][A-Z0-9 \-]{4,})`, 1),
		// The group is the whole match (\b is empty): 0, which a hand matcher reports.
		{family: famHealthcare, dt: "health_condition", key: "health_condition", re: dictionary(healthConditions), group: 0, wordHead: true, wordTail: true},
		{family: famHealthcare, dt: "medication", key: "medication", re: dictionary(medications), group: 0, wordHead: true, wordTail: true},
	}
}

// financeRules are the finance detector: IBAN, account numbers and amounts after their keywords.
func financeRules() []rule {
	return []rule{
		newRule(famFinance, "iban", "iban", `\b[A-Z]{2}\d{2}[A-Z0-9]{11,30}\b`, 0),
		newRule(famFinance, "account_number", "account_number", `(?i)\b(?:account|acct|compte)(?:\s*(?:number|no|num|#))?`+amountSep+`([0-9]{6,})`, 1),
		newRule(famFinance, "credit_score", "credit_score", `(?i)\bcredit\s*score`+amountSep+`([0-9]{3})\b`, 1),
		newRule(famFinance, "income", "income", `(?i)\b(?:income|revenue|revenu|salary income|gross income)`+amountSep+`\$?([0-9][0-9,]{3,})`, 1),
		newRule(famFinance, "loan_amount", "loan_amount", `(?i)\b(?:loan|mortgage|prêt|pret)(?:\s*(?:amount|montant))?`+amountSep+`\$?([0-9][0-9,]{3,})`, 1),
		newRule(famFinance, "account_balance", "account_balance", `(?i)\b(?:balance|solde)`+amountSep+`\$?([0-9][0-9,]{2,})`, 1),
		newRule(famFinance, "internal_note", "internal_note", `(?i)\b(?:internal (?:risk )?note|risk note|underwriter note|internal assessment)\b`, 0),
	}
}

// hrRules are the HR detector: salary and the HR terms.
func hrRules() []rule {
	return []rule{
		newRule(famHR, "salary", "salary", `(?i)\b(?:salary|salaire|compensation|base pay)`+amountSep+`\$?([0-9][0-9,]{3,})`, 1),
		newRule(famHR, "sick_leave", "sick_leave", `(?i)\b(?:sick leave|medical leave|congé maladie|stress leave|fmla)\b`, 0),
		newRule(famHR, "performance_review", "performance_review", `(?i)\b(?:performance review|performance rating|performance plan|pip|évaluation|underperform\w*)\b`, 0),
		newRule(famHR, "disciplinary_action", "disciplinary_action", `(?i)\b(?:disciplinary|written warning|final warning|misconduct|reprimand|mesure disciplinaire)\b`, 0),
		newRule(famHR, "hr_complaint", "hr_complaint", `(?i)\b(?:grievance|harassment complaint|hr complaint|plainte|whistleblow\w*)\b`, 0),
		newRule(famHR, "employment_status", "employment_status", `(?i)\b(?:terminated|termination|laid off|let go|severance)\b`, 0),
	}
}

// addChecks adds a rule's lookarounds, checks on a match and value
// cleaning (the parts of the engine's patterns Go's expressions lack).
func addChecks(r *rule) {
	switch r.dt {
	case "phone_number":
		r.look = func(t string, m []int) bool { return !digitBefore(t, m[0]) && !digitAt(t, m[1]) }
		r.value = strip
	case "credit_card":
		r.keep = func(t string, m []int) bool { return luhn(t[m[0]:m[1]]) }
		r.value = strip
	case "national_insurance_number":
		r.look = func(t string, m []int) bool { return !ninoExcluded[t[m[0]:m[0]+2]] }
	case "health_identifier":
		if strings.HasPrefix(r.re.src, `(?:NAM`) {
			r.keep = func(t string, m []int) bool {
				v := t[m[0]:m[1]]
				n := strings.TrimPrefix(strings.NewReplacer(" ", "", "-", "").Replace(v), "NAM")
				for _, tight := range namTight.get().FindAllString(t, -1) {
					if tight == n || tight == v {
						return false
					}
				}
				return true
			}
		}
	case "iban":
		r.keep = func(t string, m []int) bool { return hasDigit(t[m[0]+4 : m[1]]) }
	case "bearer_token":
		r.keep = func(t string, m []int) bool { return !strings.HasPrefix(t[m[2]:m[3]], "eyJ") }
	case "secret_assignment":
		r.keep = func(t string, m []int) bool {
			v := t[m[4]:m[5]]
			return !secretPlaceholders[strings.ToLower(v)] && !secretReference.get().MatchString(v) && !constantRef.get().MatchString(v)
		}
	case "address":
		r.value = strip
	}
	if r.dt == "ip_address" && strings.HasPrefix(r.re.src, `(?:(?:25`) {
		r.keep = func(t string, m []int) bool {
			return !versionPrefix.get().MatchString(runesBefore(t, m[0], 16))
		}
	}
}

// keynameRules are the key-name detector: a value after one of the 16
// sensitive field names and a colon or an equals sign.
func keynameRules() []rule {
	var rs []rule
	for _, k := range keyStems {
		re := lazy(pyClasses(`(?i)["']?\b(?:` + k.stem + `)\b["']?\s*[:=]\s*["']?([^"'|,}\n]+)`))
		rs = append(rs, rule{
			family: famKeyname, dt: k.dt, re: re, group: 1, triggers: keyTriggers(k.stem), pre: keyStemPre(stemForms(k.stem)),
			value: keyValue, match: newKeyMatch(k.stem).match,
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

// builtin builds the rule engine when a scan first needs it, not when the
// package is initialised: every lf command would pay for it otherwise.
var builtin = sync.OnceValue(func() *ruleEngine {
	e := &ruleEngine{rules: finishRules(buildRules())}
	e.trie, e.trigRules = buildTriggers(e.rules)
	return e
})

// finishRules adds to each rule where and how the scanner tries it.
func finishRules(rs []rule) []rule {
	for i := range rs {
		r := &rs[i]
		r.anchored = lazy(`^(?:` + r.re.src + `)`)
		r.starts = startClass(r)
		r.pre = preCheck(r)
		r.triggers = triggerWords(r)
		r.window = matchWindow(r)
		r.screen = screenSlot(r)
		r.info = newReportInfo(r.family, r.dt, r.key)
		switch {
		case r.dt == "email":
			r.match = matchEmail
		case r.dt == "iban" && r.family == famFinance:
			r.match = matchIBAN
		case r.dt == "ssn" && r.family == famPII:
			r.match = matchFixed("ddd-dd-dddd")
		case r.dt == "sin" && r.family == famPII:
			r.match = matchFixed("ddd?ddd?ddd")
		case r.dt == "credit_card" && r.family == famPII:
			r.match = matchCard
		case r.dt == "phone_number" && r.family == famPII:
			r.match = matchPhone
		case r.key == "address" && strings.Contains(r.re.src, "Street"):
			r.match = matchStreet
		case r.key == "address" && strings.Contains(r.re.src, "Rue"):
			r.match = matchRue
		case r.dt == "client_identifier":
			r.match = matchClientID
		case r.family == famHealthcare && r.dt == "health_condition":
			r.match = words(lowerAll(dictOrder(healthConditions))...).matcher()
		case r.family == famHealthcare && r.dt == "medication":
			r.match = words(lowerAll(dictOrder(medications))...).matcher()
		case r.family != famKeyname && wordLists[r.dt] != nil:
			r.match = wordLists[r.dt].matcher()
		case r.dt == "person_name" && r.family == famPII:
			r.match = matchName
		case r.family != famKeyname && amountMatches[r.dt] != nil:
			r.match = amountMatches[r.dt].match
		}
	}
	return rs
}

// isMRN: the health identifier rule anchored on its keywords (mrn,
// medical record, health id).
func isMRN(r *rule) bool {
	return r.family == famHealthcare && r.dt == "health_identifier" && strings.Contains(r.re.src, "mrn")
}

// startClass is the character class a rule's match starts with
// (startAny for rules found by their trigger words).
func startClass(r *rule) byte {
	if r.family == famKeyname || isMRN(r) {
		return startAny
	}
	switch r.dt {
	case "email":
		return startEmail
	case "ssn", "sin", "credit_card":
		return startDigit
	case "address":
		if r.key == "postal_code" {
			return startLetter
		}
		return startDigit
	case "phone_number":
		return startPhone
	case "national_insurance_number", "iban", "health_identifier":
		return startUpper
	case "ip_address":
		if strings.Contains(r.re.src, "A-Fa-f") {
			return startHex
		}
		return startDigit
	}
	return startAny
}

// preCheck is the rule's cheap necessary check at a start (detect_pre.go);
// key-name rules keep theirs.
func preCheck(r *rule) func(t string, p int) bool {
	if r.family == famKeyname {
		return r.pre
	}
	src := r.re.src
	switch {
	case r.dt == "ssn":
		return preSSN
	case r.dt == "sin":
		return preSIN
	case r.dt == "credit_card":
		return preCard
	case r.dt == "phone_number":
		return prePhone
	case r.dt == "ip_address" && r.starts == startHex:
		return preIPv6
	case r.dt == "ip_address":
		return preIPv4
	case r.dt == "national_insurance_number":
		return preNINO
	case r.dt == "iban":
		return preIBAN
	case r.dt == "health_identifier" && strings.HasPrefix(src, `(?:NAM`):
		return preHealthSpaced
	case r.dt == "health_identifier" && !isMRN(r):
		return preHealthID
	case r.key == "address" && strings.Contains(src, "Street"):
		return preStreet
	case r.key == "address":
		return preRue
	case r.key == "postal_code":
		return prePostal
	case r.dt == "person_name":
		return preName
	case r.dt == "client_identifier":
		return preClientID
	case r.dt == "credit_score":
		return preCreditScore
	case r.dt == "account_number":
		return preAccount
	case r.dt == "income":
		return preIncome
	case r.dt == "loan_amount":
		return preLoan
	case r.dt == "account_balance":
		return preBalance
	case r.dt == "salary":
		return preSalary
	case r.dt == "secret_assignment":
		return preAssign
	case isMRN(r):
		return preMRN
	case r.dt == "date_of_birth" && r.family == famPII:
		return preDOB
	}
	return r.pre
}

// triggerWords are the words (lower case) a keyword-anchored rule's match
// begins at.
func triggerWords(r *rule) []string {
	switch {
	case r.family == famKeyname:
		return r.triggers
	case isMRN(r):
		return []string{"mrn", "medical record", "health"}
	case r.family == famHealthcare && r.dt == "health_condition":
		return conditionWords
	case r.family == famHealthcare && r.dt == "medication":
		return medicationWords
	case r.starts == startAny:
		return ruleTriggers[r.dt]
	}
	return nil
}

// matchWindow is how many bytes from its start a rule's match can reach,
// plus one (0 for no limit).
func matchWindow(r *rule) int {
	if r.family == famKeyname {
		return 0
	}
	if r.key == "postal_code" {
		return 32
	}
	switch r.dt {
	case "ssn", "sin", "ip_address":
		return 64
	case "credit_card", "iban", "national_insurance_number":
		return 160
	case "phone_number":
		return 96
	case "health_condition", "medication", "internal_note", "sick_leave", "disciplinary_action", "employment_status", "private_key":
		// Literal words (at most 35 bytes): the window still shows the
		// character after the longest, for the closing \b.
		return 64
	}
	return 0
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
	if isASCII(w) {
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

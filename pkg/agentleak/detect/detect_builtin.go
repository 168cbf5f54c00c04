package detect

import (
	"regexp"
	"strings"
	"sync"
)

// detector is one built-in detector of the engine's regex tier, declared
// once: what it reports, its expression, where a match can start and how a
// match is checked. Adding a detector is adding one value to
// builtinDetectors; nothing else names it. (The key-name family is one
// entry per key in keyStems.)
type detector struct {
	family string // the config's `detectors:` switch that turns it on
	dt     string // the data type its findings report

	// What a finding reports besides its value, as AgentLeak reports it:
	// the level (1..4), severity and confidence.
	level    int
	severity string
	conf     float64

	// pattern is the engine's expression (Python syntax: \d and \s are
	// Unicode, \b is Unicode at the match start), the specification every
	// fast path below is held to; group is the group holding the value.
	// fixedWidth drops a closing \b that cannot move the match's end (the
	// scanner checks Python's Unicode \b there itself).
	// givesBack marks a variable-width pattern ending in \b that Go's
	// expression cannot judge (its \b is ASCII): the expression runs
	// without it and the match gives back its end, longest first, until
	// Python's Unicode \b holds (rule.giveBack).
	pattern    string
	group      int
	fixedWidth bool
	givesBack  bool

	// Where a match can start (the context rule). starts is a character
	// class (startDigit, ...), or startAny for a detector found by its
	// trigger words (lower case; the match, or the quote just before it,
	// begins at one). window is how many bytes a match can span, plus one
	// (0 for no limit); screen is the detector's slot in its class's screen
	// (detect_screen.go), 0 for none; pre is a cheap necessary check at a
	// start (detect_pre.go), nil for none.
	starts   byte
	triggers []string
	window   int
	screen   int8
	pre      func(t string, p int) bool

	// The hand Matcher, at most one of: match (fills m and returns 1, 0
	// where the expression cannot match, -1 to leave it to the
	// expression), words (a list of words) or amount (a keyword and an
	// amount). None: the expression matches.
	match  func(t string, p int, m []int) int
	words  *wordList
	amount *amountMatch

	// Validation of a match (the parts of the engine's patterns Go's
	// expressions lack): keep is a check on the match, look a lookaround
	// (no match when false), value cleans the reported value.
	keep  func(t string, m []int) bool
	look  func(t string, m []int) bool
	value func(v string) string
}

// builtinDetectors are the engine's detectors in the order it runs them
// (pii, secrets, healthcare, finance, hr; the key-name detector after
// them, keynameRules), so the first finding of a data type and value in an
// event is the one kept. A function, not a variable: the hand matchers
// and dictionaries are built when a scan first needs them.
func builtinDetectors() []detector {
	var ds []detector
	for _, family := range [][]detector{piiDetectors(), secretDetectors(), healthcareDetectors(), financeDetectors(), hrDetectors()} {
		ds = append(ds, family...)
	}
	return ds
}

// piiDetectors are the PII detector: contact details, identifiers, names and addresses.
func piiDetectors() []detector {
	return []detector{
		{
			family: famPII, dt: "email", level: 2, severity: "medium", conf: 0.95,
			pattern: `[A-Za-z0-9_.+-]+@[A-Za-z0-9-]+\.[A-Za-z0-9-.]+`,
			starts:  startEmail, match: matchEmail,
		},
		{
			family: famPII, dt: "ssn", level: 4, severity: "high", conf: 0.85,
			pattern: `\b\d{3}-\d{2}-\d{4}\b`, fixedWidth: true,
			starts: startDigit, window: 64, screen: digSSN, pre: preSSN, match: matchFixed("ddd-dd-dddd"),
		},
		{
			family: famPII, dt: "sin", level: 4, severity: "high", conf: 0.8,
			pattern: `\b\d{3}[- ]\d{3}[- ]\d{3}\b`, fixedWidth: true,
			starts: startDigit, window: 64, screen: digSIN, pre: preSIN, match: matchFixed("ddd?ddd?ddd"),
		},
		{
			family: famPII, dt: "phone_number", level: 2, severity: "medium", conf: 0.65,
			pattern: `(?:\+?\d{1,3}[-.\s]?)?(?:\(\d{3}\)|\d{3})[-.\s]\d{3}[-.\s]\d{4}`,
			starts:  startPhone, window: 96, screen: scrPhone, pre: prePhone, match: matchPhone,
			look:  func(t string, m []int) bool { return !digitBefore(t, m[0]) && !digitAt(t, m[1]) },
			value: strip,
		},
		{
			family: famPII, dt: "credit_card", level: 4, severity: "high", conf: 0.95,
			pattern: `\b(?:\d[ -]?){13,16}\b`, givesBack: true,
			starts: startDigit, window: 160, screen: digCard, pre: preCard, match: matchCard,
			keep:  func(t string, m []int) bool { return luhn(t[m[0]:m[1]]) },
			value: strip,
		},
		{
			family: famPII, dt: "ip_address", level: 2, severity: "low", conf: 0.6,
			pattern: `\b(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)\b`,
			starts:  startDigit, window: 64, screen: digIPv4, pre: preIPv4,
			// Not a version number: no version keyword in the 16 characters before.
			keep: func(t string, m []int) bool { return !versionPrefix.get().MatchString(runesBefore(t, m[0], 16)) },
		},
		{
			family: famPII, dt: "ip_address", level: 2, severity: "low", conf: 0.6,
			pattern: `\b(?:[A-Fa-f0-9]{1,4}:){3,7}[A-Fa-f0-9]{1,4}\b|\b(?:[A-Fa-f0-9]{1,4}:){1,6}:[A-Fa-f0-9]{1,4}\b`,
			starts:  startHex, window: 64, pre: preIPv6,
		},
		{
			family: famPII, dt: "date_of_birth", level: 3, severity: "medium", conf: 0.75,
			pattern: `(?i)\b(?:dob|d\.o\.b\.|date of birth|born|birth ?date)\b[:\s]*(\d{4}-\d{2}-\d{2}|\d{1,2}[/-]\d{1,2}[/-]\d{2,4})`, group: 1,
			triggers: []string{"dob", "d.o.b.", "date of birth", "born", "birth"}, pre: preDOB,
		},
		{
			family: famPII, dt: "client_identifier", level: 2, severity: "medium", conf: 0.7,
			pattern:  `(?i)\b(?:ACC|ACCT|CUST|CLIENT|USER|MEMBER)[-_]?\d{3,}\b`,
			triggers: []string{"acc", "cust", "client", "user", "member"}, pre: preClientID, match: matchClientID,
		},
		{
			family: famPII, dt: "national_insurance_number", level: 4, severity: "high", conf: 0.8,
			pattern: `\b[ABCEGHJ-PRSTW-Z][ABCEGHJ-NPRSTW-Z]\s?\d{2}\s?\d{2}\s?\d{2}\s?[A-D]\b`,
			starts:  startUpper, window: 160, screen: capNINO, pre: preNINO,
			look: func(t string, m []int) bool { return !ninoExcluded[t[m[0]:m[0]+2]] },
		},
		{
			family: famPII, dt: "person_name", level: 1, severity: "medium", conf: 0.55,
			pattern: `\b(?i:patient|client|customer|employee|name|mr|mrs|ms|dr|prof)\b["'\s:_]+([A-ZÀ-Ý][a-zà-ÿ]+(?:[ -][A-ZÀ-Ý][a-zà-ÿ]+){1,2})`, group: 1,
			triggers: []string{"patient", "client", "customer", "employee", "name", "mr", "mrs", "ms", "dr", "prof"}, pre: preName, match: matchName,
		},
		{
			family: famPII, dt: "address", level: 3, severity: "high", conf: 0.7,
			pattern: `(?i)\b\d{1,5}\s+(?:[A-Z][A-Za-z.]+\s){1,3}(?:Street|St|Avenue|Ave|Road|Rd|Boulevard|Blvd|Drive|Dr|Lane|Ln|Court|Ct|Way|Place|Pl)\b\.?`,
			starts:  startDigit, screen: digStreet, pre: preStreet, match: matchStreet,
			value: strip,
		},
		{
			family: famPII, dt: "address", level: 3, severity: "high", conf: 0.7,
			pattern: `(?i)\b\d{1,5}(?:[-\s]\d{1,4})?\s+(?:Rue|Avenue|Av|Boulevard|Boul|Bd|Chemin|Ch|C[ôo]te|Place|All[ée]e|Impasse|Mont[ée]e|Rang|Croissant|Promenade|Terrasse|Carr[ée])\.?\s+[A-ZÀ-Ý][\wÀ-ÿ'’.-]+(?:[ -][A-ZÀ-Ý][\wÀ-ÿ'’.-]+){0,3}`,
			starts:  startDigit, screen: digRue, pre: preRue, match: matchRue,
			value: strip,
		},
		{
			// A postal code, reported as an address with a confidence of its own.
			family: famPII, dt: "address", level: 3, severity: "medium", conf: 0.6,
			pattern: `\b[A-Za-z]\d[A-Za-z][ -]?\d[A-Za-z]\d\b`,
			starts:  startLetter, window: 32, pre: prePostal,
			value: strip,
		},
	}
}

// secretDetectors are the secrets detector: provider keys, tokens, connection strings and assignments.
func secretDetectors() []detector {
	return []detector{
		{
			family: famSecrets, dt: "private_key", level: 4, severity: "critical", conf: 0.95,
			pattern:  `-----BEGIN (?:RSA |EC |DSA |OPENSSH |PGP )?PRIVATE KEY-----`,
			triggers: []string{"-----begin"}, window: 64,
		},
		{
			family: famSecrets, dt: "aws_access_key", level: 4, severity: "critical", conf: 0.97,
			pattern: `\bAKIA[0-9A-Z]{16}\b`, triggers: []string{"akia"},
		},
		{
			family: famSecrets, dt: "github_token", level: 4, severity: "critical", conf: 0.95,
			pattern: `\bgh[oprsu]_[A-Za-z0-9]{36}\b`, triggers: []string{"gh"},
		},
		{
			family: famSecrets, dt: "slack_token", level: 4, severity: "critical", conf: 0.9,
			pattern: `\bxox[baprs]-[A-Za-z0-9-]{10,}\b`, triggers: []string{"xox"},
		},
		{
			family: famSecrets, dt: "stripe_key", level: 4, severity: "critical", conf: 0.95,
			pattern: `\b[sr]k_(?:live|test)_[A-Za-z0-9]{16,}\b`, triggers: []string{"sk_", "rk_"},
		},
		{
			family: famSecrets, dt: "llm_api_key", level: 4, severity: "critical", conf: 0.95,
			pattern: `\bsk-(?:proj|svcacct|admin|ant-api\d{2})?-?[A-Za-z0-9_-]{16,}\b`, triggers: []string{"sk-"},
		},
		{
			family: famSecrets, dt: "google_api_key", level: 4, severity: "critical", conf: 0.93,
			pattern: `\bAIza[0-9A-Za-z_-]{35}\b`, triggers: []string{"aiza"},
		},
		{
			family: famSecrets, dt: "jwt", level: 4, severity: "high", conf: 0.85,
			pattern: `\beyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\b`, triggers: []string{"eyj"},
		},
		{
			family: famSecrets, dt: "bearer_token", level: 4, severity: "high", conf: 0.8,
			pattern: `(?i)\bbearer\s+([A-Za-z0-9._~+/=-]{16,})`, group: 1, triggers: []string{"bearer"},
			// A JWT after "bearer" is the JWT detector's.
			keep: func(t string, m []int) bool { return !strings.HasPrefix(t[m[2]:m[3]], "eyJ") },
		},
		{
			family: famSecrets, dt: "connection_string", level: 4, severity: "high", conf: 0.75,
			pattern:  `(?i)\b(?:postgres(?:ql)?|mysql|mongodb(?:\+srv)?|redis|amqps?)://[^\s'"]+`,
			triggers: []string{"postgres", "mysql", "mongodb", "redis", "amqp"},
		},
		{
			family: famSecrets, dt: "secret_assignment", level: 4, severity: "high", conf: 0.65,
			pattern: `(?i)\b(password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key)\b\s*[:=]\s*["']?([^"'\s,}]{6,})`, group: 2,
			triggers: []string{"password", "passwd", "pwd", "secret", "token", "api", "access"}, pre: preAssign,
			// Not a placeholder, a reference to where the secret is kept or a constant's name.
			keep: func(t string, m []int) bool {
				v := t[m[4]:m[5]]
				return !secretPlaceholders[strings.ToLower(v)] && !secretReference.get().MatchString(v) && !constantRef.get().MatchString(v)
			},
		},
	}
}

// healthcareDetectors are the healthcare detector: health identifiers and the condition and medication dictionaries.
func healthcareDetectors() []detector {
	return []detector{
		{
			family: famHealthcare, dt: "health_identifier", level: 4, severity: "critical", conf: 0.85,
			pattern: `\b[A-Z]{4}\d{8}\b`,
			starts:  startUpper, screen: capHealthID, pre: preHealthID,
		},
		{
			family: famHealthcare, dt: "health_identifier", level: 4, severity: "critical", conf: 0.85,
			pattern: `\b(?:NAM\s+)?[A-Z]{4}(?:[\s-]\d{2,4}){2,4}\b`,
			starts:  startUpper, screen: capHealthSpaced, pre: preHealthSpaced,
			// Not a number the tight form (the detector above) reports.
			keep: func(t string, m []int) bool {
				v := t[m[0]:m[1]]
				n := strings.TrimPrefix(strings.NewReplacer(" ", "", "-", "").Replace(v), "NAM")
				for _, tight := range namTight.get().FindAllString(t, -1) {
					if tight == n || tight == v {
						return false
					}
				}
				return true
			},
		},
		{
			family: famHealthcare, dt: "health_identifier", level: 4, severity: "critical", conf: 0.85,
			pattern: `(?i)\b(?:mrn|medical record(?: number)?|health[_ ]?id)\b[:\s#]*((?:NAM\s*)?[A-Z0-9][A-Z0-9 \-]{4,})`, group: 1,
			triggers: []string{"mrn", "medical record", "health"}, pre: preMRN,
		},
		dictionaryDetector("health_condition", 4, "medium", 0.7, healthConditions),
		dictionaryDetector("medication", 4, "medium", 0.65, medications),
	}
}

// dictionaryDetector is a healthcare dictionary: any of terms as a whole
// word, case-insensitive; the group is the whole match (\b is empty).
func dictionaryDetector(dt string, level int, severity string, conf float64, terms []string) detector {
	return detector{
		family: famHealthcare, dt: dt, level: level, severity: severity, conf: conf,
		pattern: dictionaryPattern(terms), triggers: lowerAll(terms), window: 64,
		words: words(lowerAll(dictOrder(terms))...),
	}
}

// dictionaryPattern is `\b(term|...)\b`, longest term first, case-insensitive.
func dictionaryPattern(terms []string) string {
	q := dictOrder(terms)
	for i, t := range q {
		q[i] = regexp.QuoteMeta(t)
	}
	return `(?i)\b(` + strings.Join(q, "|") + `)\b`
}

// financeDetectors are the finance detector: IBAN, account numbers and amounts after their keywords.
func financeDetectors() []detector {
	return []detector{
		{
			family: famFinance, dt: "iban", level: 4, severity: "high", conf: 0.75,
			pattern: `\b[A-Z]{2}\d{2}[A-Z0-9]{11,30}\b`,
			starts:  startUpper, window: 160, screen: capIBAN, pre: preIBAN, match: matchIBAN,
			keep: func(t string, m []int) bool { return hasDigit(t[m[0]+4 : m[1]]) },
		},
		{
			family: famFinance, dt: "account_number", level: 4, severity: "high", conf: 0.8,
			pattern: `(?i)\b(?:account|acct|compte)(?:\s*(?:number|no|num|#))?` + amountSep + `([0-9]{6,})`, group: 1,
			triggers: []string{"account", "acct", "compte"}, pre: preAccount,
			amount: &amountMatch{keys: []string{"account", "acct", "compte"}, opts: []string{"number", "no", "num", "#"}, digits: 6},
		},
		{
			family: famFinance, dt: "credit_score", level: 3, severity: "medium", conf: 0.8,
			pattern: `(?i)\bcredit\s*score` + amountSep + `([0-9]{3})\b`, group: 1,
			triggers: []string{"credit"}, pre: preCreditScore,
		},
		{
			family: famFinance, dt: "income", level: 3, severity: "medium", conf: 0.7,
			pattern: `(?i)\b(?:income|revenue|revenu|salary income|gross income)` + amountSep + `\$?([0-9][0-9,]{3,})`, group: 1,
			triggers: []string{"income", "revenu", "salary income", "gross income"}, pre: preIncome,
			amount: &amountMatch{keys: []string{"income", "revenue", "revenu", "salary income", "gross income"}, more: 3},
		},
		{
			family: famFinance, dt: "loan_amount", level: 3, severity: "medium", conf: 0.65,
			pattern: `(?i)\b(?:loan|mortgage|prêt|pret)(?:\s*(?:amount|montant))?` + amountSep + `\$?([0-9][0-9,]{3,})`, group: 1,
			triggers: []string{"loan", "mortgage", "prêt", "pret"}, pre: preLoan,
			amount: &amountMatch{keys: []string{"loan", "mortgage", "prêt", "pret"}, opts: []string{"amount", "montant"}, more: 3},
		},
		{
			family: famFinance, dt: "account_balance", level: 3, severity: "medium", conf: 0.6,
			pattern: `(?i)\b(?:balance|solde)` + amountSep + `\$?([0-9][0-9,]{2,})`, group: 1,
			triggers: []string{"balance", "solde"}, pre: preBalance,
			amount: &amountMatch{keys: []string{"balance", "solde"}, more: 2},
		},
		{
			family: famFinance, dt: "internal_note", level: 3, severity: "high", conf: 0.7,
			pattern:  `(?i)\b(?:internal (?:risk )?note|risk note|underwriter note|internal assessment)\b`,
			triggers: []string{"internal", "risk note", "underwriter"}, window: 64,
			words: words("internal risk note", "internal note", "risk note", "underwriter note", "internal assessment"),
		},
	}
}

// hrDetectors are the HR detector: salary and the HR terms.
func hrDetectors() []detector {
	return []detector{
		{
			family: famHR, dt: "salary", level: 3, severity: "high", conf: 0.75,
			pattern: `(?i)\b(?:salary|salaire|compensation|base pay)` + amountSep + `\$?([0-9][0-9,]{3,})`, group: 1,
			triggers: []string{"salary", "salaire", "compensation", "base pay"}, pre: preSalary,
			amount: &amountMatch{keys: []string{"salary", "salaire", "compensation", "base pay"}, more: 3},
		},
		{
			family: famHR, dt: "sick_leave", level: 4, severity: "high", conf: 0.75,
			pattern:  `(?i)\b(?:sick leave|medical leave|congé maladie|stress leave|fmla)\b`,
			triggers: []string{"sick leave", "medical leave", "congé", "stress leave", "fmla"}, window: 64,
			words: words("sick leave", "medical leave", "congé maladie", "stress leave", "fmla"),
		},
		{
			family: famHR, dt: "performance_review", level: 2, severity: "medium", conf: 0.7,
			pattern:  `(?i)\b(?:performance review|performance rating|performance plan|pip|évaluation|underperform\w*)\b`,
			triggers: []string{"performance", "pip", "évaluation", "valuation", "underperform"},
			words:    &wordList{words: []string{"performance review", "performance rating", "performance plan", "pip", "évaluation", "underperform"}, tail: []bool{5: true}},
		},
		{
			family: famHR, dt: "disciplinary_action", level: 3, severity: "high", conf: 0.8,
			pattern:  `(?i)\b(?:disciplinary|written warning|final warning|misconduct|reprimand|mesure disciplinaire)\b`,
			triggers: []string{"disciplinary", "written warning", "final warning", "misconduct", "reprimand", "mesure disciplinaire"}, window: 64,
			words: words("disciplinary", "written warning", "final warning", "misconduct", "reprimand", "mesure disciplinaire"),
		},
		{
			family: famHR, dt: "hr_complaint", level: 2, severity: "medium", conf: 0.7,
			pattern:  `(?i)\b(?:grievance|harassment complaint|hr complaint|plainte|whistleblow\w*)\b`,
			triggers: []string{"grievance", "harassment complaint", "hr complaint", "plainte", "whistleblow"},
			words:    &wordList{words: []string{"grievance", "harassment complaint", "hr complaint", "plainte", "whistleblow"}, tail: []bool{4: true}},
		},
		{
			family: famHR, dt: "employment_status", level: 3, severity: "medium", conf: 0.6,
			pattern:  `(?i)\b(?:terminated|termination|laid off|let go|severance)\b`,
			triggers: []string{"terminated", "termination", "laid off", "let go", "severance"}, window: 64,
			words: words("terminated", "termination", "laid off", "let go", "severance"),
		},
	}
}

// rule compiles the detector into the form the scanner runs.
func (d *detector) rule() rule {
	src := goPattern(d.pattern)
	if d.fixedWidth || d.givesBack {
		src = strings.TrimSuffix(src, `\b`)
	}
	match := d.match
	switch {
	case d.words != nil:
		match = d.words.Matcher()
	case d.amount != nil:
		match = d.amount.match
	}
	return rule{
		family: d.family, dt: d.dt, re: lazy(src), group: d.group,
		keep: d.keep, look: d.look, value: d.value,
		starts: d.starts, triggers: d.triggers, window: d.window,
		wordHead: leadingBound(d.pattern), wordTail: strings.HasSuffix(d.pattern, `\b`),
		pre: d.pre, match: match, screen: d.screen, givesBack: d.givesBack,
		info: &ReportInfo{DT: d.dt, Level: d.level, Severity: d.severity, Conf: d.conf, Detector: detectorName[d.family]},
	}
}

// builtinRules are the rules the scanner runs: the detectors', then the
// key-name detector's, each with its expression anchored at a start.
func builtinRules() []rule {
	ds := builtinDetectors()
	rs := make([]rule, 0, len(ds)+len(keyStems))
	for i := range ds {
		rs = append(rs, ds[i].rule())
	}
	rs = append(rs, keynameRules()...)
	for i := range rs {
		rs[i].anchored = lazy(`^(?:` + rs[i].re.src + `)`)
		if rs[i].givesBack {
			rs[i].whole = lazy(`^(?:` + rs[i].re.src + `)$`)
		}
	}
	return rs
}

// keyInfo is what a key-name finding of data type dt reports: the level
// of the data type, its severity, a confidence of 0.6.
func keyInfo(dt string) *ReportInfo {
	lv := DefaultLevel(dt)
	return &ReportInfo{DT: dt, Level: lv, Severity: SeverityFor(lv), Conf: 0.6, Detector: detectorName[famKeyname]}
}

// builtin builds the rule engine when a scan first needs it, not when the
// package is initialised: every lf command would pay for it otherwise.
var builtin = sync.OnceValue(func() *ruleEngine {
	e := &ruleEngine{rules: builtinRules()}
	e.trie, e.trigRules = buildTriggers(e.rules)
	return e
})

// detectorLevels are the levels of the data types the built-in detectors
// report (every detector of a data type reports the same level:
// TestDetectorsDeclared), for findings of those types from other detectors
// (key names, vault fields).
var detectorLevels = sync.OnceValue(func() map[string]int {
	m := map[string]int{}
	for _, d := range builtinDetectors() {
		m[d.dt] = d.level
	}
	return m
})

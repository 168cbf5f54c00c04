package detect

import (
	"fmt"
	"math/rand"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/lfcli/lf/pkg/agentleak/internal/tracetest"
	"github.com/lfcli/lf/pkg/agentleak/tracefile"
	"github.com/lfcli/lf/pkg/internal/testfiles"
)

// reportString names what a finding reports:
// detector/data type/level/severity/confidence.
func reportString(ri *ReportInfo) string {
	return ri.Detector + "/" + ri.DT + "/" + strconv.Itoa(ri.Level) + "/" + ri.Severity + "/" + strconv.FormatFloat(ri.Conf, 'g', -1, 64)
}

func fastRules(fam map[string]bool, text string) []string {
	ps := NewPatternSet(fam)
	var got []string
	ps.RunRules(text, func(info *ReportInfo, v string) {
		got = append(got, reportString(info)+"="+v)
	})
	return got
}

func plainRulesList(fam map[string]bool, text string) []string {
	var got []string
	NewPatternSet(fam).RunPlain(text, func(info *ReportInfo, v string) {
		got = append(got, reportString(info)+"="+v)
	})
	return got
}

// packTexts returns the scanned text of every event of every shared pack
// and of the repository's pack. When testfiles.Reduced (a plain `go test`,
// -short) it takes every packStride-th text of the shared packs (about
// 5,300 texts in all, whose plain expressions took seconds in each test):
// CI's LF_TEST_FULL=1 pass checks them all.
func packTexts(t testing.TB) []string {
	d := testfiles.SharedDir()
	files, _ := filepath.Glob(filepath.Join(d, "conformance", "agentleak", "*", "traces.jsonl"))
	more, _ := filepath.Glob(filepath.Join(d, "conformance", "agentleak-coverage", "traces.jsonl"))
	files = append(files, more...)
	stride := 1
	if testfiles.Reduced() {
		stride = packStride
	}
	var out []string
	for _, f := range files {
		n := 0
		tracetest.EachText(t, f, func(_ *tracefile.Trace, s string) {
			if n%stride == 0 {
				out = append(out, s)
			}
			n++
		})
	}
	tracetest.EachText(t, filepath.Join(testfiles.Root(t), "project", "agentleak", "traces.jsonl"), func(_ *tracefile.Trace, s string) { out = append(out, s) })
	return out
}

// packStride samples the shared packs' texts in a reduced run.
const packStride = 5

// fragments are the pieces random texts are made of: the rules' keywords
// and formats, near misses, Unicode digits, spaces and letters.
var fragments = []string{
	" ", " ", " ", "  ", "\n", "\t", "\u00a0", "\u2003", "\u3000", ", ", ". ", ": ", ":", "=", " | ", "\"", "'", "-", "_", "/", ".", "(", ")", "+", "@", "#", "$", "{", "}",
	"0", "1", "7", "9", "12", "123", "255", "256", "999", "1234", "4111", "0000", "12345", "123456", "12345678", "4111111111111111", "٣", "٤٥٦", "３", "１２３", "०", "²",
	"412-55-9087", "123-456-789", "123 456 789", "555-123-4567", "(555) 123-4567", "+1 555.123.4567", "4111 1111 1111 1111", "4111-1111-1111-1111", "10.0.0.1", "192.168.1.255", "2001:db8::1", "fe80:0:0:0:1:2:3:4", "a:b:c:d",
	"version", "Version ", "ver", "build", "release", "rev", "v", "v1.2", "10.2.3.4",
	"dob", "DOB", "d.o.b.", "D.O.B.", "date of birth", "born", "birth date", "birthdate", "1980-01-31", "3/4/1990", "12/31/99",
	"ACC", "acct", "CUST-", "client_", "USER", "member", "patient", "Patient", "customer", "employee", "name", "Name", "mr", "Mr", "Mrs.", "ms", "Dr", "dr.", "prof",
	"Jean", "Tremblay", "Marie", "Curie", "Émile", "ÉMILE", "Zoë", "Ñuñez", "O'Brien", "Anne-Marie",
	"Street", "St", "st.", "Ave", "avenue", "Road", "Rd", "Blvd", "Drive", "Dr", "Lane", "Court", "Way", "Place", "Pl", "Rue", "Chemin", "Côte", "Allée", "Saint-Denis", "Oak", "Main", "H2X 1Y4", "h2x1y4", "K1A-0B1",
	"AB123456C", "AB 12 34 56 C", "BG123456A", "QQ123456C", "TREM12345678", "NAM TREM 8842 0197", "TREM 8842 0197", "ISBN 978-0-306-40615-7", "MRN", "mrn: 12345", "medical record number", "health id",
	"diabetes", "Diabetes", "cancer du sein", "myocardial infarction", "hiv", "HIV", "diabète", "dépression", "insulin", "5-fu", "FOLFOX", "chimiothérapie", "insuline",
	"DE89370400440532013000", "FR7630006000011234567890189", "GB82 WEST 1234 5698 7654 32", "account", "Account Number", "acct no", "compte", "#", "credit score", "Credit Score 742", "income", "gross income $85,000", "revenu", "loan", "mortgage", "prêt", "montant", "balance", "solde", "$", "410,000,", "internal note", "risk note", "underwriter note", "internal assessment",
	"salary", "salaire", "compensation", "base pay", "sick leave", "congé maladie", "fmla", "performance review", "pip", "PIP", "évaluation", "underperforming", "disciplinary", "written warning", "misconduct", "grievance", "hr complaint", "plainte", "whistleblower", "terminated", "laid off", "let go", "severance",
	"-----BEGIN RSA PRIVATE KEY-----", "AKIAABCDEFGHIJKLMNOP", "ghp_abcdefghijklmnopqrstuvwxyz0123456789", "xoxb-1234567890-abc", "sk_live_abcdefghijklmnop", "sk-proj-abcdefghijklmnopqrst", "sk-ant-api03-abcdefghijklmnopqrst", "AIzaSyA1234567890abcdefghijklmnopqrstu", "eyJhbGciOi.eyJzdWIi.sig_nature", "Bearer abcdefghijklmnop1234", "bearer", "postgres://u:p@h:5432/db", "mongodb+srv://x", "redis://", "amqps://q",
	"password", "Password", "passwd", "pwd", "secret", "token", "api_key", "API-KEY", "apikey", "access_key", "hunter22!", "os.environ['X']", "settings.KEY", "SECRET_VALUE", "none", "null", "redacted", "******", "xxxxxx", "n/a", "???", "<id>", "{{x}}", "${X}",
	"ssn", "SSN", "social_security_number", "sin", "health_id", "healthId", "nam", "diagnosis", "diagnoses", "condition", "medications", "prescription", "drug", "rx", "account_number", "iban", "credit_card", "card number", "pan", "home_address", "mailingAddress", "disciplinary_note", "phone", "Phone Number", "telephone", "mobile", "performance_review", "patient_name", "fullName", "student name",
	"jane.doe@example.org", "a@b.co", "x.y+z@ex-ample.com", "@", "mail", "中文", "テスト", "한국어", "ß", "ﬁ", "İ", "K",
}

// randomText draws a few fragments and strings them together, so that the
// same pieces meet each other often (adjacent matches, a match inside another).
func randomText(rng *rand.Rand) string {
	pool := make([]string, 2+rng.Intn(7))
	for i := range pool {
		pool[i] = fragments[rng.Intn(len(fragments))]
	}
	var b strings.Builder
	n := 1 + rng.Intn(40)
	for i := 0; i < n; i++ {
		b.WriteString(pool[rng.Intn(len(pool))])
		if rng.Intn(3) == 0 {
			b.WriteByte(' ')
		}
	}
	return b.String()
}

func familySets() []map[string]bool {
	all := allFamilies()
	sets := []map[string]bool{all}
	for _, f := range Families {
		sets = append(sets, map[string]bool{f: true})
	}
	return sets
}

// TestFastRulesMatchPlainRegexps holds the fast path (trigger words,
// character classes, windows, necessary checks, hand-written matchers) to the
// plain regular expressions on the shared packs' texts, the bundled traces
// and random texts built from the rules' keywords, formats and near misses.
func TestFastRulesMatchPlainRegexps(t *testing.T) {
	t.Parallel()
	check := func(name, text string, sets []map[string]bool) {
		t.Helper()
		for _, fam := range sets {
			fast, plain := fastRules(fam, text), plainRulesList(fam, text)
			if !reflect.DeepEqual(fast, plain) {
				t.Errorf("%s: %q\nfast:  %q\nplain: %q", name, text, fast, plain)
				return
			}
		}
	}
	texts := packTexts(t)
	for i, s := range texts {
		check(fmt.Sprintf("pack text %d", i), s, familySets()[:1])
	}
	rng := rand.New(rand.NewSource(10))
	n := 5000
	if testfiles.Reduced() {
		n = 500
	}
	for i := 0; i < n; i++ {
		check(fmt.Sprintf("random text %d", i), randomText(rng), familySets())
	}
	t.Logf("%d pack texts and %d random texts agree", len(texts), n)
}

// TestRulesCompile compiles every rule's expressions, which the scanner
// compiles only when first needed: a bad pattern fails here, not in a scan.
func TestRulesCompile(t *testing.T) {
	for i := range builtin().rules {
		r := &builtin().rules[i]
		if r.re.get() == nil || r.anchored.get() == nil {
			t.Errorf("rule %d (%s): no expression", i, r.dt)
		}
		if r.match != nil && 2*r.group+2 > len(ruleState{}.m) {
			t.Errorf("rule %d (%s): a hand match's scratch holds no group %d", i, r.dt, r.group)
		}
	}
}

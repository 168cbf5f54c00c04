package detect

import "testing"

// wordLoopTexts hold what lowerWords files without handing back to
// findStarts' main loop: a short word that A-F follows ("\\nEmma" in a
// tool's quoted output), two capitals at a word start (acronyms, an IPv6
// group in capitals, a trigger word in capitals), a colon after a short
// word, a hyphen, '@' or '(' after an identifier, and the last bytes of
// a text (a word cut by the end, a long word that reaches it, a colon).
var wordLoopTexts = []string{
	"Signed,\\nEmma Johnson\\nBefore you can solve the task\\nCreative, flavorful\\nAddress",
	"the abC:12 and aBAD:beef, fe80 dE:ad cafeBabe",
	"the AI assistant and the HR partner of INFORMATION> and IBAN GB29NWBK60161331926819",
	"mask FF:01:02 or ABCD:ef or ACE: a DEADBEEF:1 and ABC_def and AbC",
	"PASSWORD is SSN 123 and DOB and MRN and API_KEY=sk-live",
	"url: www.example.com and date: 2022-01-01 with n: 100 and name: Bob and be:ef",
	"Transaction(id=1, sender='me') evt_x@example.com snake_case-word camelCase(x) camelCase@y.io",
	"call MrSmith(office) or HR-approved or AB-12 or XY@z.com or XYZ(1)",
	"asked for.",
	"information",
	"the passwords",
	"tell me ab:",
	"x ssn",
	"x SSN",
	"x AB",
	"x Mr",
	"x ab_cd",
	"the dépression and prÊt and Évaluation",
}

// TestClassPassWordLoopCases holds the class pass to the reference on the
// texts above and on each of their prefixes and suffixes, with every
// family set, so that each path of the word loop meets every end of text.
func TestClassPassWordLoopCases(t *testing.T) {
	var texts []string
	for _, s := range wordLoopTexts {
		for k := range s {
			texts = append(texts, s[k:], s[:k])
		}
		texts = append(texts, s)
	}
	for _, fam := range familySets() {
		ps := NewPatternSet(fam)
		for _, s := range texts {
			if d := diffStarts(ps, s, ps.findStarts(s)); d != "" {
				t.Fatalf("%q (families %v): %s", s, fam, d)
			}
		}
	}
}

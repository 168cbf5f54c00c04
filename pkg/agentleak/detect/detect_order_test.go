package detect

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// Where runRule tries a rule is not visible in the findings when a refused
// start would be refused again later (matchAt's lookarounds judge the \b
// at a match's head once more, and a start tried twice or out of order
// mostly gives the same answer), so these tests watch the starts
// themselves: every rule's necessary check is wrapped to note where it is
// called, and each rule must be tried at increasing positions within one
// text (the trigger positions sorted, a start tried once) and, when its
// pattern begins with \b, only where Python's \b holds.

// orderTexts are texts whose trigger words give starts out of order or at
// no word boundary: a quote or a non-ASCII letter before a trigger word
// that is a prefix of another of the rule's words ("phone" and "phone
// number", "mr" and "mrs"), none of which matches.
var orderTexts = []string{
	`"phone number" is missing`,
	`x "phone number" is missing`,
	`'phone number' then "phone" and 'mobile phone' twice`,
	`""Mrs and "Mr with 'Mrs`,
	`a"Mrs b"Mr "Mrs`,
	`éphone number is éMrs`,
	`""password and ""token and ""secret`,
	`ßaccount number ßpassword "account number" 'account no'`,
	`"date of birth" and "dob" and 'date of birth and ""dob`,
}

// startProbe wraps every rule's necessary check (or puts one in) to note
// the positions runRule tries, and returns what it found wrong and how
// many starts it saw. The rules are put back by the returned function.
func startProbe(t *testing.T) (check func(text string, fam map[string]bool) string, seen *int, restore func()) {
	e := builtin()
	saved := append([]rule(nil), e.rules...)
	last := make([]int, len(e.rules))
	var bad string
	n := 0
	for i := range e.rules {
		r := &e.rules[i]
		pre, head := r.pre, r.wordHead
		r.pre = func(text string, p int) bool {
			if earlyCall() {
				// addTrigger's test of a trigger position (mayStart),
				// made as the words are found: not runRule's order.
				if head && !unicodeBound(text, p) && bad == "" {
					bad = fmt.Sprintf("rule %d (%s) begins with \\b but its check ran at %d, no boundary, in %q", i, r.dt, p, text)
				}
				return pre == nil || pre(text, p)
			}
			n++
			if p <= last[i] && bad == "" {
				bad = fmt.Sprintf("rule %d (%s) tried at %d after %d in %q", i, r.dt, p, last[i], text)
			}
			last[i] = p
			if head && !unicodeBound(text, p) && bad == "" {
				bad = fmt.Sprintf("rule %d (%s) begins with \\b but was tried at %d, no boundary, in %q", i, r.dt, p, text)
			}
			return pre == nil || pre(text, p)
		}
	}
	check = func(text string, fam map[string]bool) string {
		for i := range last {
			last[i] = -1
		}
		bad = ""
		ps := NewPatternSet(fam)
		ps.RunRules(text, func(*ReportInfo, string) {})
		return bad
	}
	return check, &n, func() { copy(e.rules, saved) }
}

// earlyCall tells whether the rule check that calls it was called by
// mayStart (addTrigger), not by runRule.
func earlyCall() bool {
	pc, _, _, ok := runtime.Caller(2)
	if !ok {
		return false
	}
	name := runtime.FuncForPC(pc).Name()
	return strings.HasSuffix(name, ".mayStart") || strings.HasSuffix(name, ".addTrigger")
}

// TestRunRuleTriesStartsInOrderAtBounds: on the pack texts, the mutation
// texts and orderTexts, each rule is tried at increasing positions and a
// \b-headed rule only at a boundary.
func TestRunRuleTriesStartsInOrderAtBounds(t *testing.T) {
	check, seen, restore := startProbe(t)
	defer restore()
	texts := append(append(append([]string(nil), orderTexts...), packTexts(t)...), preTexts(21, 3000)...)
	for _, fam := range []map[string]bool{allFamilies()} {
		for _, s := range texts {
			if bad := check(s, fam); bad != "" {
				t.Fatal(bad)
			}
		}
	}
	if *seen < 1000 {
		t.Fatalf("only %d starts tried: the probe does not see runRule", *seen)
	}
}

package agentleak

import (
	"testing"
)

// screenViolation returns the first text and position where a screened
// rule's anchored expression matches and the screen leaves the rule out,
// and how many matches of screened rules it saw.
func screenViolation(screen func(string, int) uint8, texts []string) (text string, at int, dt string, matched int) {
	e := builtin()
	for i := range e.rules {
		r := &e.rules[i]
		if r.digit == 0 {
			continue
		}
		re := r.anchored.get()
		for _, s := range texts {
			for p := 0; p < len(s); p++ {
				if !isDigit(s[p]) && s[p] < 0x80 {
					continue // the screen sees only digit starts
				}
				if re.MatchString(s[p:]) {
					matched++
					if screen(s, p)&(1<<r.digit) == 0 && text == "" {
						text, at, dt = s, p, r.dt
					}
				}
			}
		}
	}
	return text, at, dt, matched
}

// TestDigitScreenIsNecessary: wherever a screened rule's anchored
// expression matches at a digit (or a byte above 0x7f), the digit screen
// lets the rule try the start; and every rule that starts at digits has a
// slot of its own.
func TestDigitScreenIsNecessary(t *testing.T) {
	skipUnderShort(t)
	e := builtin()
	seen := map[int8]bool{}
	for i := range e.rules {
		r := &e.rules[i]
		if r.starts == startDigit && len(r.triggers) == 0 {
			if r.digit == 0 || seen[r.digit] {
				t.Errorf("rule %d %s: digit slot %d", i, r.dt, r.digit)
			}
			seen[r.digit] = true
		}
	}
	texts := append(preTexts(13, 6000), matchTexts(14, 3000)...)
	text, at, dt, matched := screenViolation(digitScreen, texts)
	if text != "" {
		t.Errorf("%s matches at %d of %q, but the digit screen leaves it out", dt, at, text)
	}
	if matched < 1000 {
		t.Errorf("only %d matches: the texts no longer exercise the screen", matched)
	}
}

// TestDigitScreenTestCatchesWrongScreens: the test above fails for screens
// that are deliberately wrong: a separator or a run length of one rule
// forgotten.
func TestDigitScreenTestCatchesWrongScreens(t *testing.T) {
	skipUnderShort(t)
	texts := append(preTexts(13, 6000), matchTexts(14, 3000)...)
	without := func(slot int8, when func(s string, p int) bool) func(string, int) uint8 {
		return func(s string, p int) uint8 {
			set := digitScreen(s, p)
			if when(s, p) {
				set &^= 1 << slot
			}
			return set
		}
	}
	after := func(n int, c byte) func(string, int) bool {
		return func(s string, p int) bool { return digitRun(s, p, n) && byteAt(s, p+n) == c }
	}
	wrong := map[string]func(string, int) uint8{
		"sin with a space":      without(digSIN, after(3, ' ')),
		"ipv4 of one digit":     without(digIPv4, after(1, '.')),
		"street of five digits": without(digStreet, func(s string, p int) bool { return digitRun(s, p, 5) }),
		"rue after a dash":      without(digRue, after(2, '-')),
		"card of 13 digits":     without(digCard, func(s string, p int) bool { return digitRun(s, p, 13) }),
		"card after a space":    without(digCard, after(4, ' ')),
		"street after a tab":    without(digStreet, func(s string, p int) bool { return byteAt(s, p+1) == '\x1c' || byteAt(s, p+2) == '\x1c' }),
		"ssn":                   without(digSSN, after(3, '-')),
	}
	for name, screen := range wrong {
		if text, _, _, _ := screenViolation(screen, texts); text == "" {
			t.Errorf("%s: a deliberately wrong screen passes the test", name)
		}
	}
}

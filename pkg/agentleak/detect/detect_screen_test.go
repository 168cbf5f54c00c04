package detect

import (
	"testing"

	"github.com/lfcli/lf/pkg/internal/testfiles"
)

// screenSet is the set of slots (bit k for slot k) whose lists the screen
// of class c files p in.
func screenSet(c byte, t string, p int) uint16 {
	st := newRuleState(0)
	switch c {
	case startDigit:
		st.screenDigits(t, []int{p})
	case startUpper:
		st.screenCapitals(t, []int{p})
	default:
		st.screenPhones(t, []int{p})
	}
	var set uint16
	for k := range st.scr {
		if len(st.scr[k]) > 0 {
			set |= 1 << k
		}
	}
	return set
}

// screenOf is the screen of a start class, and the positions it is asked
// about: digits and capitals (or bytes above 0x7f), or any for the phone.
func screenOf(c byte) (screen func(string, int) uint16, at func(byte) bool) {
	screen = func(t string, p int) uint16 { return screenSet(c, t, p) }
	switch c {
	case startDigit:
		return screen, func(b byte) bool { return isDigit(b) || b >= 0x80 }
	case startUpper:
		return screen, func(b byte) bool { return isUpper(b) || b >= 0x80 }
	}
	return screen, func(byte) bool { return true }
}

// screenViolation returns the first text and position where a screened
// rule's anchored expression matches and its screen (or the one given for
// its slot) leaves the rule out, and how many matches of screened rules
// it saw.
func screenViolation(wrong map[int8]func(string, int) uint16, texts []string) (text string, at int, dt string, matched int) {
	e := builtin()
	for i := range e.rules {
		r := &e.rules[i]
		if r.screen == 0 {
			continue
		}
		screen, asked := screenOf(screenClass(r.screen))
		if w := wrong[r.screen]; w != nil {
			screen = w
		}
		re := r.anchored.get()
		for _, s := range texts {
			for p := 0; p < len(s); p++ {
				if !asked(s[p]) {
					continue
				}
				if re.MatchString(s[p:]) {
					matched++
					if screen(s, p)&(1<<r.screen) == 0 && text == "" {
						text, at, dt = s, p, r.dt
					}
				}
			}
		}
	}
	return text, at, dt, matched
}

func screenTexts() []string { return append(preTexts(13, 6000), matchTexts(14, 3000)...) }

// TestScreensAreNecessary: wherever a screened rule's anchored expression
// matches at a position its class's screen is asked about, the screen
// lets the rule try it; and every rule that starts at digits or capitals
// has a slot of its own.
func TestScreensAreNecessary(t *testing.T) {
	testfiles.SkipUnlessFull(t)
	e := builtin()
	seen := map[int8]bool{}
	for i := range e.rules {
		r := &e.rules[i]
		if (r.starts == startDigit || r.starts == startUpper || r.starts == startPhone) && len(r.triggers) == 0 {
			if r.screen == 0 || seen[r.screen] || screenClass(r.screen) != r.starts {
				t.Errorf("rule %d %s: screen slot %d", i, r.dt, r.screen)
			}
			seen[r.screen] = true
		}
	}
	text, at, dt, matched := screenViolation(nil, screenTexts())
	if text != "" {
		t.Errorf("%s matches at %d of %q, but its screen leaves it out", dt, at, text)
	}
	if matched < 1000 {
		t.Errorf("only %d matches: the texts no longer exercise the screens", matched)
	}
}

// TestScreenTestCatchesWrongScreens: the test above fails for screens that
// are deliberately wrong: a separator or a run length of one rule
// forgotten.
func TestScreenTestCatchesWrongScreens(t *testing.T) {
	testfiles.SkipUnlessFull(t)
	texts := screenTexts()
	without := func(slot int8, when func(s string, p int) bool) map[int8]func(string, int) uint16 {
		screen, _ := screenOf(screenClass(slot))
		return map[int8]func(string, int) uint16{slot: func(s string, p int) uint16 {
			set := screen(s, p)
			if when(s, p) {
				set &^= 1 << slot
			}
			return set
		}}
	}
	after := func(n int, c byte) func(string, int) bool {
		return func(s string, p int) bool { return digitRun(s, p, n) && byteAt(s, p+n) == c }
	}
	wrong := map[string]map[int8]func(string, int) uint16{
		"sin with a space":      without(digSIN, after(3, ' ')),
		"ipv4 of one digit":     without(digIPv4, after(1, '.')),
		"street of five digits": without(digStreet, func(s string, p int) bool { return digitRun(s, p, 5) }),
		"rue after a dash":      without(digRue, after(2, '-')),
		"card of 13 digits":     without(digCard, func(s string, p int) bool { return digitRun(s, p, 13) }),
		"card after a space":    without(digCard, after(4, ' ')),
		"street after a \\x1c":  without(digStreet, func(s string, p int) bool { return byteAt(s, p+1) == '\x1c' || byteAt(s, p+2) == '\x1c' }),
		"ssn":                   without(digSSN, after(3, '-')),
		"phone sampled at 10":   without(scrPhone, func(s string, p int) bool { return !isDigit(byteAt(s, p+10)) }),
		"phone and a dot":       without(scrPhone, after(3, '.')),
		"phone and a \\x1c":     without(scrPhone, func(s string, p int) bool { return byteAt(s, p+3) == '\x1c' || byteAt(s, p+1) == '\x1c' }),
		"nino, two digits":      without(capNINO, func(s string, p int) bool { return digitRun(s, p+2, 2) }),
		"nino with a space":     without(capNINO, func(s string, p int) bool { return byteAt(s, p+2) == ' ' }),
		"iban":                  without(capIBAN, func(s string, p int) bool { return isDigit(byteAt(s, p+2)) }),
		"health id":             without(capHealthID, func(s string, p int) bool { return isDigit(byteAt(s, p+4)) }),
		"health id after NAM":   without(capHealthSpaced, func(s string, p int) bool { return byteAt(s, p+3) == ' ' }),
		"health id and a dash":  without(capHealthSpaced, func(s string, p int) bool { return byteAt(s, p+4) == '-' }),
	}
	for name, w := range wrong {
		if text, _, _, _ := screenViolation(w, texts); text == "" {
			t.Errorf("%s: a deliberately wrong screen passes the test", name)
		}
	}
}

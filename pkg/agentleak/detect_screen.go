package agentleak

import (
	"math/bits"
	"strings"
)

// The digit screen: the six rules that start at a digit at a word start
// (SSN, SIN, card, IPv4, the two address patterns) want, right after the
// start, a run of digits of a length of their own followed by a byte of
// their own (three digits and a dash, one to five digits and a space...).
// Most digit starts, a date or a number in prose, suit none of them. The
// run and the byte after it are read once per start, and each rule is
// tried only at the starts whose run and byte it allows, instead of every
// rule's loop visiting every start and calling its necessary check there.
// The screen is necessary, never sufficient: the rule's check and matcher
// still run at the starts it lets through. detect_screen_test.go holds it
// to the expressions.

// Slots of the digit screen (rule.digit); 0 is no slot.
const (
	digSSN = 1 + iota
	digSIN
	digCard
	digIPv4
	digStreet
	digRue
	digSlots
)

// digAll lets every screened rule try the start.
const digAll = 1<<digSlots - 2

// digitSlot is the screen's slot of a rule that starts at digits, or 0.
func digitSlot(r *rule) int8 {
	if r.starts != startDigit || len(r.triggers) > 0 {
		return 0
	}
	switch {
	case r.dt == "ssn":
		return digSSN
	case r.dt == "sin":
		return digSIN
	case r.dt == "credit_card":
		return digCard
	case r.dt == "ip_address":
		return digIPv4
	case r.key == "address" && strings.Contains(r.re.src, "Street"):
		return digStreet
	case r.key == "address":
		return digRue
	}
	return 0
}

// digitScreen is the set of slots (bit k for slot k) whose rule may match
// at p, a digit start: the ASCII digits there and the byte after them. A
// byte above 0x7f at either (a Unicode digit or space) lets every rule
// through.
func digitScreen(t string, p int) uint8 {
	i := p
	for i < len(t) && isDigit(t[i]) && i-p < 13 {
		i++
	}
	n := i - p
	if n == 13 {
		return 1 << digCard // longer than any other rule's number
	}
	c := byteAt(t, i) // 0 at the end of the text
	if n == 0 || c >= 0x80 {
		return digAll
	}
	var set uint8
	switch {
	case c == '-':
		if n == 3 {
			set |= 1<<digSSN | 1<<digSIN
		}
		set |= 1 << digCard
		if n <= 5 && rueSecond(t, i+1) {
			set |= 1 << digRue
		}
	case c == '.':
		if n <= 3 {
			set |= 1 << digIPv4
		}
	case keySpace(c):
		if c == ' ' {
			set |= 1 << digCard
			if n == 3 {
				set |= 1 << digSIN
			}
		}
		if n <= 5 {
			set |= 1<<digStreet | 1<<digRue
		}
	}
	return set
}

// rueSecond: the French address pattern's second house number after a
// dash at i, \d{1,4}, and the space that must follow it.
func rueSecond(t string, i int) bool {
	k := 0
	for i+k < len(t) && isDigit(t[i+k]) && k < 5 {
		k++
	}
	c := byteAt(t, i+k)
	return c >= 0x80 || k >= 1 && k <= 4 && keySpace(c)
}

// screenDigits files each digit start in the lists of the screened rules
// it lets through.
func (st *ruleState) screenDigits(t string) {
	for k := range st.dig {
		st.dig[k] = st.dig[k][:0]
	}
	for _, p := range st.cls[startDigit] {
		set := digitScreen(t, p)
		for set != 0 {
			k := bits.TrailingZeros8(set)
			set &= set - 1
			st.dig[k] = append(st.dig[k], p)
		}
	}
}

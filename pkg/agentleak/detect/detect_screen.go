package detect

import "math/bits"

// Screens of the start classes. The digit screen: the six rules that
// start at a digit at a word start (SSN, SIN, card, IPv4, the two address
// patterns) want, right after the start, a run of digits of a length of
// their own followed by a byte of their own (three digits and a dash, one
// to five digits and a space...). Most digit starts, a date or a number in
// prose, suit none of them. The run and the byte after it are read once per
// start, and each rule is tried only at the starts whose run and byte it
// allows, instead of every rule's loop visiting every start and calling its
// necessary check there. The capital screen does the same for the four
// rules that start at two capitals (IBAN, NINO, the two health
// identifiers) with the bytes after them, and the phone screen for the
// phone rule with the two bytes its check samples first. A screen is
// necessary, never sufficient: the rule's check and Matcher still run at
// the starts it lets through. detect_screen_test.go holds each to the
// expressions.

// Slots of the screens (rule.screen); 0 is no slot.
const (
	digSSN = 1 + iota
	digSIN
	digCard
	digIPv4
	digStreet
	digRue
	scrPhone
	capIBAN
	capNINO
	capHealthID
	capHealthSpaced
	scrSlots
)

// screenClass is the start class a slot's screen sorts.
func screenClass(slot int8) byte {
	switch {
	case slot == scrPhone:
		return startPhone
	case slot >= capIBAN:
		return startUpper
	}
	return startDigit
}

// screenDigits files the digit starts in the lists of the slots whose
// rule may match there, from the ASCII digits at the start and the byte
// after them. A byte above 0x7f at either (a Unicode digit or space) lets
// every rule through.
func (st *ruleState) screenDigits(t string, starts []int) {
	scr := &st.scr
	for k := digSSN; k <= digRue; k++ {
		scr[k] = scr[k][:0]
	}
	for _, p := range starts {
		// The digits at p and the byte after them (0 at the end of the
		// text), eight bytes at a time where there are eight.
		n, c := -1, byte(0)
		if p+8 <= len(t) {
			v := load64(t, p)
			if m := notDigit(v); m != 0 {
				n = bits.TrailingZeros64(m) >> 3
				c = byte(v >> (8 * n))
			}
		}
		if n < 0 {
			i := p
			for i < len(t) && isDigit(t[i]) && i-p < 13 {
				i++
			}
			n = i - p
			c = byteAt(t, i)
		}
		i := p + n
		if n == 13 {
			// Longer than any other rule's number.
			scr[digCard] = append(scr[digCard], p)
			continue
		}
		if n != 0 && !digitAfter[c] {
			continue // most numbers: no case below takes the byte after them
		}
		switch {
		case n == 0 || c >= 0x80:
			for k := digSSN; k <= digRue; k++ {
				scr[k] = append(scr[k], p)
			}
		case c == '-':
			if n == 3 {
				scr[digSSN] = append(scr[digSSN], p)
				scr[digSIN] = append(scr[digSIN], p)
			}
			if cardSpan(t, p) {
				scr[digCard] = append(scr[digCard], p)
			}
			if n <= 5 && rueSecond(t, i+1) {
				scr[digRue] = append(scr[digRue], p)
			}
		case c == '.':
			if n <= 3 {
				scr[digIPv4] = append(scr[digIPv4], p)
			}
		case keySpace(c):
			if c == ' ' {
				if n == 3 {
					scr[digSIN] = append(scr[digSIN], p)
				}
				if cardSpan(t, p) {
					scr[digCard] = append(scr[digCard], p)
				}
			}
			if n <= 5 {
				scr[digStreet] = append(scr[digStreet], p)
				if rueAfterSpace(t, i+1) {
					scr[digRue] = append(scr[digRue], p)
				}
			}
		}
	}
}

// digitAfter marks the bytes after a number that screenDigits' cases
// take: a dash, a dot, a space and a byte above 0x7f.
var digitAfter = func() (set [256]bool) {
	for c := 0; c < 256; c++ {
		b := byte(c)
		set[c] = b == '-' || b == '.' || keySpace(b) || b >= 0x80
	}
	return set
}()

// cardSpan is preCard's first test: a card match spans 13 bytes or more,
// each a digit, a space or a dash (or part of a Unicode digit); three of
// them are sampled. (A date or a number in prose fails it.)
func cardSpan(t string, p int) bool {
	return p+12 < len(t) && cardByte[t[p+12]] && cardByte[t[p+8]] && cardByte[t[p+4]]
}

// notDigit has the high bit set in every byte of v that is not 0-9 (as
// notLower for a-z).
func notDigit(v uint64) uint64 {
	x := v &^ swarHigh
	ge := x + (0x80-'0')*swarLow   // high bit: x >= '0'
	gt := x + (0x80-'9'-1)*swarLow // high bit: x > '9'
	return (^ge | gt | v) & swarHigh
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

// rueAfterSpace is preRue's test after a house number and a space before
// i: more spaces, a second number, or two letters that can begin a French
// street word (a byte above 0x7f lets it through). Most numbers in prose
// fail it.
func rueAfterSpace(t string, i int) bool {
	a, b := byteAt(t, i), byteAt(t, i+1)
	if a >= 0x80 || b >= 0x80 || keySpace(a) || isDigit(a) {
		return true
	}
	return frenchStreet[twoLetters(a, b)]
}

// screenPhones files the phone starts where prePhone's first tests hold:
// a phone match spans 12 bytes or more, all digits, separators, '+',
// parentheses or parts of Unicode characters (two of them are sampled),
// and the run of at most six digits at p (after a '+') ends at a
// separator or '(' (a number in prose or JSON ends elsewhere).
func (st *ruleState) screenPhones(t string, starts []int) {
	st.scr[scrPhone] = st.scr[scrPhone][:0]
	for _, p := range starts {
		if p+11 >= len(t) || !phoneByte[t[p+11]] || !phoneByte[t[p+6]] {
			continue
		}
		s := p
		if t[s] == '+' {
			s++
		}
		e := s
		for e < s+7 && isDigit(t[e]) {
			e++
		}
		switch c := t[e]; {
		case e == s:
			if c != '(' && c < 0x80 {
				continue
			}
		case e == s+7:
			continue
		case c != '(' && c != '-' && c != '.' && c < 0x80 && !keySpace(c):
			continue
		}
		st.scr[scrPhone] = append(st.scr[scrPhone], p)
	}
}

// screenCapitals files the starts of two capitals in the lists of the
// slots whose rule may match there, from the bytes after them: two digits
// for an IBAN, two digits or a space and a digit for a NINO, two more
// capitals and then a digit, or a space or a dash, for a health
// identifier (or NAM and a space). A byte above 0x7f where a digit or a
// space is wanted lets the rule through.
func (st *ruleState) screenCapitals(t string, starts []int) {
	scr := &st.scr
	for k := capIBAN; k <= capHealthSpaced; k++ {
		scr[k] = scr[k][:0]
	}
	for _, p := range starts {
		c2 := byteAt(t, p+2)
		if c2 >= 0x80 {
			for k := capIBAN; k <= capHealthSpaced; k++ {
				scr[k] = append(scr[k], p)
			}
			continue
		}
		c3 := byteAt(t, p+3)
		d3 := isDigit(c3) || c3 >= 0x80
		spaced := false
		switch {
		case isDigit(c2):
			if d3 {
				scr[capIBAN] = append(scr[capIBAN], p)
				scr[capNINO] = append(scr[capNINO], p)
			}
		case keySpace(c2):
			if d3 {
				scr[capNINO] = append(scr[capNINO], p)
			}
		case isUpper(c2) && isUpper(c3):
			c4 := byteAt(t, p+4)
			if isDigit(c4) || c4 >= 0x80 {
				scr[capHealthID] = append(scr[capHealthID], p)
			}
			spaced = c4 == '-' || keySpace(c4) || c4 >= 0x80
		}
		if spaced || c2 == 'M' && t[p] == 'N' && t[p+1] == 'A' {
			scr[capHealthSpaced] = append(scr[capHealthSpaced], p)
		}
	}
}

// screenStarts sorts the starts of the classes that have screened rules
// and starts in this text, and notes the rules that got any. (The lists
// of a class without starts are left as they were: its rules are not
// run.)
func (st *ruleState) screenStarts(t string) {
	if st.screened[startDigit] && len(st.cls[startDigit]) > 0 {
		st.screenDigits(t, st.cls[startDigit])
		st.noteSlots(digSSN, digRue)
	}
	if st.screened[startPhone] && len(st.cls[startPhone]) > 0 {
		st.screenPhones(t, st.cls[startPhone])
		st.noteSlots(scrPhone, scrPhone)
	}
	if st.screened[startUpper] && len(st.cls[startUpper]) > 0 {
		st.screenCapitals(t, st.cls[startUpper])
		st.noteSlots(capIBAN, capHealthSpaced)
	}
}

// noteSlots marks in scrRules the rules of slots from to to whose lists
// the screen just filled: the rules runRules runs.
func (st *ruleState) noteSlots(from, to int) {
	for k := from; k <= to; k++ {
		if i := st.slotRule[k]; i >= 0 && len(st.scr[k]) > 0 {
			st.scrRules[i>>6] |= 1 << (i & 63)
		}
	}
}

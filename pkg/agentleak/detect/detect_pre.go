package detect

import (
	"math/bits"
	"strings"
)

// Necessary checks that are exact on ASCII text: where one says no, the
// rule's regular expression cannot match at that start, so the expression
// runs (almost) only where it will match. A byte above 0x7f where the check
// looks (a Unicode digit, space or letter the expression may accept) makes
// the check say yes and leaves the decision to the expression. The
// differential test (detect_diff_test.go) holds every rule to its plain
// expression.

// Byte classes of the checks. unknown: a byte above 0x7f.

// isSpaceASCII: an ASCII byte the rules' \s may accept. pyClasses widens
// \s with \x1c-\x1f (Python's spaces), so a check that took only the six
// usual ones would refuse "555\x1c123\x1c4567", which the expression
// matches; \v, which Go's \s lacks, is accepted in excess.
func isSpaceASCII(c byte) bool { return keySpace(c) }

func isLetter(c byte) bool { return (c|0x20)-'a' < 26 }

// letterEnd returns the end of the run of ASCII letters at i, eight bytes
// at a time where there are eight: the pre-checks that read a keyword or
// a word whole spend most of their time there.
func letterEnd(t string, i int) int {
	for i+8 <= len(t) {
		// Setting 0x20 in each byte makes the capitals lower case and no
		// other byte a-z (a byte above 0x7f keeps its high bit).
		if m := notLower(load64(t, i) | 0x20*swarLow); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
		i += 8
	}
	for i < len(t) && isLetter(t[i]) {
		i++
	}
	return i
}

func isASCIIWord(c byte) bool { return c < 0x80 && isWordByte(c) }

// digitsAt counts the ASCII digits at i (at most max); hi reports that the
// run stops at a byte above 0x7f.
func digitsAt(t string, i, max int) (n int, hi bool) {
	for n < max && i+n < len(t) && isDigit(t[i+n]) {
		n++
	}
	return n, i+n < len(t) && t[i+n] >= 0x80
}

// tailFree: after a match ending at e, Go's ASCII \b can hold (e is the end,
// or the next byte is not an ASCII word character).
func tailFree(t string, e int) bool { return e >= len(t) || !isASCIIWord(t[e]) }

// digitsExact: exactly n digits at i (or a byte above 0x7f among them).
func digitsExact(t string, i, n int) (ok, unknown bool) {
	k, hi := digitsAt(t, i, n)
	if k == n {
		return true, false
	}
	return false, hi
}

// headFails: t[p:p+4] is ASCII and its fourth byte is neither a nor b:
// the SSN and SIN patterns, three digits and a separator, cannot match. It
// is the whole check at most digit starts ("2022-01-01", "100.0").
func headFails(t string, p int, a, b byte) bool {
	if p+4 > len(t) {
		return false
	}
	c := t[p+3]
	return c != a && c != b && (t[p]|t[p+1]|t[p+2]|c) < 0x80
}

// preSSN: ddd-dd-dddd (the trailing boundary is checked after the match).
func preSSN(t string, p int) bool {
	if headFails(t, p, '-', '-') {
		return false
	}
	i := p
	for _, n := range [3]int{3, 2, 4} {
		ok, unk := digitsExact(t, i, n)
		if unk {
			return true
		}
		if !ok {
			return false
		}
		i += n
		if n != 4 {
			if c := byteAt(t, i); c != '-' {
				return false
			}
			i++
		}
	}
	return true
}

// preSIN: ddd[- ]ddd[- ]ddd.
func preSIN(t string, p int) bool {
	if headFails(t, p, '-', ' ') {
		return false
	}
	i := p
	for g := 0; g < 3; g++ {
		ok, unk := digitsExact(t, i, 3)
		if unk {
			return true
		}
		if !ok {
			return false
		}
		i += 3
		if g < 2 {
			if c := byteAt(t, i); c != '-' && c != ' ' {
				return false
			}
			i++
		}
	}
	return true
}

// preCard: 13 or more digits, each followed by at most one space or dash.
func preCard(t string, p int) bool {
	// A match spans 13 bytes or more, each a digit, a space or a dash (or
	// part of a Unicode digit): three samples of them reject most starts,
	// a date or a number in prose, without reading the digits one by one.
	if p+12 >= len(t) || !cardByte[t[p+12]] || !cardByte[t[p+8]] || !cardByte[t[p+4]] {
		return false
	}
	n := 0
	for i := p; i < len(t); {
		c := t[i]
		if c >= 0x80 {
			return true
		}
		if !isDigit(c) {
			break
		}
		n++
		if n >= 13 {
			return true
		}
		i++
		if i < len(t) && (t[i] == ' ' || t[i] == '-') {
			i++
		}
	}
	return false
}

// phoneByte marks the bytes a phone match is made of.
var phoneByte = func() (set [256]bool) {
	for c := 0; c < 256; c++ {
		b := byte(c)
		set[c] = isDigit(b) || isSpaceASCII(b) || b == '+' || b == '(' || b == ')' || b == '-' || b == '.' || b >= 0x80
	}
	return set
}()

// cardByte marks the bytes a credit card match is made of: digits, space,
// dash, and the bytes of Unicode digits.
var cardByte = func() (set [256]bool) {
	for c := 0; c < 256; c++ {
		set[c] = isDigit(byte(c)) || c == ' ' || c == '-' || c >= 0x80
	}
	return set
}()

// prePhone: the phone pattern at p on ASCII text. The optional prefix is
// '+' (when p is one), one to three digits and an optional separator; the
// core is (ddd) or ddd, a separator, ddd, a separator, dddd. So the digit
// run at p (after the '+') is at most six long and ends at a separator or
// '(', and where it ends says where the core begins: at p (three digits,
// no prefix), three digits before its end (a prefix of n-3 digits and no
// separator), at its end ('(' after a prefix) or after the separator (a
// prefix of the whole run). Most starts, a number in prose, fail at the
// byte after their digits.
func prePhone(t string, p int) bool {
	// A match spans 12 bytes or more, all of them digits, separators,
	// '+', parentheses or parts of Unicode characters: two samples reject
	// most starts before the digits are read.
	if p+11 >= len(t) || !phoneByte[t[p+11]] || !phoneByte[t[p+6]] {
		return false
	}
	c := byteAt(t, p)
	if c == '(' {
		return phoneCore(t, p)
	}
	s := p
	if c == '+' {
		s++
	}
	e := s
	for e < len(t) && isDigit(t[e]) {
		if e-s == 6 {
			return false
		}
		e++
	}
	n := e - s
	if e < len(t) && t[e] >= 0x80 {
		return true // Unicode digits or spaces: the expression decides
	}
	if n == 0 {
		return false
	}
	c = byteAt(t, e)
	switch {
	case c == '(':
		return n <= 3 && phoneCore(t, e)
	case c != '-' && c != '.' && !isSpaceASCII(c):
		return false
	case n > 3:
		return phoneCore(t, e-3)
	}
	return n == 3 && s == p && phoneCore(t, p) || phoneCore(t, e+1)
}

func phoneCore(t string, q int) bool {
	i := q
	if byteAt(t, i) == '(' {
		ok, unk := digitsExact(t, i+1, 3)
		if unk {
			return true
		}
		if !ok || byteAt(t, i+4) != ')' {
			return false
		}
		i += 5
	} else {
		ok, unk := digitsExact(t, i, 3)
		if unk {
			return true
		}
		if !ok {
			return false
		}
		i += 3
	}
	for _, n := range [2]int{3, 4} {
		c := byteAt(t, i)
		if c >= 0x80 {
			return true
		}
		if c != '-' && c != '.' && !isSpaceASCII(c) {
			return false
		}
		ok, unk := digitsExact(t, i+1, n)
		if unk {
			return true
		}
		if !ok {
			return false
		}
		i += 1 + n
	}
	return true
}

// octet: the IPv4 pattern's octet (25[0-5], 2[0-4]d, 1?d?d) as the whole
// digit run s.
func octet(s string) bool {
	switch len(s) {
	case 1, 2:
		return true
	case 3:
		return s[0] == '1' || s[0] == '2' && (s[1] < '5' || s[1] == '5' && s[2] <= '5')
	}
	return false
}

// preIPv4: four octets joined by dots, then no ASCII word character. An
// octet must be its whole digit run: a shorter one would be followed by a
// digit where the pattern wants a dot or a boundary.
func preIPv4(t string, p int) bool {
	// A match spans 7 bytes or more ("1.1.1.1"), digits and dots (or parts
	// of Unicode digits); most starts fail on the first octet: a dot within
	// its first four bytes.
	if p+6 >= len(t) || !isDigit(t[p+6]) && t[p+6] != '.' && t[p+6] < 0x80 {
		return false
	}
	if t[p] < 0x80 {
		for k := 1; ; k++ {
			c := t[p+k]
			if c == '.' || c >= 0x80 {
				break
			}
			if !isDigit(c) || k == 3 {
				return false
			}
		}
	}
	i := p
	for g := 0; g < 4; g++ {
		n, hi := digitsAt(t, i, 4)
		if hi {
			return true
		}
		if !octet(t[i : i+n]) {
			return false
		}
		i += n
		if g < 3 {
			if byteAt(t, i) != '.' {
				return false
			}
			i++
		}
	}
	return tailFree(t, i)
}

func hexRun(t string, i int) int {
	k := 0
	for k < 5 && i+k < len(t) && (isDigit(t[i+k]) || (t[i+k]|0x20)-'a' < 6) {
		k++
	}
	return k
}

// preIPv6: three or more groups `h:` then a hex digit, or one or more and
// `::` then a hex digit.
func preIPv6(t string, p int) bool {
	i, g := p, 0
	for g < 8 {
		k := hexRun(t, i)
		if k < 1 || k > 4 || byteAt(t, i+k) != ':' {
			break
		}
		g++
		i += k + 1
	}
	if g >= 4 || g >= 3 && hexRun(t, i) >= 1 {
		return true
	}
	return g >= 1 && byteAt(t, i) == ':' && hexRun(t, i+1) >= 1
}

// ninoFirst and ninoSecond are the letters a NINO's prefix may use.
var ninoFirst, ninoSecond = byteSet("ABCEGHJKLMNOPRSTWXYZ"), byteSet("ABCEGHJKLMNPRSTWXYZ")

func byteSet(s string) (set [256]bool) {
	for i := 0; i < len(s); i++ {
		set[s[i]] = true
	}
	return set
}

// optSpace skips one optional whitespace character; unknown on a byte above 0x7f.
func optSpace(t string, i int) (int, bool) {
	c := byteAt(t, i)
	if c >= 0x80 {
		return i, true
	}
	if isSpaceASCII(c) {
		return i + 1, false
	}
	return i, false
}

// preNINO: the two prefix letters, three pairs of digits and a suffix letter
// A-D, each part after an optional space.
func preNINO(t string, p int) bool {
	if !ninoFirst[byteAt(t, p)] || !ninoSecond[byteAt(t, p+1)] {
		return false
	}
	i := p + 2
	for g := 0; g < 3; g++ {
		var unk bool
		if i, unk = optSpace(t, i); unk {
			return true
		}
		ok, unk := digitsExact(t, i, 2)
		if unk {
			return true
		}
		if !ok {
			return false
		}
		i += 2
	}
	i, unk := optSpace(t, i)
	if unk {
		return true
	}
	c := byteAt(t, i)
	return c >= 'A' && c <= 'D' && tailFree(t, i+1)
}

// preIBAN: two capitals, two digits, 11 to 30 capitals or digits, then no
// ASCII word character.
func preIBAN(t string, p int) bool {
	if !isUpper(byteAt(t, p)) || !isUpper(byteAt(t, p+1)) {
		return false
	}
	ok, unk := digitsExact(t, p+2, 2)
	if unk {
		return true
	}
	if !ok {
		return false
	}
	n := alnumUpperRun(t, p+4)
	return n >= 11 && n <= 30 && tailFree(t, p+4+n)
}

// alnumUpperRun is the length of the run of ASCII capitals and digits at
// i (an IBAN's body), eight bytes at a time where there are eight, then
// through a table.
func alnumUpperRun(t string, i int) int {
	n := i
	for n+8 <= len(t) {
		v := load64(t, n)
		if m := notDigit(v) & notUpper(v); m != 0 {
			return n + bits.TrailingZeros64(m)>>3 - i
		}
		n += 8
	}
	for n < len(t) && alnumUpper[t[n]] {
		n++
	}
	return n - i
}

// notUpper has the high bit set in every byte of v that is not A-Z (as
// notLower for a-z).
func notUpper(v uint64) uint64 {
	x := v &^ swarHigh
	ge := x + (0x80-'A')*swarLow   // high bit: x >= 'A'
	gt := x + (0x80-'Z'-1)*swarLow // high bit: x > 'Z'
	return (^ge | gt | v) & swarHigh
}

var alnumUpper = func() (set [256]bool) {
	for c := 0; c < 0x80; c++ {
		set[c] = isAlnumUpper(byte(c))
	}
	return set
}()

// preHealthID: four capitals and eight digits, then no ASCII word character.
func preHealthID(t string, p int) bool {
	if asciiRun(t, p, isUpper) != 4 {
		return false
	}
	ok, unk := digitsExact(t, p+4, 8)
	if unk {
		return true
	}
	return ok && tailFree(t, p+12)
}

// preHealthSpaced: (NAM and spaces) four capitals, then a space or dash and
// a digit.
func preHealthSpaced(t string, p int) bool {
	four := func(i int) bool {
		if asciiRun(t, i, isUpper) < 4 {
			return false
		}
		c, d := byteAt(t, i+4), byteAt(t, i+5)
		return (c == '-' || isSpaceOrHigh(c)) && (isDigit(d) || d >= 0x80)
	}
	if four(p) {
		return true
	}
	if strings.HasPrefix(t[p:], "NAM") {
		i := p + 3
		for i < len(t) && isSpaceOrHigh(t[i]) {
			if t[i] >= 0x80 {
				return true
			}
			i++
		}
		return i > p+3 && four(i)
	}
	return false
}

// streetAt: a street word (any case) at i, then no ASCII word character.
// The word must be the whole run of letters: a longer run puts a letter
// where the pattern's \b wants none.
func streetAt(t string, i int) bool {
	if c := byteAt(t, i); c < 0x80 && !streetFirst[c] {
		return false // most words: no street word begins with their letter
	}
	n := letterEnd(t, i) - i
	if i+n < len(t) && t[i+n] >= 0x80 {
		return true
	}
	if n < 2 || n > 9 || !tailFree(t, i+n) {
		return false
	}
	var w [9]byte
	for k := 0; k < n; k++ {
		w[k] = t[i+k] | 0x20
	}
	switch string(w[:n]) {
	case "street", "st", "avenue", "ave", "road", "rd", "boulevard", "blvd", "drive", "dr", "lane", "ln", "court", "ct", "way", "place", "pl":
		return true
	}
	return false
}

// streetFirst marks the first letters (any case) of the street words.
var streetFirst = func() (set [128]bool) {
	for _, c := range "sarbdlcwp" {
		set[c], set[c-0x20] = true, true
	}
	return set
}()

// preStreet: a house number, spaces, one to three words of two or more
// letters or dots each followed by one space, then a street word.
func preStreet(t string, p int) bool {
	n, hi := digitsAt(t, p, 6)
	if hi {
		return true
	}
	if n < 1 || n > 5 {
		return false
	}
	i := p + n
	if c := byteAt(t, i); c < 0x80 && !isSpaceASCII(c) {
		return false // most starts: a number in prose or a date
	}
	sp := 0
	for i < len(t) && (isSpaceASCII(t[i]) || t[i] >= 0x80) {
		if t[i] >= 0x80 {
			return true
		}
		i++
		sp++
	}
	if sp == 0 {
		return false
	}
	for w := 0; w < 3; w++ {
		k := 0
		for i+k < len(t) && (isLetter(t[i+k]) || t[i+k] == '.') {
			k++
		}
		if i+k < len(t) && t[i+k] >= 0x80 {
			return true
		}
		if k < 2 || !isLetter(t[i]) {
			return false
		}
		c := byteAt(t, i+k)
		if !isSpaceASCII(c) {
			return false
		}
		i += k + 1
		if streetAt(t, i) {
			return true
		}
	}
	return false
}

// frenchStreet marks the first two letters (any case) of the French street words.
var frenchStreet = func() (set [26 * 26]bool) {
	for _, w := range []string{"ru", "av", "bo", "bd", "ch", "co", "pl", "al", "im", "mo", "ra", "cr", "pr", "te", "ca"} {
		set[twoLetters(w[0], w[1])] = true
	}
	return set
}()

// twoLetters indexes two ASCII letters (any case) in 26*26; a pair with
// another byte gives 0, the index of "aa", which no street word begins with.
func twoLetters(a, b byte) int {
	x, y := int((a|0x20)-'a'), int((b|0x20)-'a')
	if x >= 26 || y >= 26 {
		return 0 // "aa": no street word
	}
	return x*26 + y
}

// preRue: a house number (and a second one after a dash or space), spaces,
// then a word that can begin a French street word.
func preRue(t string, p int) bool {
	n, hi := digitsAt(t, p, 6)
	if hi {
		return true
	}
	if n < 1 || n > 5 {
		return false
	}
	if c := byteAt(t, p+n); c < 0x80 && c != '-' && !isSpaceASCII(c) {
		return false // most starts: a number in prose or a date
	}
	try := func(i int) bool {
		sp := 0
		for i < len(t) && (isSpaceASCII(t[i]) || t[i] >= 0x80) {
			if t[i] >= 0x80 {
				return true
			}
			i++
			sp++
		}
		if sp == 0 || i+1 >= len(t) {
			return false
		}
		if t[i] >= 0x80 || t[i+1] >= 0x80 {
			return true
		}
		return frenchStreet[twoLetters(t[i], t[i+1])]
	}
	i := p + n
	if try(i) {
		return true
	}
	if c := byteAt(t, i); c == '-' || isSpaceOrHigh(c) {
		if c >= 0x80 {
			return true
		}
		if k, hi := digitsAt(t, i+1, 5); hi || k >= 1 && k <= 4 && try(i+1+k) {
			return true
		}
	}
	return false
}

// preName: the person-name pattern on ASCII text: a keyword (the whole
// run of letters, as \b follows it), one or more of `"' \s:` (an
// underscore first would break the \b), a capital and lower-case letters,
// a space or dash, a capital and a lower-case letter. The name's third
// word is left to the expression. Most candidates fail on the keyword
// ("Names:", "clients.", "msg_") or on what follows it (a keyword in
// prose: "the customer asked"), which is read first: it costs less than
// the keyword's compare. It holds exactly when the keyword and the rest
// (preNameRest) both hold, whatever order they are read in.
func preName(t string, p int) bool {
	i := letterEnd(t, p)
	if i < len(t) && t[i] >= 0x80 {
		return true
	}
	return preNameRest(t, i) && nameKeyword(t[p:i])
}

// preNameRest is preName after the keyword, t[:i]: the separators, a
// capital and lower-case letters, a space or dash, a capital and a
// lower-case letter (true at a non-ASCII character among them).
func preNameRest(t string, i int) bool {
	s := i
	for i < len(t) {
		c := t[i]
		if c >= 0x80 {
			return true
		}
		if c != '"' && c != '\'' && c != ':' && c != '_' && !isSpaceASCII(c) {
			break
		}
		i++
	}
	if i == s || t[s] == '_' {
		return false
	}
	// A capital, lower-case letters, a space or a dash.
	if c := byteAt(t, i); c >= 0x80 || !isUpper(c) {
		return c >= 0x80
	}
	i++
	s = i
	for i < len(t) && isLower(t[i]) {
		i++
	}
	c := byteAt(t, i)
	if c >= 0x80 {
		return true
	}
	if i == s || c != ' ' && c != '-' {
		return false
	}
	c, d := byteAt(t, i+1), byteAt(t, i+2)
	if c >= 0x80 || d >= 0x80 {
		return true
	}
	return isUpper(c) && isLower(d)
}

// nameKeyword: w is one of the person-name pattern's keywords, in any case.
func nameKeyword(w string) bool {
	if len(w) < 2 || len(w) > 8 {
		return false
	}
	var b [8]byte
	for k := 0; k < len(w); k++ {
		b[k] = w[k] | 0x20
	}
	switch string(b[:len(w)]) {
	case "patient", "client", "customer", "employee", "name", "mr", "mrs", "ms", "dr", "prof":
		return true
	}
	return false
}

// preClientID: a keyword's letters, an optional - or _, three digits.
func preClientID(t string, p int) bool {
	i := letterEnd(t, p)
	if c := byteAt(t, i); c == '-' || c == '_' {
		i++
	}
	n, hi := digitsAt(t, i, 3)
	return n == 3 || hi
}

// matchEmail is the email pattern [A-Za-z0-9_.+-]+@[A-Za-z0-9-]+\.[A-Za-z0-9-.]+
// anchored at p. Each part ends where its class does (the local part cannot
// hold the @, the first domain label cannot hold the dot), so there is no
// other way to match.
func matchEmail(t string, p int, m []int) int {
	i := p
	for i < len(t) && emailByte[t[i]]&emailLocal != 0 {
		i++
	}
	if i == p || byteAt(t, i) != '@' {
		return 0
	}
	i++
	s := i
	for i < len(t) && emailByte[t[i]]&emailLabel != 0 {
		i++
	}
	if i == s || byteAt(t, i) != '.' {
		return 0
	}
	i++
	s = i
	for i < len(t) && emailByte[t[i]]&emailTail != 0 {
		i++
	}
	if i == s {
		return 0
	}
	m[0], m[1] = p, i
	return 1
}

// emailByte holds, per byte, the email pattern's classes it belongs to:
// the local part [A-Za-z0-9_.+-], the first domain label [A-Za-z0-9-] and
// the rest [A-Za-z0-9-.].
var emailByte = func() (set [256]uint8) {
	for c := 0; c < 0x80; c++ {
		b := byte(c)
		if isAlnumASCII(b) || b == '-' {
			set[c] = emailLocal | emailLabel | emailTail
		}
		switch b {
		case '_', '+':
			set[c] = emailLocal
		case '.':
			set[c] = emailLocal | emailTail
		}
	}
	return set
}()

const (
	emailLocal = 1 << iota
	emailLabel
	emailTail
)

func isAlnumASCII(c byte) bool { return isDigit(c) || isLetter(c) }

// matchIBAN is the IBAN pattern on ASCII text: preIBAN's shape, the match
// being the whole run of capitals and digits.
func matchIBAN(t string, p int, m []int) int {
	if byteAt(t, p+2) >= 0x80 || byteAt(t, p+3) >= 0x80 {
		return -1
	}
	if !preIBAN(t, p) {
		return 0
	}
	m[0], m[1] = p, p+4+alnumUpperRun(t, p+4)
	return 1
}

// Checks for rules found by their trigger words: the word must be the one
// that starts the pattern and be followed by what the pattern needs next.
// A candidate at a quote or a character before the word fails them, as it
// fails the pattern (which begins with \b and the word). Texts with a
// character that folds to an ASCII letter never reach them (runRules).

// foldPrefix: t[i:] begins with w (lower-case ASCII) in any ASCII case.
func foldPrefix(t string, i int, w string) bool {
	if i < 0 || len(t)-i < len(w) {
		return false
	}
	for k := 0; k < len(w); k++ {
		c := t[i+k]
		if c != w[k] && c|0x20 != w[k] {
			return false
		}
	}
	return true
}

// amountSepEnd skips the finance patterns' separators (`["'\s:=#-]*`) from i;
// ok is false at a byte above 0x7f, where the pattern's Unicode \s may go on.
func amountSepEnd(t string, i int) (end int, ok bool) {
	for i < len(t) {
		switch c := t[i]; {
		case c >= 0x80:
			return i, false
		case c == '"' || c == '\'' || c == ':' || c == '=' || c == '#' || c == '-' || keySpace(c):
			i++
		default:
			return i, true
		}
	}
	return i, true
}

// preCreditScore: "credit", spaces, "score", separators, a digit.
func preCreditScore(t string, p int) bool {
	if !foldPrefix(t, p, "credit") {
		return false
	}
	i := p + len("credit")
	for i < len(t) && keySpace(t[i]) {
		i++
	}
	if !foldPrefix(t, i, "score") {
		return byteAt(t, i) >= 0x80
	}
	i, ok := amountSepEnd(t, i+len("score"))
	return !ok || isDigit(byteAt(t, i))
}

// preAssign: a secret's key word (letters, `_`, `-`), spaces, then `:` or `=`.
func preAssign(t string, p int) bool {
	i := p
	for i < len(t) && ((t[i]|0x20)-'a' < 26 || t[i] == '_' || t[i] == '-') {
		i++
	}
	return i > p && keyColon(t, i)
}

// preMRN: "mrn", "medical record", or "health" with "id" after at most
// one space or underscore.
func preMRN(t string, p int) bool {
	switch {
	case foldPrefix(t, p, "mrn"), foldPrefix(t, p, "medical record"):
		return true
	case foldPrefix(t, p, "health"):
		i := p + len("health")
		if c := byteAt(t, i); c == '_' || c == ' ' {
			i++
		}
		return foldPrefix(t, i, "id")
	}
	return false
}

// dobWords are the keywords of the date-of-birth pattern.
var dobWords = []string{"dob", "d.o.b.", "date of birth", "born", "birth date", "birthdate"}

// preDOB: a date-of-birth keyword, colons and spaces, then a digit.
func preDOB(t string, p int) bool {
	for _, w := range dobWords {
		if !foldPrefix(t, p, w) {
			continue
		}
		i := p + len(w)
		for i < len(t) && (t[i] == ':' || keySpace(t[i])) {
			i++
		}
		if c := byteAt(t, i); isDigit(c) || c >= 0x80 {
			return true
		}
	}
	return false
}

// stemForms are the keys a key-name stem spells, lower case and without
// their separators: date[_ ]?of[_ ]?birth|\bdob\b|birth[_ ]?date gives
// dateofbirth, dob and birthdate. They are the hand Matcher's spellings
// (newKeyMatch) with the separators taken out.
func stemForms(stem string) map[string]bool {
	forms := map[string]bool{}
	strip := strings.NewReplacer("_", "", " ", "")
	for _, s := range newKeyMatch(stem).forms {
		forms[strip.Replace(s)] = true
	}
	return forms
}

// keyStemPre is a key-name rule's necessary check: keyPre's shape, the key
// being one of the stem's forms. The stem ends at \b and is followed by an
// optional quote, spaces and ':' or '=', so in a match the key is the
// whole run of letters joined by single spaces or underscores; "date" in
// date='2022-01-01' or "Name" in Name': 'Emma' is not the stem's.
func keyStemPre(forms map[string]bool) func(t string, p int) bool {
	k := &keyForms{}
	for f := range forms {
		k.longest = max(k.longest, len(f))
		k.list = append(k.list, f)
	}
	k.longest = min(k.longest, len(keyBuf{}))
	return k.pre
}

// keyForms are a stem's forms: a few short strings, which a loop compares
// faster than a map hashes. (A method, not a closure: the compiler inlines
// the byte tests into it.)
type keyForms struct {
	list    []string
	longest int
}

type keyBuf [32]byte

func (k *keyForms) pre(t string, p int) bool {
	i := p
	if c := byteAt(t, i); c == '"' || c == '\'' {
		i++
	}
	// The key's words are found first, the key spelled only when a colon
	// follows them: most trigger words in prose fail there.
	s0, n := i, 0
	for {
		s := i
		i = letterEnd(t, i)
		if n += i - s; n > k.longest {
			return false // longer than every form
		}
		if i < len(t) && t[i] >= 0x80 {
			return true // Unicode spaces or case folds: the expression decides
		}
		if i == s {
			return false
		}
		if c := byteAt(t, i); (c == ' ' || c == '_') && i+1 < len(t) {
			if d := t[i+1]; isLetter(d) {
				i++
				continue
			} else if d >= 0x80 {
				return true
			}
		}
		break
	}
	e := i
	if c := byteAt(t, i); c == '"' || c == '\'' {
		i++
	}
	if !keyColon(t, i) {
		return false
	}
	var key keyBuf
	n = 0
	for j := s0; j < e; j++ {
		if c := t[j]; isLetter(c) {
			key[n] = c | 0x20
			n++
		}
	}
	for _, f := range k.list {
		if string(key[:n]) == f {
			return true
		}
	}
	return false
}

// amountPre is the necessary check of a finance or salary rule: one of its
// keywords (lower case, any ASCII case in the text), the separators
// `["'\s:=#-]*` and the value, or first one of the words the pattern allows
// after the keyword and spaces (`(?:\s*(?:number|no|num|#))?`) and then
// the separators and the value. Separators hold no '$' or digit, so the
// value begins where they end.
func amountPre(keys, opts []string, value func(t string, i int) bool) func(t string, p int) bool {
	return func(t string, p int) bool {
		for _, k := range keys {
			e, ok := foldWordAt(t, p, k)
			if e < 0 {
				return true
			}
			if ok && amountTail(t, e, opts, value) {
				return true
			}
		}
		return false
	}
}

// amountTail: after a keyword ending at i, the separators and the value,
// or an optional word, the separators and the value.
func amountTail(t string, i int, opts []string, value func(t string, i int) bool) bool {
	j, ok := amountSepEnd(t, i)
	if !ok || value(t, j) {
		return true
	}
	for _, o := range opts {
		e, ok := foldWordAt(t, j, o)
		if e < 0 {
			return true
		}
		if ok {
			if k, ok := amountSepEnd(t, e); !ok || value(t, k) {
				return true
			}
		}
	}
	return false
}

// sixDigits: the account number pattern's value, [0-9]{6,} (ASCII digits).
func sixDigits(t string, i int) bool {
	n, _ := digitsAt(t, i, 6)
	return n == 6
}

// amountValue: the amount patterns' value, \$?[0-9][0-9,]{more,}.
func amountValue(more int) func(t string, i int) bool {
	return func(t string, i int) bool {
		if byteAt(t, i) == '$' {
			i++
		}
		if !isDigit(byteAt(t, i)) {
			return false
		}
		for k := 1; k <= more; k++ {
			if c := byteAt(t, i+k); !isDigit(c) && c != ',' {
				return false
			}
		}
		return true
	}
}

// The finance and salary rules' checks: their keywords and values.
var (
	preAccount = amountPre([]string{"account", "acct", "compte"}, []string{"number", "no", "num"}, sixDigits)
	preIncome  = amountPre([]string{"income", "revenue", "revenu", "salary income", "gross income"}, nil, amountValue(3))
	preLoan    = amountPre([]string{"loan", "mortgage", "prêt", "pret"}, []string{"amount", "montant"}, amountValue(3))
	preBalance = amountPre([]string{"balance", "solde"}, nil, amountValue(2))
	preSalary  = amountPre([]string{"salary", "salaire", "compensation", "base pay"}, nil, amountValue(3))
)

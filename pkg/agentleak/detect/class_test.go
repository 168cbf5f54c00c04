package detect

import (
	"fmt"
	"math/bits"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/lfcli/lf/pkg/internal/testfiles"
)

// refStarts is what the class pass files for one text: the start classes'
// positions and the rules' trigger positions.
type refStarts struct {
	cls      [startEmail + 1][]int
	cands    [][]int
	unsorted bool
}

// refFindStarts is the class pass as it was before the byte-kind table,
// the word-at-a-time loop and the prefix filter: byte by byte, the trie
// walked at every position a trigger word can begin with.
func refFindStarts(ps *PatternSet, t string) *refStarts {
	st := &refStarts{cands: make([][]int, len(ps.rules))}
	n := len(t)
	trie := ps.trie
	prevWord, prevDigit := false, false
	for i := 0; i < n; {
		c := t[i]
		if trie.first[c] && (i == 0 || !asciiWord[t[i-1]] || !asciiWord[c]) {
			for _, id := range trie.walk(t, i, nil) {
				st.addTrigger(ps, t, int(id), i)
			}
		}
		if c-'a' < 26 {
			if !prevWord {
				st.letterStart(t, i)
			}
			i++
			for i < n && t[i]-'a' < 26 {
				i++
			}
			prevWord, prevDigit = true, false
			continue
		}
		if c == ' ' {
			prevWord, prevDigit = false, false
			i++
			continue
		}
		if c < 0x80 {
			prevWord, prevDigit = st.asciiStart(t, i, prevWord, prevDigit)
			i++
			continue
		}
		r, w := utf8.DecodeRuneInString(t[i:])
		digit := unicode.IsDigit(r)
		if digit && !prevWord {
			st.cls[startDigit] = append(st.cls[startDigit], i)
		}
		if digit && !prevDigit {
			st.cls[startPhone] = append(st.cls[startPhone], i)
		}
		prevWord, prevDigit = isWordRune(r), digit
		i += w
	}
	for off := 0; ; {
		k := strings.IndexByte(t[off:], '@')
		if k < 0 {
			break
		}
		at := off + k
		off = at + 1
		s := at
		for s > 0 && (isWordByte(t[s-1]) && t[s-1] < 0x80 || t[s-1] == '.' || t[s-1] == '+' || t[s-1] == '-') {
			s--
		}
		if s < at {
			st.cls[startEmail] = append(st.cls[startEmail], s)
		}
	}
	return st
}

func (st *refStarts) addTrigger(ps *PatternSet, text string, id, p int) {
	for _, ri := range ps.trigRules[id] {
		if !ps.on[ri] {
			continue
		}
		c := st.cands[ri]
		n := len(c)
		if p > 0 && (text[p-1] == '"' || text[p-1] == '\'') {
			c = append(c, p-1)
		}
		if p > 0 && text[p-1] >= 0x80 {
			_, n := utf8.DecodeLastRuneInString(text[:p])
			c = append(c, p-n)
		}
		if ps.rules[ri].family != famKeyname || unicodeBound(text, p) {
			c = append(c, p)
		}
		if n > 0 && len(c) > n && c[n] < c[n-1] {
			st.unsorted = true
		}
		st.cands[ri] = c
	}
}

func (st *refStarts) asciiStart(t string, i int, prevWord, prevDigit bool) (word, digit bool) {
	c := t[i]
	digit = isDigit(c)
	word = digit || isUpper(c) || c == '_'
	if !prevWord && word {
		switch {
		case digit:
			st.cls[startDigit] = append(st.cls[startDigit], i)
			if refHexColon(t, i) {
				st.cls[startHex] = append(st.cls[startHex], i)
			}
		case c != '_':
			if isUpper(byteAt(t, i+1)) {
				st.cls[startUpper] = append(st.cls[startUpper], i)
			}
			st.letterStart(t, i)
		}
	}
	if !prevDigit && (digit || c == '+' || c == '(') {
		st.cls[startPhone] = append(st.cls[startPhone], i)
	}
	return word, digit
}

func (st *refStarts) letterStart(t string, i int) {
	if c1 := byteAt(t, i+1); isDigit(c1) || c1 >= 0x80 {
		st.cls[startLetter] = append(st.cls[startLetter], i)
	}
	if (t[i]|0x20)-'a' < 6 && refHexColon(t, i) {
		st.cls[startHex] = append(st.cls[startHex], i)
	}
}

func refHexColon(t string, i int) bool {
	k := 0
	for k < 5 && i+k < len(t) && (isDigit(t[i+k]) || (t[i+k]|0x20)-'a' < 6) {
		k++
	}
	return k >= 1 && k <= 4 && byteAt(t, i+k) == ':'
}

// diffStarts compares what the class pass filed in ps.state for text
// (folds: what it returned) with the reference; "" when they agree.
func diffStarts(ps *PatternSet, text string, folds bool) string {
	if want := foldsToASCII(text); folds != want {
		return fmt.Sprintf("folds %v, want %v", folds, want)
	}
	if folds {
		return ""
	}
	ref, st := refFindStarts(ps, text), ps.state
	for c := range ref.cls {
		if !slices.Equal(st.cls[c], ref.cls[c]) {
			return fmt.Sprintf("class %d: %v, want %v", c, st.cls[c], ref.cls[c])
		}
	}
	// runRule skips the \b check on the classes of word starts.
	for c := range st.cls {
		if boundClass(byte(c)) {
			for _, p := range st.cls[c] {
				if !unicodeBound(text, p) {
					return fmt.Sprintf("class %d: %d is no word boundary", c, p)
				}
			}
		}
	}
	// addTrigger files only the positions that pass runRule's first tests
	// (mayStart), which depend on the text and the position alone.
	for ri := range ref.cands {
		var want []int
		for _, p := range ref.cands[ri] {
			if ps.mayStart(ri, text, p) {
				want = append(want, p)
			}
		}
		if !slices.Equal(st.cands[ri], want) {
			return fmt.Sprintf("rule %d (%s): trigger positions %v, want %v (of %v)", ri, ps.rules[ri].dt, st.cands[ri], want, ref.cands[ri])
		}
		// runRules runs a rule only when its bit is set, and sorts the
		// positions when they were not filed in order.
		if len(want) > 0 && st.trig[ri>>6]&(1<<(ri&63)) == 0 {
			return fmt.Sprintf("rule %d (%s): trigger positions but no bit", ri, ps.rules[ri].dt)
		}
		if !st.unsorted && !slices.IsSorted(want) {
			return fmt.Sprintf("rule %d (%s): positions %v out of order, not noted", ri, ps.rules[ri].dt, want)
		}
	}
	return ""
}

// classPieces are what adversarial texts are made of: runs of lower-case
// letters of every length around the word-at-a-time loop's eight, hex
// letters and colons, digits, capitals, the bytes with a class of their
// own, trigger words in both cases, non-ASCII letters and digits, the
// characters that fold to ASCII, and broken UTF-8.
var classPieces = []string{
	"a", "b", "f", "g", "z", "ab", "abc", "abcd", "abcde", "face", "dead", "beef", "cafe", "fade", "bad", "x", "q",
	"abcdefg", "abcdefgh", "abcdefghi", "abcdefghijklmnop", "abcdefghijklmnopq",
	"A", "F", "G", "Z", "AB", "ABC", "DEAD", "BEEF", "Ab", "aB", "fE", "Fe",
	"0", "1", "9", "12", "123", "1234", "12345", "0x", "7f", "a1", "b2", "h2x", "H2X",
	":", "::", " ", "  ", "\t", "\n", ".", ",", "-", "--", "-----", "_", "+", "(", ")", "@", "\"", "'", "=", "/", "#", "$", "\x00", "\x7f", "`", "{", "[", "~",
	"dob", "DOB", "mr", "Mr", "MR", "ms", "gh", "GH", "xox", "sk_", "sk-", "eyj", "eyJ", "pwd", "api", "API", "akia", "AKIA", "aiza",
	"password", "PassWord", "secret", "token", "account", "acct", "credit", "income", "loan", "prêt", "PRÊT", "évaluation", "ÉVALUATION", "valuation",
	"patient", "client", "customer", "employee", "name", "bearer", "Bearer", "postgres", "date of birth", "birth", "born", "-----begin", "-----BEGIN",
	"congé", "CONGÉ", "fmla", "pip", "PIP", "salary", "base pay", "sick leave", "laid off", "let go", "whistleblow", "underperform",
	"é", "É", "ß", "中", "٣", "٤٥", "３", "²", "\u00a0", "\u2003", "\u200f", "\u2010", "—", "…", "\u2027", "\u2028", "\u203f", "\u212a", "\u017f", "\ufffd",
	"\xc3", "\xe2\x84", "\xff", "\x80", "\xc3\xa9\xa9", "\xf0\xc3\xa9",
	"jane.doe@example.org", "a@b", "@x", "x@", "a.b+c-d@", "fe80::1", "2001:db8::", "a:b:c", "dead:beef", "h2x 1y4",
}

// adversarialText strings pieces together, most often with nothing
// between them, so that runs meet other runs and the text ends mid-word.
func adversarialText(rng *rand.Rand) string {
	var b strings.Builder
	n := rng.Intn(24)
	for i := 0; i < n; i++ {
		b.WriteString(classPieces[rng.Intn(len(classPieces))])
		if rng.Intn(4) == 0 {
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// randomBytes is a text of bytes drawn from a small alphabet with every
// byte kind, of any length.
func randomBytes(rng *rand.Rand) string {
	const alphabet = "abcdefghijklmnopqrstuvwxyzabcdefmnopsAFGZ09:  _+(@.-\"'\xc3\xa9\xe2\x84\xaa\xc5\xbf\xff"
	b := make([]byte, rng.Intn(70))
	for i := range b {
		b[i] = alphabet[rng.Intn(len(alphabet))]
	}
	return string(b)
}

// TestClassPassMatchesReference holds the class pass (findStarts) to the
// byte-by-byte pass it replaced, on the shared packs' texts, texts made of
// the rules' fragments, adversarial texts and random bytes, one pattern
// set per family set reused from text to text (as a scanner does).
func TestClassPassMatchesReference(t *testing.T) {
	t.Parallel()
	var texts []string
	texts = append(texts, packTexts(t)...)
	rng := rand.New(rand.NewSource(7))
	n := 20000
	if testfiles.Reduced() {
		n = 2000
	}
	for i := 0; i < n; i++ {
		texts = append(texts, randomText(rng), adversarialText(rng), randomBytes(rng))
	}
	// Every suffix of a few texts: each length, so the word-at-a-time
	// loop's tail and the prefix filter's end of text are all met.
	for i := 0; i < 200; i++ {
		s := adversarialText(rng)
		for k := range s {
			texts = append(texts, s[k:], s[:k])
		}
	}
	for _, fam := range familySets() {
		ps := NewPatternSet(fam)
		for i, s := range texts {
			if d := diffStarts(ps, s, ps.findStarts(s)); d != "" {
				t.Fatalf("text %d %q (families %v): %s", i, s, fam, d)
			}
		}
	}
}

// TestNotLower checks the word-at-a-time test of lower-case letters: every
// byte in every lane, among lower-case and other neighbours.
func TestNotLower(t *testing.T) {
	for _, fill := range []byte{'a', 'z', '`', '{', 0x80 + 'a', 0xff, 0} {
		for c := 0; c < 256; c++ {
			for lane := 0; lane < 8; lane++ {
				v := uint64(fill) * swarLow
				v &^= 0xff << (8 * lane)
				v |= uint64(c) << (8 * lane)
				m := notLower(v)
				for l := 0; l < 8; l++ {
					b := byte(v >> (8 * l))
					if got, want := m>>(8*l)&0xff, uint64(0); isLower(b) != (got == want) || got != 0 && got != 0x80 {
						t.Fatalf("notLower(%#x) lane %d: %#x (byte %#x)", v, l, got, b)
					}
				}
			}
		}
	}
}

// TestFirstNotLower checks firstNotLower's lowest flag: the first byte
// that is not a-z, every byte in every lane, after lower-case letters and
// before bytes of every kind (those past it may carry).
func TestFirstNotLower(t *testing.T) {
	for _, fill := range []byte{'a', 'z', '`', '{', 0x80 + 'a', 0xff, 0} {
		for c := 0; c < 256; c++ {
			for lane := 0; lane < 8; lane++ {
				v := uint64(fill) * swarLow
				for l := 0; l < lane; l++ {
					v = v&^(0xff<<(8*l)) | uint64('a'+l)<<(8*l)
				}
				v = v&^(0xff<<(8*lane)) | uint64(c)<<(8*lane)
				want := 8
				for l := 0; l < 8; l++ {
					if !isLower(byte(v >> (8 * l))) {
						want = l
						break
					}
				}
				m := firstNotLower(v)
				got := 8
				if m != 0 {
					got = bits.TrailingZeros64(m) >> 3
					if m>>(8*got)&0xff != 0x80 {
						t.Fatalf("firstNotLower(%#x): %#x, not the high bit", v, m)
					}
				}
				if got != want {
					t.Fatalf("firstNotLower(%#x): first byte %d, want %d", v, got, want)
				}
			}
		}
	}
}

// TestPrefixFilterKeepsWords: every trigger word, in each ASCII case of
// its first three bytes, passes the prefix filter wherever it stands.
func TestPrefixFilterKeepsWords(t *testing.T) {
	e := builtin()
	for ri := range e.rules {
		for _, w := range e.rules[ri].triggers {
			for _, v := range caseVariants(w) {
				for mask := 0; mask < 8; mask++ {
					b := []byte(v)
					for k := 0; k < 3 && k < len(b); k++ {
						if mask&(1<<k) != 0 && isLower(b[k]) {
							b[k] -= 32
						}
					}
					for _, pad := range []string{"", "x", "xy", "xyz", " and more"} {
						s := "." + string(b) + pad
						if !e.trie.maybe(word8(s, 1)) {
							t.Errorf("%q: the prefix filter refuses %q at 1", w, s)
						}
					}
				}
			}
		}
	}
}

// TestBoundAt holds boundAt to unicodeBound at every position of the
// adversarial and random-byte texts.
func TestBoundAt(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	for n := 0; n < 5000; n++ {
		for _, s := range []string{adversarialText(rng), randomBytes(rng), randomText(rng)} {
			for p := 0; p <= len(s); p++ {
				if got, want := boundAt(s, p), unicodeBound(s, p); got != want {
					t.Fatalf("%q at %d: boundAt %v, unicodeBound %v", s, p, got, want)
				}
			}
		}
	}
}

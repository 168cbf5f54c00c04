package agentleak

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// runRules runs the enabled rules over text the way Python's finditer does:
// left to right, each match starting at or after the end of the previous
// one. Each rule is tried only where it can start (a character class or a
// trigger word, both found in one pass over the text), anchored there,
// within a window.
func (ps *patternSet) runRules(text string, emit emitFunc) {
	if foldsToASCII(text) {
		ps.runPlain(text, emit)
		return
	}
	ps.findStarts(text)
	st := ps.state
	for i, src := range ps.src {
		// Rules with no start in this text are passed over without
		// touching them.
		switch {
		case src == srcOff:
			continue
		case src == srcTriggers:
			if len(st.cands[i]) == 0 {
				continue
			}
		case len(st.cls[src]) == 0:
			continue
		}
		ps.runRule(i, text, emit)
	}
}

// addTrigger files the starts trigger word id at p gives its enabled
// rules: p, and the quote or the non-ASCII character just before it.
func (ps *patternSet) addTrigger(text string, id, p int) {
	st := ps.state
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

// candidates returns where rule i may start, in order.
func (ps *patternSet) candidates(i int) []int {
	r := &ps.rules[i]
	if len(r.triggers) == 0 {
		return ps.state.cls[r.starts]
	}
	c := ps.state.cands[i]
	// findStarts files them left to right (a quote or character before a
	// word never before the word filed last); addTrigger notes it if not.
	if ps.state.unsorted {
		sort.Ints(c)
	}
	return c
}

// runRule reports rule i's matches in text.
func (ps *patternSet) runRule(i int, text string, emit emitFunc) {
	r := &ps.rules[i]
	prevEnd, last := -1, -1
	for _, p := range ps.candidates(i) {
		if p < prevEnd {
			// An address's local part may begin inside the previous
			// match: the search goes on from where that match ended.
			if r.starts != startEmail || strings.IndexByte(text[prevEnd:], '@') < 0 || !localRun(text, p, prevEnd) {
				continue
			}
			p = prevEnd
		}
		if p == last {
			continue
		}
		last = p
		m := ps.matchAt(r, text, p)
		if m == nil {
			continue
		}
		prevEnd = m[1]
		if m[1] == m[0] {
			prevEnd++
		}
		r.report(text, m, emit)
	}
}

// report emits the value of match m unless the rule's keep check refuses
// it or its value function leaves nothing.
func (r *rule) report(text string, m []int, emit emitFunc) {
	if r.keep != nil && !r.keep(text, m) {
		return
	}
	v := text[m[2*r.group]:m[2*r.group+1]]
	if r.value != nil {
		if v = r.value(v); v == "" {
			return
		}
	}
	emit(r.dt, r.key, r.family, v)
}

// matchAt returns r's match anchored at p (submatch indexes into text), or
// nil: the word boundary, the necessary check, the hand match or the
// expression within the rule's window, then the lookarounds.
func (ps *patternSet) matchAt(r *rule, text string, p int) []int {
	if r.wordHead && !unicodeBound(text, p) {
		return nil
	}
	if r.pre != nil && !r.pre(text, p) {
		return nil
	}
	var m []int
	got := -1
	if r.match != nil {
		m = ps.state.m[:2] // hand matches report the whole match only
		got = r.match(text, p, m)
	}
	switch got {
	case 0:
		return nil
	case -1:
		end := len(text)
		if r.window > 0 && p+r.window < end {
			end = p + r.window
		}
		if m = r.anchored.get().FindStringSubmatchIndex(text[p:end]); m == nil {
			return nil
		}
		for k := range m {
			if m[k] >= 0 {
				m[k] += p
			}
		}
	}
	if r.look != nil && !r.look(text, m) || r.nonASCII(text, m) {
		return nil
	}
	return m
}

// localRun: t[p:e] is part of one email local part that goes on to an '@'.
func localRun(t string, p, e int) bool {
	for i := p; i < len(t); i++ {
		c := t[i]
		switch {
		case c == '@':
			return i > e
		case isWordByte(c) && c < 0x80, c == '.', c == '+', c == '-':
		default:
			return false
		}
	}
	return false
}

// foldsToASCII: the text holds the Kelvin sign or the long s, which
// case-insensitive rules read as k and s but the lower-cased trigger search
// does not see.
func foldsToASCII(t string) bool {
	return strings.Contains(t, "\u212a") || strings.Contains(t, "\u017f")
}

// runPlain is the reference path: every enabled rule's own regular
// expression searched over the whole text, left to right, the way Python's
// finditer walks it (a match that a lookaround or a check refuses lets the
// search go on one character later); no trigger words, character classes,
// windows or necessary checks. The fast path is held to it by a differential
// test, and it serves the rare texts the fast path does not handle.
func (ps *patternSet) runPlain(text string, emit emitFunc) {
	for i := range ps.rules {
		r := &ps.rules[i]
		if !ps.on[i] {
			continue
		}
		for p := 0; p <= len(text); {
			m := r.re.get().FindStringSubmatchIndex(text[p:])
			if m == nil {
				break
			}
			for k := range m {
				if m[k] >= 0 {
					m[k] += p
				}
			}
			q := m[0]
			next := q + 1
			if q < len(text) {
				_, n := utf8.DecodeRuneInString(text[q:])
				next = q + n
			}
			if q == p && p > 0 {
				// The search began at p, so a \b there was judged without
				// the character before it: the anchored form decides, and
				// the checks below judge the boundary with it.
				if m = r.anchored.get().FindStringSubmatchIndex(text[q:]); m == nil {
					p = next
					continue
				}
				for k := range m {
					if m[k] >= 0 {
						m[k] += q
					}
				}
			}
			if r.wordHead && !unicodeBound(text, q) || r.family == famKeyname && !keyStart(text, q) ||
				r.look != nil && !r.look(text, m) || r.nonASCII(text, m) {
				p = next
				continue
			}
			p = m[1]
			if m[1] == m[0] {
				p = next
			}
			r.report(text, m, emit)
		}
	}
}

// keyStart: a key-name match starts at a quote or where Python's \b holds.
func keyStart(t string, q int) bool {
	if q < len(t) && (t[q] == '"' || t[q] == '\'') {
		return true
	}
	return unicodeBound(t, q)
}

// ruleState is the per-event scratch of runRules.
type ruleState struct {
	m     [8]int  // a hand match's indexes
	cands [][]int // per rule: trigger positions
	ids   []int32 // trigger words found at one position
	// unsorted: a rule's trigger positions were not filed in order
	unsorted bool
	cls      [startEmail + 1][]int
}

func newRuleState(rules int) *ruleState { return &ruleState{cands: make([][]int, rules)} }

// findStarts lists, in one pass over the text, the start positions of
// every character class and of every trigger word. A class holds only the
// positions its rules' first characters allow (upper-case starts are two
// capitals, letter starts a letter and a digit, hex starts a short hex run
// and a colon): a superset of where its rules can match, and far fewer
// positions than every word start. Trigger words are looked up where
// triggerTrie.each would: not inside a run of ASCII word bytes.
func (ps *patternSet) findStarts(t string) {
	st := ps.state
	for i := range st.cands {
		st.cands[i] = st.cands[i][:0]
	}
	st.unsorted = false
	for i := range st.cls {
		st.cls[i] = st.cls[i][:0]
	}
	n := len(t)
	trie := ps.trie // one load, not two a byte
	prevWord, prevDigit := false, false
	for i := 0; i < n; {
		c := t[i]
		if trie.first[c] && (i == 0 || !asciiWord[t[i-1]] || !asciiWord[c]) && trie.startsAt(t, i) {
			st.ids = trie.walk(t, i, st.ids[:0])
			for _, id := range st.ids {
				ps.addTrigger(t, int(id), i)
			}
		}
		if c-'a' < 26 {
			// A run of lower-case letters: only its first letter can start
			// a rule (a postal code, an IPv6 group) or a trigger word.
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
	st.emailStarts(t)
}

// asciiStart files the classes an ASCII byte other than a lower-case
// letter or a space starts; it returns whether the byte is a word byte
// and a digit.
func (st *ruleState) asciiStart(t string, i int, prevWord, prevDigit bool) (word, digit bool) {
	c := t[i]
	digit = isDigit(c)
	word = digit || isUpper(c) || c == '_'
	if !prevWord && word {
		switch {
		case digit:
			st.cls[startDigit] = append(st.cls[startDigit], i)
			if hexColon(t, i) {
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

// emailStarts files the start of the local part before every '@'.
func (st *ruleState) emailStarts(t string) {
	for off := 0; ; {
		k := strings.IndexByte(t[off:], '@')
		if k < 0 {
			return
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
}

// letterStart files an ASCII letter at a word start: a postal code begins
// with a letter and a digit (any Unicode digit), an IPv6 group with a short
// hex run and a colon.
func (st *ruleState) letterStart(t string, i int) {
	if c1 := byteAt(t, i+1); isDigit(c1) || c1 >= 0x80 {
		st.cls[startLetter] = append(st.cls[startLetter], i)
	}
	if (t[i]|0x20)-'a' < 6 && hexColon(t, i) {
		st.cls[startHex] = append(st.cls[startHex], i)
	}
}

// hexColon: one to four hex digits at i, then a colon.
func hexColon(t string, i int) bool {
	k := 0
	for k < 5 && i+k < len(t) && (isDigit(t[i+k]) || (t[i+k]|0x20)-'a' < 6) {
		k++
	}
	return k >= 1 && k <= 4 && byteAt(t, i+k) == ':'
}

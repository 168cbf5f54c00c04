package detect

import (
	"math/bits"
	"sort"
	"strings"
	"unicode/utf8"
)

// RunRules runs the enabled rules over text the way Python's finditer does:
// left to right, each match starting at or after the end of the previous
// one. Each rule is tried only where it can start (a character class or a
// trigger word, both found in one pass over the text), anchored there,
// within a window.
func (ps *PatternSet) RunRules(text string, emit EmitFunc) {
	st := ps.state
	if st.clsRules[startDigit] == nil {
		st.setRules(ps.src, ps.rules)
	}
	if ps.findStarts(text) {
		// The text holds a character that folds to an ASCII letter
		// (foldsToASCII).
		ps.RunPlain(text, emit)
		return
	}
	st.screenStarts(text)
	// Only the rules with a start in this text are run, in their order:
	// those the trigger words gave positions, those the screens gave
	// starts and those of the other start classes that hold any.
	// The classes whose unscreened rules have starts, found once for all
	// the words of the bitmaps.
	var cs [startEmail + 1]byte
	k := 0
	for c := startDigit; c <= startEmail; c++ {
		if st.clsOn[c] && len(st.cls[c]) > 0 {
			cs[k] = c
			k++
		}
	}
	for w, b := range st.trig {
		b |= st.scrRules[w]
		st.scrRules[w] = 0 // screenStarts files the next text's afresh
		for _, c := range cs[:k] {
			b |= st.clsRules[c][w]
		}
		for b != 0 {
			i := w<<6 | bits.TrailingZeros64(b)
			b &= b - 1
			ps.runRule(i, text, emit)
		}
	}
}

// addTrigger files the starts trigger word id at p gives its enabled
// rules: p, and the quote or the non-ASCII character just before it.
func (ps *PatternSet) addTrigger(text string, id, p int) {
	// What comes before p, read once for all the word's rules: a quote,
	// or the start of a non-ASCII character (-1 for neither).
	before := -1
	if p > 0 {
		switch c := text[p-1]; {
		case c == '"' || c == '\'':
			before = p - 1
		case c >= 0x80:
			_, n := utf8.DecodeLastRuneInString(text[:p])
			before = p - n
		}
	}
	bound := -1 // whether \b holds at p, for key-name rules: read when asked
	for _, tr := range ps.trigOn[id] {
		ri := int(tr.rule)
		okBefore := before >= 0 && ps.mayStart(ri, text, before)
		if tr.key && bound < 0 {
			// boundAt written out (the compiler does not inline it).
			bound = 0
			if p > 0 && p < len(text) && text[p-1]|text[p] < 0x80 {
				if asciiWord[text[p-1]] != asciiWord[text[p]] {
					bound = 1
				}
			} else if unicodeBound(text, p) {
				bound = 1
			}
		}
		okP := (!tr.key || bound == 1) && ps.mayStart(ri, text, p)
		if okBefore || okP {
			// Out of line: most trigger words file nothing.
			ps.fileStarts(ri, before, p, okBefore, okP)
		}
	}
}

// fileStarts files the starts addTrigger found for rule ri: before when
// okBefore, p when okP.
func (ps *PatternSet) fileStarts(ri, before, p int, okBefore, okP bool) {
	st := ps.state
	c := st.cands[ri]
	n := len(c)
	if okBefore {
		c = append(c, before)
	}
	if okP {
		c = append(c, p)
	}
	if n > 0 && c[n] < c[n-1] {
		st.unsorted = true
	}
	st.cands[ri] = c
	st.trig[ri>>6] |= 1 << (ri & 63)
}

// mayStart is runRule's first tests of a start p of rule ri (\b where
// the pattern begins with it, and its cheap necessary condition), made
// when the trigger word is found, while the text around p is at hand: a
// start that fails them is not filed, and a rule left without starts is
// not run. They depend on text and p alone, so runRule would refuse the
// same starts.
func (ps *PatternSet) mayStart(ri int, text string, p int) bool {
	r := &ps.rules[ri]
	if r.wordHead {
		// boundAt written out (the compiler does not inline it).
		if p > 0 && p < len(text) && text[p-1]|text[p] < 0x80 {
			if asciiWord[text[p-1]] == asciiWord[text[p]] {
				return false
			}
		} else if !unicodeBound(text, p) {
			return false
		}
	}
	return r.pre == nil || r.pre(text, p)
}

// trigRule is an enabled rule of a trigger word (PatternSet.trigOn) and
// whether it is a key-name rule (which starts at the word only where \b
// holds).
type trigRule struct {
	rule int32
	key  bool
}

// trigOn lists, per trigger word id, its rules that are enabled.
func trigOn(e *ruleEngine, on []bool) [][]trigRule {
	out := make([][]trigRule, len(e.trigRules))
	for id, rs := range e.trigRules {
		for _, ri := range rs {
			if on[ri] {
				out[id] = append(out[id], trigRule{rule: int32(ri), key: e.rules[ri].family == famKeyname})
			}
		}
	}
	return out
}

// boundClass: the class files only word characters that no word character
// comes before (findStarts' prevWord), where Python's \b holds.
func boundClass(c byte) bool {
	return c == startDigit || c == startUpper || c == startLetter || c == startHex
}

// runRule reports rule i's matches in text.
func (ps *PatternSet) runRule(i int, text string, emit EmitFunc) {
	r := &ps.rules[i]
	// Where the rule may start, in order, and whether each is known to be
	// a word boundary.
	st := ps.state
	var cands []int
	bound := false
	switch {
	case r.screen != 0:
		cands, bound = st.scr[r.screen], boundClass(r.starts)
	case len(r.triggers) == 0:
		cands, bound = st.cls[r.starts], boundClass(r.starts)
	default:
		cands = st.cands[i]
		// findStarts files them left to right (a quote or character
		// before a word never before the word filed last); addTrigger
		// notes it if not.
		if st.unsorted {
			sort.Ints(cands)
		}
	}
	// A class of word starts needs no \b check.
	head, pre := r.wordHead && !bound, r.pre
	prevEnd, last := -1, -1
	for _, p := range cands {
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
		// The checks that refuse most starts, before the call (boundAt
		// written out: too large for the compiler to inline).
		if head {
			if p > 0 && p < len(text) && text[p-1]|text[p] < 0x80 {
				if asciiWord[text[p-1]] == asciiWord[text[p]] {
					continue
				}
			} else if !unicodeBound(text, p) {
				continue
			}
		}
		if pre != nil && !pre(text, p) {
			continue
		}
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

// boundAt is unicodeBound with ASCII on both sides taken inline.
func boundAt(t string, p int) bool {
	if p > 0 && p < len(t) && t[p-1]|t[p] < 0x80 {
		return asciiWord[t[p-1]] != asciiWord[t[p]]
	}
	return unicodeBound(t, p)
}

// report emits the value of match m unless the rule's keep check refuses
// it or its value function leaves nothing.
func (r *rule) report(text string, m []int, emit EmitFunc) {
	if r.keep != nil && !r.keep(text, m) {
		return
	}
	v := text[m[2*r.group]:m[2*r.group+1]]
	if r.value != nil {
		if v = r.value(v); v == "" {
			return
		}
	}
	emit(r.info, v)
}

// matchAt returns r's match anchored at p (submatch indexes into text), or
// nil: the hand match or the expression within the rule's window, then the
// lookarounds. (runRule has checked the word boundary a \b at the head
// needs and the necessary check.)
func (ps *PatternSet) matchAt(r *rule, text string, p int) []int {
	var m []int
	got := -1
	if r.match != nil {
		m = ps.state.m[:2*r.group+2] // the match and the groups up to the reported one
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
		if r.givesBack && r.giveBack(text, m) == nil {
			return nil
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

// RunPlain is the reference path, the readable specification of RunRules: every enabled rule's own regular
// expression searched over the whole text, left to right, the way Python's
// finditer walks it (a match that a lookaround or a check refuses lets the
// search go on one character later); no trigger words, character classes,
// windows or necessary checks. The fast path is held to it by a differential
// test, and it serves the rare texts the fast path does not handle.
func (ps *PatternSet) RunPlain(text string, emit EmitFunc) {
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
			if r.givesBack && r.giveBack(text, m) == nil ||
				r.wordHead && !unicodeBound(text, q) || r.family == famKeyname && !keyStart(text, q) ||
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
	// trig has a bit for every rule trigger words gave positions in this
	// text (an empty list may have one): the rules to run and the lists
	// to clear.
	trig []uint64
	// unsorted: a rule's trigger positions were not filed in order
	unsorted bool
	cls      [startEmail + 1][]int // per start class: its positions
	// clsRules has, per start class, a bit for every enabled rule that
	// starts there (filled on first use: setRules).
	clsRules [startEmail + 1][]uint64
	clsOn    [startEmail + 1]bool // clsRules[c] has a rule
	// scr are the starts the screens let each of their rules try
	// (detect_screen.go); screened: an enabled rule of the class has a
	// slot; slotRule: the enabled rule of each slot, or -1; scrRules: a
	// bit for every rule the screens gave starts in this text, cleared by
	// runRules as it reads it. (clsRules leaves the screened rules out.)
	scr      [scrSlots][]int
	screened [startEmail + 1]bool
	slotRule [scrSlots]int
	scrRules []uint64
}

func newRuleState(rules int) *ruleState {
	return &ruleState{cands: make([][]int, rules), trig: make([]uint64, (rules+63)/64)}
}

// setRules fills clsRules from the rules' sources of starts
// (PatternSet.src), and the screens' slotRule and screened.
func (st *ruleState) setRules(src []int8, rules []rule) {
	for c := range st.clsRules {
		st.clsRules[c] = make([]uint64, len(st.trig))
	}
	st.scrRules = make([]uint64, len(st.trig))
	for k := range st.slotRule {
		st.slotRule[k] = -1
	}
	for i, s := range src {
		switch k := rules[i].screen; {
		case s >= 0 && k != 0:
			st.slotRule[k] = i
			st.screened[screenClass(k)] = true
		case s >= 0:
			st.clsRules[s][i>>6] |= 1 << (i & 63)
			st.clsOn[s] = true
		}
	}
}

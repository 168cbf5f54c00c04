package detect

// Matcher is an Aho-Corasick automaton over bytes: it finds every
// occurrence of a set of patterns in one pass over a text, whatever the
// number of patterns (vault values, canaries, keywords). The root state has a
// dense transition table; deeper states keep sorted sparse edges, so that
// tens of thousands of vault values stay small in memory.
type Matcher struct {
	root  [256]int32
	edges [][]edge // per state, sorted by byte
	fail  []int32
	out   [][]int32 // per state, pattern ids ending here (including via fail links)
	plen  []int     // pattern lengths

	// Dense form, when small enough: every transition resolved, bytes
	// mapped to classes (each byte used by a pattern has its own class).
	class  [256]uint16
	nclass int
	delta  []int32   // state*nclass + class -> state
	dout   [][]int32 // outputs by dense state number
}

// denseLimit caps the dense table (entries of 4 bytes).
const denseLimit = 4 << 20

type edge struct {
	b    byte
	next int32
}

// NewMatcher builds the automaton of patterns; a match reports the
// pattern's index in patterns as its id.
func NewMatcher(patterns []string) *Matcher {
	m := &Matcher{edges: [][]edge{nil}, fail: []int32{0}, out: [][]int32{nil}}
	for id, p := range patterns {
		m.plen = append(m.plen, len(p))
		if p == "" {
			continue
		}
		s := int32(0)
		for i := 0; i < len(p); i++ {
			n := m.child(s, p[i])
			if n < 0 {
				n = int32(len(m.edges))
				m.edges = append(m.edges, nil)
				m.fail = append(m.fail, 0)
				m.out = append(m.out, nil)
				m.addEdge(s, p[i], n)
			}
			s = n
		}
		m.out[s] = append(m.out[s], int32(id))
	}
	// Breadth-first: fail links and inherited outputs.
	queue := make([]int32, 0, len(m.edges))
	for _, e := range m.edges[0] {
		m.fail[e.next] = 0
		queue = append(queue, e.next)
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		for _, e := range m.edges[s] {
			f := m.fail[s]
			for {
				if n := m.child(f, e.b); n >= 0 && n != e.next {
					m.fail[e.next] = n
					break
				}
				if f == 0 {
					m.fail[e.next] = 0
					break
				}
				f = m.fail[f]
			}
			if fo := m.out[m.fail[e.next]]; len(fo) > 0 {
				m.out[e.next] = append(m.out[e.next], fo...)
			}
			queue = append(queue, e.next)
		}
	}
	for b := 0; b < 256; b++ {
		m.root[b] = 0
		if n := m.child(0, byte(b)); n >= 0 {
			m.root[b] = n
		}
	}
	m.densify()
	return m
}

func (m *Matcher) densify() {
	used := [256]bool{}
	for _, es := range m.edges {
		for _, e := range es {
			used[e.b] = true
		}
	}
	m.nclass = 1
	for b := 0; b < 256; b++ {
		if used[b] {
			m.class[b] = uint16(m.nclass)
			m.nclass++
		}
	}
	if len(m.edges)*m.nclass > denseLimit {
		m.nclass = 0
		return
	}
	rep := make([]byte, m.nclass) // a byte of each class
	for b := 255; b >= 0; b-- {
		rep[m.class[b]] = byte(b)
	}
	m.delta = make([]int32, len(m.edges)*m.nclass)
	// States in breadth-first order, so that a state's fail target is
	// complete before the state itself.
	order := []int32{0}
	for i := 0; i < len(order); i++ {
		for _, e := range m.edges[order[i]] {
			order = append(order, e.next)
		}
	}
	// Rows are numbered in that order too: the shallow states, where the
	// walk spends most of its time, share cache lines.
	newID := make([]int32, len(m.edges))
	for i, s := range order {
		newID[s] = int32(i)
	}
	m.dout = make([][]int32, len(m.edges))
	for _, s := range order {
		m.dout[newID[s]] = m.out[s]
		row := m.delta[int(newID[s])*m.nclass : int(newID[s]+1)*m.nclass]
		for c := 0; c < m.nclass; c++ {
			if n := m.child(s, rep[c]); n >= 0 && c != 0 {
				row[c] = newID[n] * int32(m.nclass)
				if len(m.out[n]) > 0 {
					row[c] |= outFlag
				}
			} else if s == 0 {
				row[c] = 0
			} else {
				row[c] = m.delta[int(newID[m.fail[s]])*m.nclass+c]
			}
		}
	}
}

// outFlag marks a dense transition into a state where patterns end; the
// rest of the entry is the target state times the number of classes.
const outFlag = -1 << 31

func (m *Matcher) child(s int32, b byte) int32 {
	es := m.edges[s]
	lo, hi := 0, len(es)
	for lo < hi {
		mid := (lo + hi) / 2
		if es[mid].b < b {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo < len(es) && es[lo].b == b {
		return es[lo].next
	}
	return -1
}

func (m *Matcher) addEdge(s int32, b byte, n int32) {
	es := m.edges[s]
	i := len(es)
	for i > 0 && es[i-1].b > b {
		i--
	}
	es = append(es, edge{})
	copy(es[i+1:], es[i:])
	es[i] = edge{b, n}
	m.edges[s] = es
}

// Each calls fn(id, start, end) for every occurrence of every pattern in text.
func (m *Matcher) Each(text []byte, fn func(id, start, end int)) {
	if m == nil || len(m.edges) == 1 {
		return
	}
	if m.delta != nil {
		nc := int32(m.nclass)
		delta, class := m.delta, &m.class
		row := int32(0)
		for i := 0; i < len(text); i++ {
			v := delta[row+int32(class[text[i]])]
			row = v &^ outFlag
			if v < 0 {
				for _, id := range m.dout[row/nc] {
					fn(int(id), i+1-m.plen[id], i+1)
				}
			}
		}
		return
	}
	s := int32(0)
	for i := 0; i < len(text); i++ {
		b := text[i]
		if s == 0 {
			s = m.root[b]
		} else {
			for {
				if n := m.child(s, b); n >= 0 {
					s = n
					break
				}
				s = m.fail[s]
				if s == 0 {
					s = m.root[b]
					break
				}
			}
		}
		if out := m.out[s]; len(out) > 0 {
			for _, id := range out {
				fn(int(id), i+1-m.plen[id], i+1)
			}
		}
	}
}

// LowerASCII writes the ASCII-lowercased text into buf (reused) and returns
// it. Only A-Z change, so offsets in the result are offsets in the text.
func LowerASCII(buf []byte, text string) []byte {
	buf = append(buf[:0], text...)
	for i, c := range buf {
		if c-'A' < 26 {
			buf[i] = c + 32
		}
	}
	return buf
}

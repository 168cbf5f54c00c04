package agentleak

// matcher is an Aho-Corasick automaton over bytes: it finds every
// occurrence of a set of patterns in one pass over a text, whatever the
// number of patterns (vault values, canaries, keywords). The root state has a
// dense transition table; deeper states keep sorted sparse edges, so that
// tens of thousands of vault values stay small in memory.
type matcher struct {
	root  [256]int32
	edges [][]edge // per state, sorted by byte
	fail  []int32
	out   [][]int32 // per state, pattern ids ending here (including via fail links)
	plen  []int     // pattern lengths
}

type edge struct {
	b    byte
	next int32
}

func newMatcher(patterns []string) *matcher {
	m := &matcher{edges: [][]edge{nil}, fail: []int32{0}, out: [][]int32{nil}}
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
	return m
}

func (m *matcher) child(s int32, b byte) int32 {
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

func (m *matcher) addEdge(s int32, b byte, n int32) {
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

// each calls fn(id, start, end) for every occurrence of every pattern in text.
func (m *matcher) each(text []byte, fn func(id, start, end int)) {
	if m == nil || len(m.edges) == 1 {
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

// lowerASCII writes the ASCII-lowercased text into buf (reused) and returns
// it. Only A-Z change, so offsets in the result are offsets in the text.
func lowerASCII(buf []byte, text string) []byte {
	buf = append(buf[:0], text...)
	for i, c := range buf {
		if c-'A' < 26 {
			buf[i] = c + 32
		}
	}
	return buf
}

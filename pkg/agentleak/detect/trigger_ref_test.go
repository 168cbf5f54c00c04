package detect

// The trie's reference walkers, for tests: the scanner looks words up
// inside its own pass (PatternSet.findStarts, triggersAt).

// each calls fn(id, p) for every word that begins at a position of text
// where a word can begin: the first byte of a run of ASCII word bytes, or
// any other byte. (The scanner does the same inside its pass over the
// text, PatternSet.findStarts.)
func (t *triggerTrie) each(text string, fn func(id, p int)) {
	var ids []int32
	n := len(text)
	for i := 0; i < n; {
		c := text[i]
		if t.first[c] && t.maybe(word8(text, i)) {
			ids = t.walk(text, i, ids[:0])
			for _, id := range ids {
				fn(int(id), i)
			}
		}
		i++
		if asciiWord[c] {
			for i < n && asciiWord[text[i]] {
				i++
			}
		}
	}
}

// walk appends to ids the words that begin at p (triggersAt files them
// as it goes instead).
func (t *triggerTrie) walk(text string, p int, ids []int32) []int32 {
	s := 0
	for i := p; i < len(text); i++ {
		c := t.class[text[i]]
		if c == 0 {
			break
		}
		v := t.next[s*t.nclass+int(c)]
		if v == 0 {
			break
		}
		s = int(v &^ outMark)
		if v&outMark != 0 {
			ids = append(ids, t.out[s]...)
		}
	}
	return ids
}

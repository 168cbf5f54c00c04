package agentleak

// streetWords are the street address pattern's street words, lower case,
// in its order.
var streetWords = []string{"street", "st", "avenue", "ave", "road", "rd", "boulevard", "blvd", "drive", "dr", "lane", "ln", "court", "ct", "way", "place", "pl"}

// matchStreet is the street address pattern on ASCII text,
// `(?i)\d{1,5}\s+(?:[A-Z][A-Za-z.]+\s){1,3}(?:Street|St|...|Pl)\b\.?` at p.
// Each part but the word count is decided by what follows it: the digits
// and the spaces are whole runs (a letter must come next), each word is its
// whole run of letters and dots and one space. Backtracking tries three
// words, then two, then one, before the street word, which with its \b is
// a whole run of letters; a dot after it is taken. A byte above 0x7f
// where it reads leaves the start to the expression.
func matchStreet(t string, p int, m []int) int {
	i := p
	for i < len(t) && isDigit(t[i]) {
		i++
	}
	if n := i - p; n == 0 || n > 5 {
		return high(t, i)
	}
	s := i
	for i < len(t) && goSpace(t[i]) {
		i++
	}
	if i == s {
		return high(t, i)
	}
	var at [4]int // where the street word may begin: after 1, 2 or 3 words
	w := 0
	for w < 3 {
		c := byteAt(t, i)
		if c >= 0x80 {
			return -1
		}
		if !isLetter(c) {
			break
		}
		k := i + 1
		for k < len(t) && (isLetter(t[k]) || t[k] == '.') {
			k++
		}
		c = byteAt(t, k)
		if c >= 0x80 {
			return -1
		}
		if k == i+1 || !goSpace(c) {
			break
		}
		i = k + 1
		w++
		at[w] = i
	}
	for ; w >= 1; w-- {
		i = at[w]
		k := i
		for k < len(t) && isLetter(t[k]) {
			k++
		}
		c := byteAt(t, k)
		if c >= 0x80 {
			return -1
		}
		if asciiWord[c] && k < len(t) {
			continue // no \b after the letters
		}
		for _, sw := range streetWords {
			if e, ok := foldWordAt(t, i, sw); ok && e == k {
				if byteAt(t, k) == '.' {
					k++
				}
				m[0], m[1] = p, k
				return 1
			}
		}
	}
	return 0
}

// high: 0 where an ASCII byte ends a part the pattern needs more of, -1
// where a byte above 0x7f (a Unicode digit or space) might go on with it.
func high(t string, i int) int {
	if i < len(t) && t[i] >= 0x80 {
		return -1
	}
	return 0
}

package detect

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

// rueWords are the French address pattern's street words, lower case, in
// its order, the accented letters of C[ôo]te, All[ée]e, Mont[ée]e and
// Carr[ée] in their ASCII form (text with the accent is the expression's).
var rueWords = []string{"rue", "avenue", "av", "boulevard", "boul", "bd", "chemin", "ch", "cote", "place", "allee", "impasse", "montee", "rang", "croissant", "promenade", "terrasse", "carre"}

// matchRue is the French address pattern on ASCII text at p: a house
// number, optionally a dash or space and a second number (tried first), spaces,
// a street word (tried in the pattern's order: Avenue before Av), an
// optional dot, spaces and one to four name words joined by a space or a
// dash. Numbers and spaces are whole runs; name words are greedy and
// nothing after them can fail, so the first street word that is followed
// by a dot or spaces and a name gives the match.
func matchRue(t string, p int, m []int) int {
	i := p
	for i < len(t) && isDigit(t[i]) {
		i++
	}
	if n := i - p; n == 0 || n > 5 {
		return high(t, i)
	}
	switch c := byteAt(t, i); {
	case c >= 0x80:
		return -1
	case c == '-' || goSpace(c):
		k := i + 1
		for k < len(t) && isDigit(t[k]) {
			k++
		}
		if k < len(t) && t[k] >= 0x80 {
			return -1
		}
		if n := k - i - 1; n >= 1 && n <= 4 {
			if got := rueRest(t, p, k, m); got != 0 {
				return got
			}
		}
	}
	return rueRest(t, p, i, m)
}

// rueRest matches from the spaces before the street word at i.
func rueRest(t string, p, i int, m []int) int {
	j := i
	for j < len(t) && goSpace(t[j]) {
		j++
	}
	if j < len(t) && t[j] >= 0x80 {
		return -1
	}
	if j == i {
		return 0
	}
	for _, w := range rueWords {
		e, ok := foldWordAt(t, j, w)
		if e < 0 {
			return -1
		}
		if ok {
			if got := rueName(t, p, e, m); got != 0 {
				return got
			}
		}
	}
	return 0
}

// rueName matches the dot, spaces and name words after a street word
// ending at e.
func rueName(t string, p, e int, m []int) int {
	k := e
	c := byteAt(t, k)
	if c >= 0x80 {
		return -1
	}
	if c == '.' {
		if c = byteAt(t, k+1); c >= 0x80 {
			return -1
		}
		if !goSpace(c) {
			return 0 // without the dot, the spaces would start at it
		}
		k++
	}
	s := k
	for k < len(t) && goSpace(t[k]) {
		k++
	}
	if k < len(t) && t[k] >= 0x80 {
		return -1
	}
	if k == s {
		return 0
	}
	end, got := rueWord(t, k)
	if got != 1 {
		return got
	}
	for r := 0; r < 3; r++ {
		if c := byteAt(t, end); c != ' ' && c != '-' {
			break
		}
		e, got := rueWord(t, end+1)
		if got < 0 {
			return -1
		}
		if got == 0 {
			break
		}
		end = e
	}
	m[0], m[1] = p, end
	return 1
}

// rueWord is a name word at k, a letter and one or more of
// [\wÀ-ÿ'’.-]: its end and 1, or 0 where none is, -1 at a byte above 0x7f.
func rueWord(t string, k int) (int, int) {
	c := byteAt(t, k)
	if c >= 0x80 {
		return 0, -1
	}
	if !isLetter(c) {
		return 0, 0
	}
	e := k + 1
	for e < len(t) && (asciiWord[t[e]] || t[e] == '\'' || t[e] == '.' || t[e] == '-') {
		e++
	}
	if e < len(t) && t[e] >= 0x80 {
		return 0, -1
	}
	if e == k+1 {
		return 0, 0
	}
	return e, 1
}

package detect

import (
	"math/bits"
	"sort"
)

// triggerTrie finds the rules' trigger words where a word can begin. The
// keyword-anchored rules all start with \b (or, for key names, a quote or
// \b), so a trigger word that begins inside a run of ASCII letters, digits
// or underscores can never start a match: only the first byte of such a
// run, and bytes outside runs, are tried. A walk from one position follows
// a trie (not an automaton with fail links) and stops at the first byte no
// word continues with, usually after one or two bytes. ASCII case is
// folded by the byte classes, so the text needs no lowered copy.
// TestTriggerWordsStartWords checks the rules this relies on, and the
// differential test holds the result to the plain expressions.
type triggerTrie struct {
	class  [256]uint8 // byte -> class; 0: no word holds the byte
	nclass int
	next   []uint16  // state*nclass + class -> state (| outMark where words end); 0: no word goes on
	out    [][]int32 // per state: the words ending there
	first  [256]bool // bytes a word can begin with
	// short is set when a word has one byte: the prefix filter is off.
	short bool
	// The prefix filter hashes the text's first three and four bytes, each
	// byte's 0x20 bit set: that folds ASCII case, so one lookup serves
	// every case. prefix3[0] has a bit for the three bytes every word
	// begins with (a two-byte word: with any third byte), prefix3[1] for
	// those of words of two or three bytes, which pass on it alone; prefix4
	// has a bit for the four bytes longer words begin with. (Two arrays,
	// not pairs: a word's index scales by eight in the load itself.) The
	// first two bytes choose a prefix3 word and the third a bit in it
	// (hash3), so that a two-byte word fills one word of each, not 256
	// bits strewn over them that other words then pass on.
	prefix3 [2][1 << prefix3Bits]uint64
	prefix4 [1 << prefix4Bits / 64]uint64
	kind    [256]uint8 // the class pass's byte kinds (byteKinds)
	// The words again, for triggersAt to compare a word at a time instead
	// of walking the trie a byte at a time: those of two or three bytes
	// filed by hash3's word of their first two bytes, the longer ones by
	// hash4 of their first four (prefix4's bits), each bucket in the order
	// the walk files them (by length, then id). A bucket's words are
	// bucket[start[r]:start[r+1]], r its rank among the set bits.
	shortBits  [1 << prefix3Bits / 64]uint64
	shortRank  [1 << prefix3Bits / 64]uint16
	shortStart []uint16
	shortWords []trigWord
	longRank   [1 << prefix4Bits / 64]uint16
	longStart  []uint16
	longWords  []trigWord
}

// trigWord is a trigger word as triggersAt compares it: its first sixteen
// bytes, ASCII case folded, in two little-endian words with masks of the
// bytes it has, and the folded bytes past sixteen.
type trigWord struct {
	w, m [2]uint64
	rest string
	n    int32
	id   int32
}

// prefix4Bits sizes prefix4: a few hundred words, so a bit in a hundred
// is set. prefix3Bits sizes prefix3: a word for each hash of two bytes.
const (
	prefix4Bits = 14
	prefix3Bits = 10
)

// maybe reports whether a word can begin with the bytes of v (eight bytes
// of the text, little-endian, zeros past its end), judged by the first
// three, then four: most word starts fail it, and the walk is skipped.
func (t *triggerTrie) maybe(v uint64) bool {
	w, b := hash3(uint32(v))
	return t.prefix3[0][w]&(1<<(b&63)) != 0 && (t.prefix3[1][w]&(1<<(b&63)) != 0 || t.maybe4(uint32(v)))
}

// maybe4 is the second half of maybe: the first four bytes, x.
func (t *triggerTrie) maybe4(x uint32) bool {
	g := hash4(x)
	return t.prefix4[g>>6]&(1<<(g&63)) != 0
}

// hash3 hashes the first three bytes of the little-endian x, case folded:
// the first two to a prefix3 word, w, the third to a bit in it, b's low
// six bits.
func hash3(x uint32) (w, b uint32) {
	x |= 0x202020
	return uint32(uint16(x)) * 0x9e3779b1 >> (32 - prefix3Bits), x >> 16
}

// hash4 hashes the four bytes of x, case folded, to prefix4Bits bits.
func hash4(x uint32) uint32 {
	return (x | 0x20202020) * 0x9e3779b1 >> (32 - prefix4Bits)
}

// asciiWord marks the bytes of Go's ASCII \w.
var asciiWord = func() (t [256]bool) {
	for c := 0; c < 256; c++ {
		t[c] = c < 0x80 && isWordByte(byte(c))
	}
	return t
}()

func foldASCII(c byte) byte {
	if isUpper(c) {
		return c + 32
	}
	return c
}

func newTriggerTrie(words []string) *triggerTrie {
	t := &triggerTrie{nclass: 1}
	for _, w := range words {
		for i := 0; i < len(w); i++ {
			c := foldASCII(w[i])
			if t.class[c] == 0 {
				t.class[c] = uint8(t.nclass)
				t.nclass++
			}
		}
	}
	for c := 'A'; c <= 'Z'; c++ {
		t.class[c] = t.class[c+32]
	}
	size := trieSize(words)
	if size >= outMark {
		panic("agentleak: too many trigger word states for the trie's table")
	}
	t.next = make([]uint16, size*t.nclass)
	t.out = make([][]int32, 1, size)
	t.insert(words)
	for k, v := range t.next {
		if v != 0 && len(t.out[v]) > 0 {
			t.next[k] |= outMark
		}
	}
	for _, w := range words {
		t.first[w[0]] = true
		t.first[foldASCII(w[0])] = true
		if isLower(w[0]) {
			t.first[w[0]-32] = true
		}
		if len(w) < 2 {
			t.short = true
			continue
		}
		x := uint32(w[0]) | uint32(w[1])<<8
		switch {
		case len(w) == 2:
			for c := 0; c < 256; c++ {
				t.addPrefix3(x|uint32(c)<<16, 2)
			}
		case len(w) == 3:
			t.addPrefix3(x|uint32(w[2])<<16, 2)
		default:
			t.addPrefix3(x|uint32(w[2])<<16, 1)
			g := hash4(x | uint32(w[2])<<16 | uint32(w[3])<<24)
			t.prefix4[g>>6] |= 1 << (g & 63)
		}
	}
	if t.short {
		for k := range t.prefix3 {
			for w := range t.prefix3[k] {
				t.prefix3[k][w] = ^uint64(0)
			}
		}
	}
	t.kind = byteKinds(&t.first)
	t.buildBuckets(words)
	return t
}

// addPrefix3 files three bytes a word begins with: in prefix3[0] and,
// when the word has at most three bytes (words > 1), in prefix3[1].
func (t *triggerTrie) addPrefix3(x uint32, words int) {
	w, b := hash3(x)
	for k := 0; k < words; k++ {
		t.prefix3[k][w] |= 1 << (b & 63)
	}
}

// outMark flags a transition into a state where words end.
const outMark = 1 << 15

// insert adds the words level by level, so that states are numbered
// breadth first: the states of the first two bytes, where almost every walk
// ends, share a few kilobytes of the table.
func (t *triggerTrie) insert(words []string) {
	cur := make([]int, len(words))
	for d := 0; ; d++ {
		more := false
		for id, w := range words {
			if d >= len(w) {
				continue
			}
			more = true
			k := cur[id]*t.nclass + int(t.class[w[d]])
			if t.next[k] == 0 {
				t.next[k] = uint16(len(t.out))
				t.out = append(t.out, nil)
			}
			cur[id] = int(t.next[k])
			if d == len(w)-1 {
				t.out[cur[id]] = append(t.out[cur[id]], int32(id))
			}
		}
		if !more {
			return
		}
	}
}

// trieSize counts the states of the words' trie (the root and one per
// distinct prefix, ASCII case folded), so that its table is allocated once.
func trieSize(words []string) int {
	folded := make([]string, len(words))
	for i, w := range words {
		folded[i] = string(LowerASCII(nil, w))
	}
	sort.Strings(folded)
	n, prev := 1, ""
	for _, w := range folded {
		k := 0
		for k < len(w) && k < len(prev) && w[k] == prev[k] {
			k++
		}
		n += len(w) - k
		prev = w
	}
	return n
}

// buildBuckets files the words for triggersAt (triggerTrie.shortWords and
// longWords). A trie with a word of one byte keeps none: triggersAt then
// walks it.
func (t *triggerTrie) buildBuckets(words []string) {
	if t.short {
		return
	}
	short := map[uint32][]trigWord{}
	long := map[uint32][]trigWord{}
	for id, w := range words {
		f := LowerASCII(nil, w)
		var tw trigWord
		tw.n, tw.id = int32(len(w)), int32(id)
		for k := 0; k < len(f) && k < 16; k++ {
			tw.w[k/8] |= uint64(f[k]) << (8 * (k % 8))
			tw.m[k/8] |= 0xff << (8 * (k % 8))
		}
		if len(f) > 16 {
			tw.rest = string(f[16:])
		}
		x := uint32(w[0]) | uint32(w[1])<<8
		if len(w) < 4 {
			h, _ := hash3(x)
			t.shortBits[h>>6] |= 1 << (h & 63)
			short[h] = append(short[h], tw)
		} else {
			h := hash4(x | uint32(w[2])<<16 | uint32(w[3])<<24)
			long[h] = append(long[h], tw)
		}
	}
	t.shortStart, t.shortWords = fileBuckets(t.shortBits[:], t.shortRank[:], short)
	t.longStart, t.longWords = fileBuckets(t.prefix4[:], t.longRank[:], long)
}

// fileBuckets lays out the buckets of set's bits in the order of their hashes,
// each sorted by length, then id, and fills rank with the number of set
// bits before each word of set.
func fileBuckets(set []uint64, rank []uint16, buckets map[uint32][]trigWord) (start []uint16, all []trigWord) {
	n := 0
	for k, b := range set {
		rank[k] = uint16(n)
		for ; b != 0; b &= b - 1 {
			h := uint32(k<<6 | bits.TrailingZeros64(b))
			ws := buckets[h]
			sort.Slice(ws, func(i, j int) bool {
				if ws[i].n != ws[j].n {
					return ws[i].n < ws[j].n
				}
				return ws[i].id < ws[j].id
			})
			start = append(start, uint16(len(all)))
			all = append(all, ws...)
			n++
		}
	}
	start = append(start, uint16(len(all)))
	return start, all
}

package detect

import "testing"

// TestLetterEnd holds letterEnd to the byte loop it replaces at every
// position of texts whose bytes sit at the edges of the letter ranges
// ('@', '[', '`', '{', a byte above 0x7f), in runs shorter and longer
// than eight.
func TestLetterEnd(t *testing.T) {
	ref := func(s string, i int) int {
		for i < len(s) && isLetter(s[i]) {
			i++
		}
		return i
	}
	texts := []string{
		"", "a", "Password: x", "abcdefghABCDEFGHz@", "AZaz[`{@_ 9",
		"streetnameislongerthaneight\x80x", "ZZZZZZZZZZZZZZZZ", "key\x7fvalue\xffmore",
		"éléphant Avenue", "api_key=", "abcdefg\x00hij",
	}
	for c := 0; c < 256; c++ {
		texts = append(texts, "abcdefg"+string([]byte{byte(c)})+"hijklmnop", "ab"+string([]byte{byte(c)}))
	}
	for _, s := range texts {
		for i := 0; i <= len(s); i++ {
			if got, want := letterEnd(s, i), ref(s, i); got != want {
				t.Fatalf("letterEnd(%q, %d) = %d, want %d", s, i, got, want)
			}
		}
	}
}

// TestAlnumUpperRun holds alnumUpperRun to the byte table at every
// position of runs of capitals and digits broken by each byte.
func TestAlnumUpperRun(t *testing.T) {
	ref := func(s string, i int) int {
		n := i
		for n < len(s) && alnumUpper[s[n]] {
			n++
		}
		return n - i
	}
	texts := []string{"", "GB82WEST12345698765432", "DE89370400440532013000 x", "AZ09@[/:`z"}
	for c := 0; c < 256; c++ {
		texts = append(texts, "AB12CDE"+string([]byte{byte(c)})+"FGH456789XYZ", "Z9"+string([]byte{byte(c)}))
	}
	for _, s := range texts {
		for i := 0; i <= len(s); i++ {
			if got, want := alnumUpperRun(s, i), ref(s, i); got != want {
				t.Fatalf("alnumUpperRun(%q, %d) = %d, want %d", s, i, got, want)
			}
		}
	}
}

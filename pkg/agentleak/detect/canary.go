package detect

import "strings"

// commonBytes lists bytes from the most to the least frequent in English
// prose and the JSON-like tool output of agent traces (letter order of
// English text, then punctuation, digits, capitals and the rest). Bytes not
// listed (other punctuation, control bytes) are rarer still. It is fixed:
// the texts a vault's canaries will be searched in are unknown when the
// vault is prepared, and a canary's rarest byte in ordinary text is a far
// better place to start a search than its first byte, which is often a
// common letter.
const commonBytes = " etaonisrhldcum\"',gyp.f:0wb\n12vk=-\\_ITSAMNCP345{}jF6REBJ@9()x78ODHL[]Gz!q><WY/?UKZV#%$Q+;&*|^~`\t\r"

// byteRarity is how rare a byte is in ordinary text: 0 for the most
// common, larger for rarer. Non-ASCII bytes (UTF-8 sequences) rank with
// the rarer capitals: they are common in some languages' text and absent
// from others'.
var byteRarity = func() (r [256]uint8) {
	for i := range r {
		r[i] = 255
	}
	for b := 0x80; b < 0x100; b++ {
		r[b] = uint8(strings.IndexByte(commonBytes, 'G'))
	}
	for i := 0; i < len(commonBytes); i++ {
		r[commonBytes[i]] = uint8(i)
	}
	return r
}()

// CanaryProbe is where a canary's search starts: at its rarest byte (at
// offset at), checking its second rarest (at offset at2) before comparing
// the whole canary. It is built once per canary when the vault is
// prepared.
type CanaryProbe struct {
	Rare, Rare2 byte
	At, At2     int32
}

// NewCanaryProbe picks the probe bytes of canary c (of any length).
func NewCanaryProbe(c string) CanaryProbe {
	if c == "" {
		return CanaryProbe{}
	}
	at, at2 := 0, -1
	for i := 1; i < len(c); i++ {
		switch r := byteRarity[c[i]]; {
		case r > byteRarity[c[at]]:
			at, at2 = i, at
		case at2 < 0 || r > byteRarity[c[at2]]:
			at2 = i
		}
	}
	if at2 < 0 {
		at2 = at // one byte
	}
	return CanaryProbe{Rare: c[at], Rare2: c[at2], At: int32(at), At2: int32(at2)}
}

// CanaryFrom reports whether canary c, with probe p, occurs in s, given
// that i is the first place where the rarest byte of an occurrence may be
// (the first p.rare in s at or after p.at).
func CanaryFrom(s, c string, p *CanaryProbe, i int) bool {
	n, k, k2 := len(c), int(p.At), int(p.At2)
	end := len(s) - n + k + 1
	for fails := 1; ; fails++ {
		j := i - k
		if s[j+k2] == p.Rare2 && s[j:j+n] == c {
			return true
		}
		// Text full of the canary's rarest byte: the runtime's search
		// (which changes method on many false starts) bounds the work.
		if i++; fails > 4+i>>4 {
			return strings.Contains(s[j+1:], c)
		}
		o := strings.IndexByte(s[i:end], p.Rare)
		if o < 0 {
			return false
		}
		i += o
	}
}

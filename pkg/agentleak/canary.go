package agentleak

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

// canaryProbe is where a canary's search starts: at its rarest byte (at
// offset at), checking its second rarest (at offset at2) before comparing
// the whole canary. It is built once per canary when the vault is
// prepared.
type canaryProbe struct {
	rare, rare2 byte
	at, at2     int32
}

// canaryHits returns a set of at most 64 canaries.
const _ = uint(64 - fewCanaries)

// newCanaryProbe picks the probe bytes of canary c (of any length).
func newCanaryProbe(c string) canaryProbe {
	if c == "" {
		return canaryProbe{}
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
	return canaryProbe{rare: c[at], rare2: c[at2], at: int32(at), at2: int32(at2)}
}

// canaryFrom reports whether canary c, with probe p, occurs in s, given
// that i is the first place where the rarest byte of an occurrence may be
// (the first p.rare in s at or after p.at).
func canaryFrom(s, c string, p *canaryProbe, i int) bool {
	n, k, k2 := len(c), int(p.at), int(p.at2)
	end := len(s) - n + k + 1
	for fails := 1; ; fails++ {
		j := i - k
		if s[j+k2] == p.rare2 && s[j:j+n] == c {
			return true
		}
		// Text full of the canary's rarest byte: the runtime's search
		// (which changes method on many false starts) bounds the work.
		if i++; fails > 4+i>>4 {
			return strings.Contains(s[j+1:], c)
		}
		o := strings.IndexByte(s[i:end], p.rare)
		if o < 0 {
			return false
		}
		i += o
	}
}

// canaryHits returns the canaries of v (at most 64: fewCanaries) that occur in s, as a
// set of their indexes in v.canaryList: bit id is set when
// strings.Contains(s, v.canaryList[id].text). Each canary is searched by
// the runtime's byte search for its rarest byte rather than its first
// (often a common letter), and the search's first call is made here: most
// texts hold no rarest byte of a canary, and their search is that call.
func (v *Vault) canaryHits(s string) (hits uint64) {
	for id := range v.canaryList {
		c := &v.canaryList[id]
		// The rarest byte of an occurrence starting at j is at j+k, for j
		// in [0, len(s)-len(c.text)].
		k := int(c.probe.at)
		end := len(s) - len(c.text) + k + 1
		if end <= k || end > len(s) {
			if c.text == "" {
				hits |= 1 << id
			}
			continue
		}
		if o := strings.IndexByte(s[k:end], c.probe.rare); o >= 0 && canaryFrom(s, c.text, &c.probe, k+o) {
			hits |= 1 << id
		}
	}
	return hits
}

package agentleak

import (
	"strings"

	"github.com/lfcli/lf/pkg/agentleak/detect"
)

// canaryHits returns a set of at most 64 canaries.
const _ = uint(64 - fewCanaries)

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
		k := int(c.probe.At)
		end := len(s) - len(c.text) + k + 1
		if end <= k || end > len(s) {
			if c.text == "" {
				hits |= 1 << id
			}
			continue
		}
		if o := strings.IndexByte(s[k:end], c.probe.Rare); o >= 0 && detect.CanaryFrom(s, c.text, &c.probe, k+o) {
			hits |= 1 << id
		}
	}
	return hits
}

package tracefile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"unicode/utf8"
	"unsafe"

	"github.com/lfcli/lf/pkg/internal/jsonlex"
)

// syntheticTraces is nTraces generated traces of eight events each, on
// every channel, as JSONL; seed makes them reproducible.
func syntheticTraces(nTraces int, seed int64) []byte {
	rng := rand.New(rand.NewSource(seed))
	words := []string{"alpha", "bravo", "cedar", "delta", "ember", "fjord", "garnet", "harbor", "indigo", "juniper", "kestrel", "lumen", "marlow", "nectar", "onyx", "pylon", "quartz", "raven", "sable", "tundra"}
	var tb bytes.Buffer
	enc := json.NewEncoder(&tb)
	for t := 0; t < nTraces; t++ {
		tr := map[string]any{"run_id": fmt.Sprintf("syn_%05d", t), "agent_name": "synthetic", "scenario_id": "synthetic"}
		var evs []map[string]any
		for e := 0; e < 8; e++ {
			var sb bytes.Buffer
			for w := 0; w < 40; w++ {
				sb.WriteString(words[rng.Intn(len(words))])
				sb.WriteByte(' ')
				if rng.Intn(25) == 0 {
					fmt.Fprintf(&sb, "%s-%s-%05d \"q\"\n caf\u00e9 ", words[rng.Intn(len(words))], words[rng.Intn(len(words))], rng.Intn(50))
				}
			}
			evs = append(evs, map[string]any{"event_id": fmt.Sprintf("evt_%03d", e+1), "channel": Channels[e%len(Channels)], "source": "a", "target": "b", "content": sb.String()})
		}
		tr["events"] = evs
		_ = enc.Encode(tr)
	}
	return tb.Bytes()
}

// noteText is the text of e read the way the AgentLeak scanner reads it
// (agentleak's Scanner.eventText, whose own test holds it to this): it
// trusts the decoder's note (Known, Decoded) instead of searching Content.
func noteText(e *Event) (string, error) {
	raw := e.Content
	if fl := e.Known(); fl&ContentStr != 0 {
		if fl&ContentEsc == 0 {
			if fl&ContentHigh == 0 || utf8.Valid(raw) {
				return string(raw[1 : len(raw)-1]), nil
			}
		} else if fl&ContentDec != 0 {
			dec, decN := e.Decoded()
			if out := unsafe.Slice((*byte)(dec), decN); fl&ContentHigh == 0 || utf8.Valid(out) {
				return string(out), nil
			}
		} else if out, ok := jsonlex.UnquoteTo(nil, raw); ok && (fl&ContentHigh == 0 || utf8.Valid(out)) {
			return string(out), nil
		}
	}
	return EventText(raw, nil)
}

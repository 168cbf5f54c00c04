package agentleak

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
)

// SyntheticVaultSet generates one vault (key "synthetic") with nValues field
// values and nTraces traces for it whose events quote some of those values
// among ordinary prose; seed makes it reproducible. It returns the vault file,
// the traces as JSONL and the number of events. Used by the benchmarks and
// the generator.
func SyntheticVaultSet(nValues, nTraces int, seed int64) (vaultYAML, traces []byte, events int) {
	rng := rand.New(rand.NewSource(seed))
	words := []string{"alpha", "bravo", "cedar", "delta", "ember", "fjord", "garnet", "harbor", "indigo", "juniper", "kestrel", "lumen", "marlow", "nectar", "onyx", "pylon", "quartz", "raven", "sable", "tundra"}
	values := make([]string, nValues)
	var vb bytes.Buffer
	vb.WriteString("vaults:\n  - key: synthetic\n    records:\n      - record_type: synthetic\n        fields:\n")
	for i := range values {
		values[i] = fmt.Sprintf("%s-%s-%05d", words[rng.Intn(len(words))], words[rng.Intn(len(words))], i)
		fmt.Fprintf(&vb, "          field_%05d: {value: %q, level: %d}\n", i, values[i], 1+rng.Intn(4))
	}
	vb.WriteString("    canaries:\n      obvious: [\"CANARY-SYN-0001\"]\n")
	channels := Channels
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
					sb.WriteString(values[rng.Intn(len(values))])
					sb.WriteByte(' ')
				}
			}
			evs = append(evs, map[string]any{"event_id": fmt.Sprintf("evt_%03d", e+1), "channel": channels[e%len(channels)], "source": "a", "target": "b", "content": sb.String()})
			events++
		}
		tr["events"] = evs
		_ = enc.Encode(tr)
	}
	return vb.Bytes(), tb.Bytes(), events
}

package tracefile

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"testing"
)

// The hand-written decoder and encoding/json agree on every trace they both
// accept.
func FuzzDecodeTrace(f *testing.F) {
	f.Add([]byte(`{"run_id": "a", "scenario_id": "s", "events": [{"channel": "log", "content": {"k": [1, "x\n"]}, "metadata": {}}]}`))
	f.Add([]byte(`{"run_id": "a\u00e9", "events": [{"event_id": 7}]}`))
	f.Add([]byte(`{"events": null, "x": [true, false, null, -1.5e3]}`))
	f.Add([]byte("{\"run_id\": \"a\xff\xfe\", \"scenario_id\": \"\\u00e9\xc3\"}"))
	if data, err := os.ReadFile("../../../project/agentleak/traces.jsonl"); err == nil {
		for _, l := range bytes.Split(data, []byte("\n"))[:3] {
			f.Add(l)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var fast Trace
		ok := fastDecodeTrace(append([]byte(nil), data...), &fast, &[]Event{{EventID: "stale"}})
		var slow Trace
		err := json.Unmarshal(data, &slow)
		if ok && err != nil {
			t.Fatalf("fast decoder accepted what encoding/json rejects (%v): %q", err, data)
		}
		if ok {
			if fast.RunID != slow.RunID || fast.ScenarioID != slow.ScenarioID || len(fast.Events) != len(slow.Events) {
				t.Fatalf("decoders disagree on %q: %+v vs %+v", data, fast, slow)
			}
			for i := range fast.Events {
				a, b := fast.Events[i], slow.Events[i]
				if a.Channel != b.Channel || a.EventID != b.EventID || !bytes.Equal(a.Content, b.Content) {
					t.Fatalf("event %d differs: %+v vs %+v", i, a, b)
				}
			}
		}
		// Whatever the input, reading never panics.
		tr := NewTraceReader("f", bytes.NewReader(data))
		for i := 0; i < 10; i++ {
			if _, err := tr.Next(); err == io.EOF {
				break
			}
		}
	})
}

package agentleak

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/lfcli/lf/pkg/agentleak/tracefile"
)

// TestTransientJobMatches: a one-worker job told that OnResult keeps
// nothing (Transient: it reads through one reused block) renders the same
// lines and collects the same metrics as one that is not, on an input of
// many blocks; the collected ids are copies, not views into reused lines.
// leakChannels are the channels TestTransientJobMatches leaks on.
var leakChannels = []string{"final_output", "tool_call", "log", "inter_agent_message", "tool_response", "shared_memory"}

func TestTransientJobMatches(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	var b, vy strings.Builder
	vy.WriteString("vaults:\n")
	for i := 0; b.Len() < 6*tracefile.BlockSize; i++ {
		if i%5 == 2 {
			// No run id: a reused trace must not keep the last one.
			fmt.Fprintf(&b, `{"scenario_id": "s%d", "events": [`, i)
		} else {
			fmt.Fprintf(&b, `{"scenario_id": "s%d", "run_id": "r%d", "events": [`, i, i)
		}
		for k := 0; k <= i%3; k++ {
			if k > 0 {
				b.WriteString(", ")
			}
			// Every other trace leaves event_id out: a decoded event must
			// not keep an earlier trace's.
			if i%2 == 0 {
				fmt.Fprintf(&b, `{"event_id": "e%d-%d", `, i, k)
			} else {
				b.WriteString("{")
			}
			// Every third content has escapes: its findings' values are
			// copied out of the scanner's reused text.
			esc := ""
			if (i+k)%3 == 0 {
				esc = `\n\"quoted\"\t`
			}
			// The vault's values leak on a channel of their own per
			// trace and event, or not at all: a reused result's channel
			// risks, vault summary and block reasons must not keep an
			// earlier trace's.
			ch := leakChannels[(i+k)%len(leakChannels)]
			leak := ""
			if (i+k)%5 != 4 {
				leak = fmt.Sprintf(" ward Westwing %d, CANARY-%d", i%7, i%5)
			}
			if i%6 == 5 {
				// Nothing leaks: no channel risks at all.
				fmt.Fprintf(&b, `"channel": %q, "content": "nothing to report%s %s"}`, ch, esc, strings.Repeat("z", (i*131)%5000))
				continue
			}
			fmt.Fprintf(&b, `"channel": %q, "content": "call 555-123-%04d%s or mail user%d@example.com, 555-987-%04d%s %s"}`, ch, (i+k)%10000, esc, i, i%10000, leak, strings.Repeat("z", (i*131)%5000))
		}
		b.WriteString("]}\n")
		// Every fourth trace has no vault.
		if i%4 != 3 {
			fmt.Fprintf(&vy, "  - key: s%d\n    records:\n      - record_type: r\n        fields:\n          ward: {value: Westwing %d, level: %d}\n          other: never seen\n    canaries:\n      obvious: [CANARY-%d]\n", i, i%7, 1+i%4, i%3)
		}
	}
	vs, ds := ParseVaults("v.yaml", []byte(vy.String()))
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(transient bool) (string, *Summary) {
		var out bytes.Buffer
		var kept []*Result
		job := &Job{
			Scanner: NewScanner(nil, vs), Workers: 1, Collect: true, Transient: transient,
			Render: func(r *Result, dst []byte) []byte {
				RedactFindings(r, r.Events%2 == 0)
				return append(r.AppendJSON(dst), '\n')
			},
			OnResult: func(r *Result) error {
				out.Write(r.Output)
				if !transient {
					kept = append(kept, r)
				}
				return nil
			},
		}
		sum, err := job.Run(context.Background(), []Input{{Path: path, Display: path}})
		if err != nil {
			t.Fatal(err)
		}
		if !transient {
			// Without the promise a result stays valid after OnResult.
			var again []byte
			for _, r := range kept {
				again = append(r.AppendJSON(again), '\n')
			}
			if string(again) != out.String() {
				t.Errorf("results kept past OnResult changed")
			}
		}
		return out.String(), sum
	}
	want, wantSum := run(false)
	got, gotSum := run(true)
	if got != want {
		t.Errorf("transient output differs from the usual one")
	}
	if !reflect.DeepEqual(gotSum, wantSum) {
		t.Errorf("transient summary differs from the usual one")
	}
	if wantSum.Traces < 100 || !strings.Contains(want, `"phone_number"`) || !strings.Contains(want, `"leaks_by_channel"`) ||
		!strings.Contains(want, `"block_reasons"`) || !strings.Contains(want, `"ri_by_channel":{}`) || !strings.Contains(want, `"ri_by_channel":{"log"`) {
		t.Fatalf("the input did not exercise the scan: %d traces", wantSum.Traces)
	}
}

package agentrisk

import (
	"bufio"
	"bytes"
	"math/rand"
	"os"
	"reflect"
	"strings"
	"testing"
)

// fastCorpus is odd and ordinary event lines: each must decode the same
// through the fast decoder (when it takes the line) as through decodeEvent.
var fastCorpus = []string{
	`{"timestamp":"2026-04-16T10:00:00Z","tenant_id":"t","agent_id":"a"}`,
	`{"timestamp":"2026-04-16T10:00:00.5Z","tenant_id":"t","agent_id":"a","injection_score":0.5}`,
	`{"timestamp":"2026-04-16T10:00:00.123456789Z","tenant_id":"t","agent_id":"a","injection_score":1}`,
	`{"timestamp":"2026-04-16T10:00:00.1234567891Z","tenant_id":"t","agent_id":"a"}`,
	`{"timestamp":"2026-04-16T10:00:00+02:00","tenant_id":"t","agent_id":"a"}`,
	`{"timestamp":"2026-04-16T10:60:00Z","tenant_id":"t","agent_id":"a"}`,
	`{"timestamp":"2026-02-30T10:00:00Z","tenant_id":"t","agent_id":"a"}`,
	`{"timestamp":"2026-04-16t10:00:00z","tenant_id":"t","agent_id":"a"}`,
	`{"timestamp":"2026-04-16T24:00:00Z","tenant_id":"t","agent_id":"a"}`,
	`{"timestamp":"2026-04-16T10:00:00.Z","tenant_id":"t","agent_id":"a"}`,
	`{"timestamp":"2026-04-16T10:00:00Z","tenant_id":"t","agent_id":"a","injection_score":0.123456789012345678}`,
	`{"timestamp":"2026-04-16T10:00:00Z","tenant_id":"t","agent_id":"a","injection_score":1e-3}`,
	`{"timestamp":"2026-04-16T10:00:00Z","tenant_id":"t","agent_id":"a","injection_score":0.0004}`,
	`{"timestamp":"2026-04-16T10:00:00Z","tenant_id":"t","agent_id":"a","injection_score":-0}`,
	`{"timestamp":"2026-04-16T10:00:00Z","tenant_id":"t","agent_id":"a","injection_score":1.5}`,
	`{"timestamp":"2026-04-16T10:00:00Z","tenant_id":"t","agent_id":"a","injection_score":01}`,
	`{"timestamp":"2026-04-16T10:00:00Z","tenant_id":"t","agent_id":"a","injection_score":null}`,
	`{"timestamp":"2026-04-16T10:00:00Z","tenant_id":"t","agent_id":"a","high_impact":true,"decision":"deny","rule":"r1"}`,
	`{"timestamp":"2026-04-16T10:00:00Z","tenant_id":"t","agent_id":"a","high_impact":"yes"}`,
	`{"timestamp":"2026-04-16T10:00:00Z","tenant_id":"t","agent_id":"a","decision":"maybe"}`,
	`{"timestamp":"2026-04-16T10:00:00Z","tenant_id":"t","agent_id":"a","decision":""}`,
	`{"timestamp":"2026-04-16T10:00:00Z","tenant_id":"t","agent_id":"a","tool":"read_file","resource":"/docs/a.md","session_id":"s","method":"tools/call","request_id":"r","agent_name":"bot"}`,
	`{"timestamp":"2026-04-16T10:00:00Z","tenant_id":"t","agent_id":"a","tool":"caf\u00e9"}`,
	`{"timestamp":"2026-04-16T10:00:00Z","tenant_id":"t","agent_id":"a","tool":"café"}`,
	"{\"timestamp\":\"2026-04-16T10:00:00Z\",\"tenant_id\":\"t\",\"agent_id\":\"a\",\"tool\":\"bad\xff\"}",
	"{\"timestamp\":\"2026-04-16T10:00:00Z\",\"tenant_id\":\"t\",\"agent_id\":\"a\",\"tool\":\"tab\there\"}",
	`{"timestamp":"2026-04-16T10:00:00Z","tenant_id":"t","agent_id":"a","tool":"x","tool":"y"}`,
	`{"timestamp":"2026-04-16T10:00:00Z","tenant_id":"t","agent_id":"a","Tool":"upper"}`,
	`{"timestamp":"2026-04-16T10:00:00Z","tenant_id":"t","agent_id":"a","extra":1,"more":"x","flag":false,"nothing":null}`,
	`{"timestamp":"2026-04-16T10:00:00Z","tenant_id":"t","agent_id":"a","nested":{"x":1}}`,
	`{"timestamp":"2026-04-16T10:00:00Z","tenant_id":"t","agent_id":"a","list":[1,2]}`,
	`{"timestamp":"2026-04-16T10:00:00Z","tenant_id":" ","agent_id":"a"}`,
	`{"timestamp":"2026-04-16T10:00:00Z","tenant_id":"t/x","agent_id":"a"}`,
	`{"timestamp":"2026-04-16T10:00:00Z","tenant_id":"..","agent_id":"a"}`,
	`{"timestamp":"2026-04-16T10:00:00Z","tenant_id":"tenant-é","agent_id":"a"}`,
	`{"timestamp":"2026-04-16T10:00:00Z","tenant_id":"t","agent_id":"` + strings.Repeat("a", 129) + `"}`,
	`{"timestamp":"2026-04-16T10:00:00Z","tenant_id":"t","agent_id":""}`,
	`{"timestamp":"2026-04-16T10:00:00Z","tenant_id":"t"}`,
	`{"tenant_id":"t","agent_id":"a"}`,
	`  { "timestamp" : "2026-04-16T10:00:00Z" , "tenant_id" : "t" , "agent_id" : "a" }  `,
	`{"timestamp":"2026-04-16T10:00:00Z","tenant_id":"t","agent_id":"a"} x`,
	`{"timestamp":"2026-04-16T10:00:00Z","tenant_id":"t","agent_id":"a",}`,
	`{"timestamp":"2026-04-16T10:00:00Z","tenant_id":"t","agent_id":"a"`,
	`{}`,
	`[]`,
	`"x"`,
	`{"timestamp":1,"tenant_id":"t","agent_id":"a"}`,
}

// checkFastAgrees fails when the fast decoder takes line but gives another
// event than decodeEvent, or takes a line decodeEvent rejects.
func checkFastAgrees(t *testing.T, d *fastDecoder, line []byte) bool {
	t.Helper()
	var fast Event
	if !d.decode(line, &fast) {
		return false
	}
	slow, probs := decodeEvent(bytes.TrimSpace(line))
	if len(probs) > 0 {
		t.Errorf("fast decoder took a line decodeEvent rejects (%v): %s", probs, line)
		return true
	}
	if !fast.Timestamp.Equal(slow.Timestamp) || fast.Timestamp.Location() != slow.Timestamp.Location() {
		t.Errorf("timestamp %v, want %v: %s", fast.Timestamp, slow.Timestamp, line)
	}
	fs, ss := fast, slow
	fs.Timestamp, ss.Timestamp = slow.Timestamp, slow.Timestamp
	if (fs.InjectionScore == nil) != (ss.InjectionScore == nil) || (fs.InjectionScore != nil && *fs.InjectionScore != *ss.InjectionScore) {
		t.Errorf("injection score differs: %s", line)
	}
	fs.InjectionScore, ss.InjectionScore = nil, nil
	if !reflect.DeepEqual(fs, ss) {
		t.Errorf("fast %+v\nslow %+v\nline %s", fs, ss, line)
	}
	if string(eventHash(&fast)) != string(eventHash(&slow)) {
		t.Errorf("hashes differ: %s", line)
	}
	return true
}

func TestFastDecoderAgrees(t *testing.T) {
	for _, volatile := range []bool{false, true} {
		d := newFastDecoder(volatile)
		took := 0
		for _, line := range fastCorpus {
			if checkFastAgrees(t, d, []byte(line)) {
				took++
			}
		}
		if took < 10 {
			t.Errorf("the fast decoder took only %d of the corpus lines", took)
		}
	}
	// The bundled sample events all take the fast path.
	f, err := os.Open("../../project/agents/events.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	d := newFastDecoder(true)
	n := 0
	for sc.Scan() {
		n++
		if !checkFastAgrees(t, d, sc.Bytes()) {
			t.Fatalf("sample line %d not taken by the fast decoder: %s", n, sc.Text())
		}
	}
}

// Mutations of valid lines (a byte changed, dropped or doubled) must never
// make the decoders disagree.
func TestFastDecoderMutations(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	d := newFastDecoder(false)
	alphabet := []byte(`{}[]":,.-+eE0123456789 \tnultrfasxZT` + "\xff\x00")
	for i := 0; i < 20000; i++ {
		line := []byte(fastCorpus[r.Intn(len(fastCorpus))])
		switch pos := r.Intn(len(line)); r.Intn(3) {
		case 0:
			line[pos] = alphabet[r.Intn(len(alphabet))]
		case 1:
			line = append(line[:pos], line[pos+1:]...)
		default:
			line = append(line[:pos+1], line[pos:]...)
		}
		checkFastAgrees(t, d, line)
	}
}

func FuzzFastDecoder(f *testing.F) {
	for _, line := range fastCorpus {
		f.Add([]byte(line))
	}
	d := newFastDecoder(false)
	f.Fuzz(func(t *testing.T, line []byte) {
		checkFastAgrees(t, d, line)
	})
}

package agentrisk

import (
	"bytes"
	"fmt"
	"os"
	"testing"
)

// BenchmarkScanEventsFile reads an events file as `lf agents ingest` does
// (the fast line decoder, volatile events), without storing them: the
// decoding alone. LF_BENCH_EVENTS names a JSONL file (`lfgen agent-events`);
// without it, 20,000 lines of that shape are made up.
func BenchmarkScanEventsFile(b *testing.B) {
	data := benchEventLines(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		if errs := scanEvents("bench", bytes.NewReader(data), true, func(*Event) error { n++; return nil }); len(errs) > 0 || n == 0 {
			b.Fatalf("%d events, %v", n, errs)
		}
	}
}

func benchEventLines(b *testing.B) []byte {
	if p := os.Getenv("LF_BENCH_EVENTS"); p != "" {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		return data
	}
	var buf bytes.Buffer
	for i := 0; i < 20000; i++ {
		fmt.Fprintf(&buf, `{"timestamp":"2026-04-09T14:%02d:%02dZ","tenant_id":"tenant-%03d","agent_id":"agt_%05d","agent_name":"bot-%05d","session_id":"agt_%05d-s1","method":"tools/call","tool":"search_docs","decision":"allow","injection_score":0.%d,"request_id":"agt_%05d-r%d"}`+"\n",
			i/60%60, i%60, i%20, i%997, i%997, i%997, i%10, i%997, i)
	}
	return buf.Bytes()
}

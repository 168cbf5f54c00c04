package agentrisk

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestSampleGolden pins the scores, components and explanations of the
// bundled sample at SampleEnd, so that a formula change shows up as a diff.
// LF_UPDATE=1 rewrites testdata/sample.golden.json.
func TestSampleGolden(t *testing.T) {
	ctx := context.Background()
	e := openTest(t)
	f, err := os.Open(sampleEvents)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, d, err := e.IngestSources(ctx, []Source{{Name: "events.jsonl", R: f}}); err != nil || d.HasErrors() {
		t.Fatal(err, d)
	}
	if _, err := e.Recalculate(ctx, "", "", SampleEnd); err != nil {
		t.Fatal(err)
	}
	list, err := e.ListAll(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	var agents []AgentRisk
	for _, s := range list {
		r, err := e.GetForAgent(ctx, s.TenantID, s.AgentID)
		if err != nil {
			t.Fatal(err)
		}
		agents = append(agents, r)
	}
	got, _ := json.MarshalIndent(map[string]any{"listAll": list, "agents": agents}, "", "  ")
	got = append(got, '\n')
	golden := filepath.Join("testdata", "sample.golden.json")
	if os.Getenv("LF_UPDATE") == "1" {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (LF_UPDATE=1 go test ./pkg/agentrisk writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("sample scores differ from %s (LF_UPDATE=1 to accept):\n%s", golden, firstDiff(string(want), string(got)))
	}
}

func firstDiff(a, b string) string {
	al, bl := bytes.Split([]byte(a), []byte("\n")), bytes.Split([]byte(b), []byte("\n"))
	for i := 0; i < len(al) && i < len(bl); i++ {
		if !bytes.Equal(al[i], bl[i]) {
			return "line " + itoaDec(i+1) + ":\n- " + string(al[i]) + "\n+ " + string(bl[i])
		}
	}
	return "lengths differ"
}

func itoaDec(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

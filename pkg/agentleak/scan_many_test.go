package agentleak

import (
	"fmt"
	"strings"
	"testing"
)

// TestManyFindingsInOneEvent: past 32 findings an event's duplicates are
// found through a map; each data type and value is still reported once.
func TestManyFindingsInOneEvent(t *testing.T) {
	var b strings.Builder
	for r := 0; r < 2; r++ {
		for i := 0; i < 50; i++ {
			fmt.Fprintf(&b, "user%d@example.org, ", i)
		}
	}
	tr := &Trace{ScenarioID: "s", Events: []Event{{EventID: "e1", Channel: "final_output", Content: []byte(fmt.Sprintf("%q", b.String()))}}}
	res, err := NewScanner(nil, nil).Scan(tr)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, f := range res.Findings {
		seen[f.DataType+"="+f.Value]++
	}
	emails := 0
	for k, n := range seen {
		if n != 1 {
			t.Errorf("%s reported %d times", k, n)
		}
		if strings.HasPrefix(k, "email=") {
			emails++
		}
	}
	if emails != 50 {
		t.Errorf("%d emails, want 50", emails)
	}
}

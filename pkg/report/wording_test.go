package report

import (
	"bytes"
	"strings"
	"testing"
)

// TestSnapshotsCounted: an agent card counts its snapshots in good English
// ("1 snapshot", "5 snapshots").
func TestSnapshotsCounted(t *testing.T) {
	for _, n := range []int{1, 5} {
		d := fixture()
		d.Agents[0].History = d.Agents[0].History[:n]
		var buf bytes.Buffer
		if err := WriteHTML(&buf, d); err != nil {
			t.Fatal(err)
		}
		want := map[int]string{1: ">1 snapshot<", 5: ">5 snapshots<"}[n]
		if !strings.Contains(buf.String(), want) {
			t.Errorf("%d snapshots: the card lacks %q", n, want)
		}
	}
}

// TestScorerCellsDoNotBreak: in the scorer table, keys, scores and level
// badges keep to one line however narrow the column (the table breaks long
// words elsewhere).
func TestScorerCellsDoNotBreak(t *testing.T) {
	s := string(render(t))
	for _, want := range []string{
		`td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}`,
		`td.key,th{white-space:nowrap;word-break:normal}`, `.pill{white-space:nowrap;`,
		`<td class="key"><code>privacy_agentleak</code></td>`,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("report lacks %q", want)
		}
	}
}

package cli_test

import (
	"encoding/json"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/lfcli/lf/pkg/internal/testfiles"
)

// TestReportDrillDownIsExplain runs the demo project and checks, for every
// risk scorer, that the HTML report's drill-down under its row is the
// document of lf explain risk-scorer KEY -o json (its runs' values with
// their risks, the aggregation, the score and level) and that its history
// chart has one dot per point of lf history risk-scorer KEY.
func TestReportDrillDownIsExplain(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "project")
	if err := os.CopyFS(dir, os.DirFS(filepath.Join(testfiles.RepoRoot(), "project"))); err != nil {
		t.Fatal(err)
	}
	lfIn(t, dir, "run", "-f", filepath.Join(dir, "run.yaml"))
	page := string(lfIn(t, dir, "report", "--out", "-"))
	var overview []struct {
		Key string `json:"key"`
	}
	if err := json.Unmarshal(lfIn(t, dir, "overview", "risk-scorers", "-o", "json"), &overview); err != nil {
		t.Fatal(err)
	}
	if len(overview) < 5 {
		t.Fatalf("the demo has %d risk scorers, want at least 5", len(overview))
	}
	for _, r := range overview {
		var e struct {
			Explanation struct {
				Values []struct {
					Run struct {
						EvaluationKey string `json:"evaluation_key"`
						ID            string `json:"id"`
					} `json:"run"`
					Task  string  `json:"task_specification_key"`
					Value float64 `json:"value"`
					Risk  float64 `json:"risk"`
				} `json:"values"`
				Aggregation struct {
					Formula string `json:"formula"`
				} `json:"aggregation"`
				Score *float64 `json:"score"`
				Level string   `json:"level"`
			} `json:"explanation"`
		}
		if err := json.Unmarshal(lfIn(t, dir, "explain", "risk-scorer", r.Key, "-o", "json"), &e); err != nil {
			t.Fatal(err)
		}
		x := e.Explanation
		m := regexp.MustCompile(`(?s)<details id="explain-` + regexp.QuoteMeta(r.Key) + `"><summary>(.*?)</summary>(.*?)</details>`).FindStringSubmatch(page)
		if m == nil {
			t.Fatalf("%s: no drill-down in the report", r.Key)
		}
		summary, body := html.UnescapeString(m[1]), html.UnescapeString(m[2])
		if want := fmt.Sprintf("why %s is %s: %s", r.Key, x.Level, x.Aggregation.Formula); summary != want {
			t.Errorf("%s: summary %q, want %q", r.Key, summary, want)
		}
		if x.Score == nil {
			t.Fatalf("%s: the demo scores every scorer", r.Key)
		}
		if want := fmt.Sprintf("score %s, level %s", strconv.FormatFloat(*x.Score, 'g', -1, 64), x.Level); !strings.Contains(body, want) {
			t.Errorf("%s: the drill-down lacks %q", r.Key, want)
		}
		rows := regexp.MustCompile(`<tr><td>([^<]*)</td><td>([^<]*)</td><td>[^<]*</td><td>[^<]*</td><td class="num">([^<]*)</td><td class="num">([^<]*)</td></tr>`).FindAllStringSubmatch(body, -1)
		if want := min(len(x.Values), 50); len(rows) != want {
			t.Fatalf("%s: %d value rows, want %d", r.Key, len(rows), want)
		}
		for i, row := range rows {
			v := x.Values[i]
			want := []string{v.Run.EvaluationKey + "/" + v.Run.ID, v.Task, strconv.FormatFloat(v.Value, 'g', -1, 64), strconv.FormatFloat(v.Risk, 'g', -1, 64)}
			if got := row[1:]; strings.Join(got, "|") != strings.Join(want, "|") {
				t.Fatalf("%s: value %d is %v in the report, %v in lf explain", r.Key, i, got, want)
			}
		}
		var h struct {
			RiskScorers []struct {
				Points []json.RawMessage `json:"points"`
			} `json:"risk_scorers"`
		}
		if err := json.Unmarshal(lfIn(t, dir, "history", "risk-scorer", r.Key, "-o", "json"), &h); err != nil {
			t.Fatal(err)
		}
		row := regexp.MustCompile(`(?s)<tr id="scorer-` + regexp.QuoteMeta(r.Key) + `">.*?</tr>`).FindString(page)
		if got, want := strings.Count(row, "<circle "), len(h.RiskScorers[0].Points); got != want || want == 0 {
			t.Errorf("%s: the history chart has %d dots, lf history %d points", r.Key, got, want)
		}
	}
}

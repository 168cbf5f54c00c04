package cli

import (
	"fmt"
	"strconv"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/output"
	"github.com/lfcli/lf/pkg/project"
	"github.com/lfcli/lf/pkg/risk"
	"github.com/lfcli/lf/pkg/store"
)

// trendFlags are the trend flags of lf overview risk-scorers.
func trendFlags() []ucli.Flag {
	return []ucli.Flag{
		&ucli.BoolFlag{Name: "trend", Usage: "add a trend column: rising, falling or steady against each scorer's previous point, and the change over --trend-window"},
		&ucli.StringFlag{Name: "trend-window", Usage: "the `WINDOW` of the trend's change, e.g. 24h, 7d, 2w (default 7d; implies --trend)"},
	}
}

// parseWindow reads a duration written as a whole number and a unit (s,
// m, h, d, w).
func parseWindow(flag, s string) (time.Duration, error) {
	if n := len(s); n >= 2 {
		if unit, ok := relUnits[s[n-1]]; ok {
			if k, err := strconv.ParseUint(s[:n-1], 10, 31); err == nil && k > 0 && int64(k) <= int64(200*365*24*time.Hour/unit) {
				return time.Duration(k) * unit, nil
			}
		}
	}
	return 0, diag.Usagef("--%s %q is not a window such as 24h, 7d or 2w", flag, s)
}

// overviewTrends computes the trend column when --trend or --trend-window
// asks for it (nil otherwise).
func overviewTrends(c *ucli.Context, st *store.Store, f project.OverviewFilter, res []risk.Result) (map[string]*project.Trend, error) {
	text := c.String("trend-window")
	if text == "" && !c.Bool("trend") {
		return nil, nil
	}
	if text == "" {
		text = "7d"
	}
	w, err := parseWindow("trend-window", text)
	if err != nil {
		return nil, err
	}
	return project.Trends(c.Context, st, f, res, w, text)
}

// trendRow is an overview row with its trend (json and yaml).
type trendRow struct {
	risk.Result
	Trend *project.Trend `json:"trend"`
}

// trendReport is lf overview risk-scorers with a trend column.
type trendReport struct {
	res     []risk.Result
	trends  map[string]*project.Trend
	caption string
}

func (t trendReport) Data() any {
	rows := make([]trendRow, 0, len(t.res))
	for _, r := range t.res {
		rows = append(rows, trendRow{Result: r, Trend: t.trends[r.Key]})
	}
	return rows
}

func (t trendReport) View() any {
	v := overviewReport{res: t.res}.View().(*output.TableView)
	v.Header = append(v.Header[:6:6], append([]string{"TREND"}, v.Header[6:]...)...)
	for i, r := range t.res {
		cell := "-"
		if tr := t.trends[r.Key]; tr != nil {
			if tr.Previous != nil {
				cell = tr.Previous.String()
			}
			if tr.Delta != nil {
				cell += fmt.Sprintf(" (%s: %+.2f)", tr.Window, *tr.Delta)
			}
		}
		row := v.Rows[i]
		v.Rows[i] = append(row[:6:6], append([]string{cell}, row[6:]...)...)
	}
	if t.caption == "" {
		return v
	}
	return output.Sections{lines(t.caption), v}
}

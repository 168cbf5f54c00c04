package report

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/lfcli/lf/pkg/risk"
)

// explainRows bounds the values (and the values left out) a scorer's
// drill-down lists; the rest are counted and `lf explain risk-scorer KEY`
// gives them all.
const explainRows = 50

// Chart sizes: a scorer's history in its table row, a domain's on its card.
const (
	scorerChartW, scorerChartH = 120, 28
	domainChartW, domainChartH = 300, 64
)

// scorerRow is a risk scorer's row of the table: its result, its history
// chart and its explanation.
type scorerRow struct {
	risk.Result
	Chart   historyChart
	Explain *explainView
}

// domainChart is a domain's card: its worst level now and its history.
type domainChart struct {
	Domain string
	Level  risk.Level
	Chart  historyChart
}

// historyChart is a small step chart of scores (0..10) over time: a line
// through the scored points and a dot per point in its level's colour.
type historyChart struct {
	W, H   int
	Line   string // polyline points; "" without two scored points
	Dots   []chartDot
	Title  string
	Points int
}

type chartDot struct {
	X, Y  float64
	Color string
	Title string
}

// chartPoint is one point of a history chart.
type chartPoint struct {
	At    time.Time
	Level risk.Level
	Score *float64
}

// explainView is a scorer's explanation as the drill-down shows it.
type explainView struct {
	*risk.Explanation
	Params       string // "impact = 7, reach = external (1.5) (default)"
	Values       []risk.ExplainedValue
	MoreValues   int
	Excluded     []risk.ExcludedValue
	MoreExcluded int
	ScoreText    string
}

// scorerRows lays out the scorer table's rows.
func scorerRows(d *Data) []scorerRow {
	rows := make([]scorerRow, 0, len(d.Scorers))
	for _, r := range d.Scorers {
		var pts []chartPoint
		for _, p := range d.History[r.Key] {
			pts = append(pts, chartPoint{At: pointTime(p), Level: p.Level, Score: p.Score})
		}
		row := scorerRow{Result: r, Chart: chart(pts, scorerChartW, scorerChartH)}
		if e := d.Explanations[r.Key]; e != nil {
			row.Explain = explain(e)
		}
		rows = append(rows, row)
	}
	return rows
}

// domainCharts lays out a card per domain with its history.
func domainCharts(d *Data) []domainChart {
	out := make([]domainChart, 0, len(d.DomainHistory))
	for _, dt := range d.DomainHistory {
		pts := make([]chartPoint, len(dt.Points))
		for i, p := range dt.Points {
			pts[i] = chartPoint(p)
		}
		dc := domainChart{Domain: dt.Domain, Level: risk.NoData, Chart: chart(pts, domainChartW, domainChartH)}
		if n := len(dt.Points); n > 0 {
			dc.Level = dt.Points[n-1].Level
		}
		out = append(out, dc)
	}
	return out
}

// chart maps points to a w x h step chart: time runs left to right from the
// first point to the last, a score from 0 (bottom) to 10 (top).
func chart(pts []chartPoint, w, h int) historyChart {
	c := historyChart{W: w, H: h, Points: len(pts)}
	if len(pts) == 0 {
		c.Title = "no history: no run in scope yet"
		return c
	}
	first, last := pts[0].At, pts[len(pts)-1].At
	span := last.Sub(first).Seconds()
	x := func(t time.Time) float64 {
		if span <= 0 {
			return float64(w) - 3
		}
		return 3 + (float64(w)-6)*t.Sub(first).Seconds()/span
	}
	y := func(s float64) float64 { return 3 + (float64(h)-6)*(1-min(max(s, 0), 10)/10) }
	var line []string
	var prevY float64
	for _, p := range pts {
		px := x(p.At)
		score := "-"
		if p.Score != nil {
			py := y(*p.Score)
			if len(line) > 0 {
				line = append(line, fmt.Sprintf("%.1f,%.1f", px, prevY)) // steady until the next point
			}
			line = append(line, fmt.Sprintf("%.1f,%.1f", px, py))
			prevY = py
			score = strconv.FormatFloat(*p.Score, 'f', 2, 64)
		}
		dy := float64(h) - 3
		if p.Score != nil {
			dy = prevY
		}
		c.Dots = append(c.Dots, chartDot{X: px, Y: dy, Color: LevelColor[string(p.Level)], Title: fmt.Sprintf("%s: %s %s", p.At.UTC().Format(time.RFC3339), score, p.Level)})
	}
	if len(line) == 1 { // one score: level across the chart
		line = []string{fmt.Sprintf("3.0,%.1f", prevY), fmt.Sprintf("%.1f,%.1f", float64(w)-3, prevY)}
	}
	if len(line) > 1 {
		c.Line = strings.Join(line, " ")
	}
	c.Title = fmt.Sprintf("%d point%s, %s to %s", len(pts), plural(len(pts)), first.UTC().Format(time.RFC3339), last.UTC().Format(time.RFC3339))
	return c
}

// explain lays out an explanation for the drill-down.
func explain(e *risk.Explanation) *explainView {
	v := &explainView{Explanation: e}
	var ps []string
	for _, p := range e.Methodology.Parameters {
		ps = append(ps, p.String())
	}
	v.Params = strings.Join(ps, ", ")
	v.Values = e.Values[:min(len(e.Values), explainRows)]
	v.MoreValues = len(e.Values) - len(v.Values)
	v.Excluded = e.Excluded[:min(len(e.Excluded), explainRows)]
	v.MoreExcluded = len(e.Excluded) - len(v.Excluded)
	switch {
	case e.Error != "":
		v.ScoreText = fmt.Sprintf("level %s: %s", e.Level, e.Error)
	case e.Score == nil:
		v.ScoreText = "score - (no_data)"
	default:
		v.ScoreText = fmt.Sprintf("score %s, level %s", strconv.FormatFloat(*e.Score, 'g', -1, 64), e.Level)
	}
	return v
}

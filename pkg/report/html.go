// The HTML report is one self-contained file:
// styles inline, charts as inline SVG drawn here in Go, no script, and a
// Content-Security-Policy that forbids every fetch, so the file opens offline
// from a file URL and shows the same thing everywhere.
package report

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/lfcli/lf/pkg/agentrisk"
	"github.com/lfcli/lf/pkg/risk"
)

//go:embed report.html.tmpl
var page string

// tmpl parses the page the first time a report is written, not at start-up.
var tmpl = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("report").Funcs(template.FuncMap{
		"f2":         func(f float64) string { return strconv.FormatFloat(f, 'f', 2, 64) },
		"f4":         func(f float64) string { return strconv.FormatFloat(f, 'f', 4, 64) },
		"deref":      func(f *float64) float64 { return *f },
		"levelColor": func(l risk.Level) string { return LevelColor[string(l)] },
		"add":        func(a, b int) int { return a + b },
		"g":          func(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) },
	}).Parse(page))
})

// CSP is the page's Content-Security-Policy: nothing may be fetched or run;
// only the inline style element applies.
const CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"

// Levels are the heat map's columns, in increasing risk.
var Levels = []string{"no_data", string(risk.Low), string(risk.Medium), string(risk.High), string(risk.Critical)}

// LevelColor is the fill of a risk level.
var LevelColor = map[string]string{
	"no_data": "#c8ccd2", "error": "#7a7f87",
	string(risk.Low): "#4caf50", string(risk.Medium): "#f2c94c", string(risk.High): "#f2994a", string(risk.Critical): "#d64545",
}

var tierColor = map[string]string{"normal": "#4caf50", "elevated": "#f2c94c", "high": "#f2994a", "critical": "#d64545"}

// WriteHTML renders d as the HTML report on w.
func WriteHTML(w io.Writer, d *Data) error {
	return tmpl().Execute(w, view(d))
}

type pageView struct {
	*Data
	CSP       string
	Counts    []levelCount
	Heat      heatMap
	Leak      []leakView
	Agents    []agentView
	Generated string
	// Rows are the scorer table's rows (chart and explanation each);
	// DomainCharts a card per domain with its history (html_trends.go).
	Rows         []scorerRow
	DomainCharts []domainChart
	AsOf         string // Data.At, "" for now
	Comp         *complianceView
}

type levelCount struct {
	Level, Color string
	N            int
}

type heatMap struct {
	Width, Height int
	Cols          []heatLabel
	Rows          []heatLabel
	Cells         []heatCell
}

type heatLabel struct {
	X, Y int
	Text string
}

type heatCell struct {
	X, Y, W, H int
	Color      string
	N          int
	Title      string
	TX, TY     int
}

type bar struct {
	Label      string
	Value      string
	Y, W, TY   int
	LabelWidth int
	Color      string
}

type leakView struct {
	LeakRun
	Bars        []bar
	BarsHeight  int
	VerdictText string
	TopTypes    []Count // the ten data types leaked most
}

type agentView struct {
	Agent
	Color     string
	Points    string
	LastX     float64
	LastY     float64
	HasLine   bool
	Comps     []bar
	CompsH    int
	HistoryN  int
	Generated string
}

func view(d *Data) pageView {
	v := pageView{Data: d, CSP: CSP, Generated: d.GeneratedAt.UTC().Format("2006-01-02 15:04 MST"), Comp: matrixOf(d.Compliance)}
	counts := map[string]int{}
	for _, r := range d.Scorers {
		counts[string(r.Level)]++
	}
	for i := len(Levels) - 1; i >= 0; i-- {
		l := Levels[i]
		v.Counts = append(v.Counts, levelCount{Level: l, Color: LevelColor[l], N: counts[l]})
	}
	v.Heat = heat(d)
	v.Rows, v.DomainCharts = scorerRows(d), domainCharts(d)
	if !d.At.IsZero() {
		v.AsOf = d.At.UTC().Format(time.RFC3339)
	}
	for _, lr := range d.AgentLeak {
		lv := leakView{LeakRun: lr}
		var parts []string
		for _, c := range lr.Verdicts {
			parts = append(parts, fmt.Sprintf("%d %s", c.N, c.Label))
		}
		lv.VerdictText = strings.Join(parts, ", ")
		lv.TopTypes = lr.Types[:min(len(lr.Types), 10)]
		for i, ch := range lr.Channels {
			w := int(math.Round(ch.RI * 300))
			if ch.RI > 0 && w < 2 {
				w = 2
			}
			lv.Bars = append(lv.Bars, bar{Label: ch.Channel, Value: strconv.FormatFloat(ch.RI, 'f', 3, 64), Y: i * 22, W: w, TY: i*22 + 14, Color: riColor(ch.RI)})
		}
		lv.BarsHeight = len(lv.Bars)*22 + 4
		v.Leak = append(v.Leak, lv)
	}
	for _, a := range d.Agents {
		av := agentView{Agent: a, Color: tierColor[string(a.RiskTier)], HistoryN: len(a.History)}
		if av.Color == "" {
			av.Color = "#7a7f87"
		}
		av.Points, av.LastX, av.LastY = sparkline(a.History, 160, 36)
		av.HasLine = av.Points != ""
		for i, c := range a.Components {
			av.Comps = append(av.Comps, bar{Label: c.Name, Value: strconv.FormatFloat(c.Value, 'f', 1, 64), Y: i * 16, W: int(math.Round(c.Value * 1.2)), TY: i*16 + 11, Color: "#5b7db1"})
		}
		av.CompsH = len(av.Comps)*16 + 2
		v.Agents = append(v.Agents, av)
	}
	return v
}

// heat lays out the level heat map: a row per domain, a column per level,
// each cell coloured by its level and darker with more scorers.
func heat(d *Data) heatMap {
	const left, top, cw, ch = 220, 24, 90, 30
	h := heatMap{Width: left + cw*len(Levels) + 4, Height: top + ch*len(d.Domains) + 4}
	for j, l := range Levels {
		h.Cols = append(h.Cols, heatLabel{X: left + j*cw + cw/2, Y: 16, Text: l})
	}
	type key struct{ dom, level string }
	n := map[key]int{}
	names := map[key][]string{}
	for _, r := range d.Scorers {
		dom := r.Domain
		if dom == "" {
			dom = "(none)"
		}
		k := key{dom, string(r.Level)}
		n[k]++
		names[k] = append(names[k], r.Key)
	}
	for i, dom := range d.Domains {
		h.Rows = append(h.Rows, heatLabel{X: left - 8, Y: top + i*ch + ch/2 + 5, Text: dom})
		for j, l := range Levels {
			k := key{dom, l}
			color := "#f3f4f6"
			if n[k] > 0 {
				color = LevelColor[l]
			}
			h.Cells = append(h.Cells, heatCell{
				X: left + j*cw + 1, Y: top + i*ch + 1, W: cw - 2, H: ch - 2, Color: color, N: n[k],
				Title: fmt.Sprintf("%s, %s: %s", dom, l, strings.Join(names[k], ", ")), TX: left + j*cw + cw/2, TY: top + i*ch + ch/2 + 5,
			})
		}
	}
	return h
}

// sparkline maps scores (0..100) to an SVG polyline in a w x h box.
func sparkline(pts []agentrisk.HistoryPoint, w, h float64) (string, float64, float64) {
	if len(pts) == 0 {
		return "", 0, 0
	}
	var b strings.Builder
	var x, y float64
	for i, p := range pts {
		x = 2
		if len(pts) > 1 {
			x = 2 + float64(i)*(w-4)/float64(len(pts)-1)
		}
		y = 2 + (h-4)*(1-float64(p.Score)/100)
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%.1f,%.1f", x, y)
	}
	if len(pts) == 1 {
		fmt.Fprintf(&b, " %.1f,%.1f", w-2, y)
		x = w - 2
	}
	return b.String(), x, y
}

func riColor(ri float64) string {
	switch {
	case ri >= 0.5:
		return LevelColor[string(risk.Critical)]
	case ri >= 0.2:
		return LevelColor[string(risk.High)]
	case ri > 0:
		return LevelColor[string(risk.Medium)]
	}
	return LevelColor[string(risk.Low)]
}

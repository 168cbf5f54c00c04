package report

import (
	"context"
	"sort"
	"time"

	"github.com/lfcli/lf/pkg/project"
	"github.com/lfcli/lf/pkg/risk"
	"github.com/lfcli/lf/pkg/store"
)

// Trends are the risk scorers over time: each scorer's history (the points
// of `lf history risk-scorer`), each domain's worst level over time, and
// each scorer's explanation (the document of `lf explain risk-scorer KEY
// -o json`), all as of Data.At.
type Trends struct {
	// History holds each scorer's points up to At, oldest first, by key.
	History map[string][]risk.Point
	// DomainHistory is each domain's worst over time, in domain order.
	DomainHistory []DomainTrend
	// Explanations holds each scorer's explanation by key.
	Explanations map[string]*risk.Explanation
}

// DomainTrend is a domain's history: a point each time one of its
// scorers' points changed it.
type DomainTrend struct {
	Domain string
	Points []DomainPoint
}

// DomainPoint is a domain at a moment: the worst level of its scorers
// then (an error the worst, no_data the least, as in lf overview domains)
// and the highest score among them (nil while none has one).
type DomainPoint struct {
	At    time.Time
	Level risk.Level
	Score *float64
}

// trends reads the histories and explanations of the stored risk scorers
// as of at (zero: now).
func trends(ctx context.Context, st *store.Store, at time.Time) (Trends, error) {
	hs, err := project.Histories(ctx, st, project.OverviewFilter{})
	if err != nil {
		return Trends{}, err
	}
	t := Trends{History: make(map[string][]risk.Point, len(hs))}
	for _, h := range hs {
		t.History[h.Key] = pointsUpTo(h.Points, at)
	}
	t.DomainHistory = domainTrends(hs, t.History)
	if t.Explanations, err = project.ExplainAll(ctx, st, at); err != nil {
		return Trends{}, err
	}
	return t, nil
}

// pointsUpTo keeps the points at or before at (all when at is zero): the
// history a store holding only the runs created up to at has, since a
// point depends on the runs created up to its moment only.
func pointsUpTo(pts []risk.Point, at time.Time) []risk.Point {
	if at.IsZero() {
		return pts
	}
	n := sort.Search(len(pts), func(i int) bool { return pointTime(pts[i]).After(at) })
	return pts[:n]
}

func pointTime(p risk.Point) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, p.At)
	return t
}

// domainTrends folds the scorers' points into each domain's: at every
// moment one of a domain's scorers has a point, the worst level and the
// highest score of its scorers as they stand then.
func domainTrends(hs []risk.History, points map[string][]risk.Point) []DomainTrend {
	type step struct {
		at     time.Time
		scorer int
		p      risk.Point
	}
	byDomain := map[string][]step{}
	count := map[string]int{}
	for i, h := range hs {
		dom := domainLabel(h.Domain)
		count[dom]++
		for _, p := range points[h.Key] {
			byDomain[dom] = append(byDomain[dom], step{pointTime(p), i, p})
		}
	}
	doms := make([]string, 0, len(count))
	for d := range count {
		doms = append(doms, d)
	}
	sort.Strings(doms)
	out := make([]DomainTrend, 0, len(doms))
	for _, dom := range doms {
		steps := byDomain[dom]
		sort.SliceStable(steps, func(a, b int) bool { return steps[a].at.Before(steps[b].at) })
		now := map[int]risk.Point{}
		dt := DomainTrend{Domain: dom}
		for i, s := range steps {
			now[s.scorer] = s.p
			if i+1 < len(steps) && steps[i+1].at.Equal(s.at) {
				continue // one point per moment
			}
			dt.Points = append(dt.Points, domainPoint(s.at, now, count[dom]))
		}
		out = append(out, dt)
	}
	return out
}

// domainPoint is a domain at a moment from its scorers' current points (a
// scorer without a point yet has no data).
func domainPoint(at time.Time, now map[int]risk.Point, scorers int) DomainPoint {
	res := make([]risk.Result, 0, scorers)
	dp := DomainPoint{At: at}
	for _, p := range now {
		res = append(res, risk.Result{Level: p.Level})
		if p.Score != nil && (dp.Score == nil || *p.Score > *dp.Score) {
			v := *p.Score
			dp.Score = &v
		}
	}
	for len(res) < scorers {
		res = append(res, risk.Result{Level: risk.NoData})
	}
	dp.Level = risk.Domains(res)[0].Worst
	return dp
}

func domainLabel(d string) string {
	if d == "" {
		return "(none)"
	}
	return d
}

// createdBy keeps the runs created at or before at.
func createdBy(rows []store.RunRow, at time.Time) []store.RunRow {
	cut := store.FormatTime(at)
	out := rows[:0:0]
	for _, r := range rows {
		if r.CreatedAt <= cut {
			out = append(out, r)
		}
	}
	return out
}

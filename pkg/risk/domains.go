package risk

import "sort"

// DomainSummary is one risk domain at a glance: the worst level of its
// scorers and how many are at each level. An error counts as the worst
// (a score that could not be computed may be any score); no_data as the
// least.
type DomainSummary struct {
	Domain   string `json:"domain"`
	Worst    Level  `json:"worst"`
	Scorers  int    `json:"scorers"`
	Critical int    `json:"critical"`
	High     int    `json:"high"`
	Medium   int    `json:"medium"`
	Low      int    `json:"low"`
	NoData   int    `json:"no_data"`
	Error    int    `json:"error"`
}

// severity orders levels for the worst of a domain: error above critical,
// no_data below low.
func severity(l Level) int {
	switch l {
	case Failed:
		return len(Levels) + 1
	case NoData:
		return 0
	}
	return l.Rank()
}

// Domains summarises results per domain, sorted by domain.
func Domains(res []Result) []DomainSummary {
	by := map[string]*DomainSummary{}
	for _, r := range res {
		d := by[r.Domain]
		if d == nil {
			d = &DomainSummary{Domain: r.Domain, Worst: NoData}
			by[r.Domain] = d
		}
		d.Scorers++
		switch r.Level {
		case Critical:
			d.Critical++
		case High:
			d.High++
		case Medium:
			d.Medium++
		case Low:
			d.Low++
		case Failed:
			d.Error++
		default:
			d.NoData++
		}
		if severity(r.Level) > severity(d.Worst) {
			d.Worst = r.Level
		}
	}
	out := make([]DomainSummary, 0, len(by))
	for _, d := range by {
		out = append(out, *d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Domain < out[j].Domain })
	return out
}

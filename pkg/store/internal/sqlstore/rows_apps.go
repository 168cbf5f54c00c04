package sqlstore

import (
	"sort"

	"github.com/lfcli/lf/pkg/model"
	"github.com/lfcli/lf/pkg/store/backend"
)

// KindCount is how many entities of a kind an app holds.
type KindCount struct {
	App, Kind string
	N         int
}

// RunCount is how many runs an app holds and when the latest was created.
type RunCount struct {
	App    string
	N      int
	Latest string
}

// KindCounts scans (app, kind, count) rows; RunCounts scans (app, count,
// latest created at) rows.
var (
	KindCounts = Scan(func(k *KindCount) []any { return []any{&k.App, &k.Kind, &k.N} })
	RunCounts  = Scan(func(r *RunCount) []any { return []any{&r.App, &r.N, &r.Latest} })
)

// Apps folds the counts into one AppInfo an app, sorted by app. An app
// with entities of another kind only is listed with zero counts.
func Apps(kinds []KindCount, runs []RunCount) []backend.AppInfo {
	byApp := map[string]*backend.AppInfo{}
	get := func(app string) *backend.AppInfo {
		a := byApp[app]
		if a == nil {
			a = &backend.AppInfo{App: app}
			byApp[app] = a
		}
		return a
	}
	for _, k := range kinds {
		switch model.Kind(k.Kind) {
		case model.KindMethodology:
			get(k.App).Methodologies += k.N
		case model.KindRiskScorer:
			get(k.App).RiskScorers += k.N
		default:
			get(k.App)
		}
	}
	for _, r := range runs {
		a := get(r.App)
		a.Runs, a.LatestRunAt = r.N, r.Latest
	}
	out := make([]backend.AppInfo, 0, len(byApp))
	for _, a := range byApp {
		out = append(out, *a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].App < out[j].App })
	return out
}

package report

import (
	"context"
	"sort"
	"strings"
	"time"

	"github.com/lfcli/lf/pkg/frameworks"
	"github.com/lfcli/lf/pkg/project"
	"github.com/lfcli/lf/pkg/risk"
	"github.com/lfcli/lf/pkg/store"
)

// StatusColor is the fill of a requirement's or framework's status.
var StatusColor = map[string]string{
	string(frameworks.Met): "#4caf50", string(frameworks.Partial): "#f2c94c",
	string(frameworks.Gap): "#d64545", string(frameworks.NoData): "#c8ccd2",
}

// frameworksOf evaluates the stored frameworks over the scored risk scorers,
// sealed at the report time (nil when the store holds no framework).
func frameworksOf(ctx context.Context, st *store.Store, scored []risk.Result, at time.Time) (*frameworks.Report, error) {
	fws, err := project.StoredFrameworks(ctx, st)
	if err != nil || len(fws) == 0 {
		return nil, err
	}
	res, err := frameworks.Merge(fws, nil).Evaluate("", scored)
	if err != nil {
		return nil, err
	}
	r := frameworks.Report{Results: res}.Sealed(at.UTC().Format("2006-01-02T15:04:05+00:00"))
	return &r, nil
}

// complianceView is the matrix (a row per framework, a cell per
// requirement, coloured by status, linking to the requirement's evidence)
// and the evidence table the cells link to.
type complianceView struct {
	Counts []levelCount // requirements by status
	Rows   []matrixRow
	Reqs   []reqView
	Digest string
	At     string
	N      int // risk scorers in the evidence
}

type matrixRow struct {
	Key, Name, Status, Color string
	Cells                    []matrixCell
}

type matrixCell struct {
	Key, Title, Status, Color, Anchor string
}

type reqView struct {
	ID, Title, Status, Color, MetAt, Anchor string
	Evidence                                []evidenceView
	Runs                                    []string
}

type evidenceView struct {
	Key, Level, Color, Anchor string
}

// anchor is the id of an element of the page: a prefix and a key whose
// "/" (framework/requirement) is written "~", so that the fragment that
// links to it needs no escaping (keys are of [A-Za-z0-9._-]).
func anchor(prefix, key string) string { return prefix + "-" + strings.ReplaceAll(key, "/", "~") }

func matrixOf(r *frameworks.Report) *complianceView {
	if r == nil {
		return nil
	}
	v := &complianceView{Digest: r.Integrity.Digest, At: r.GeneratedAt, N: len(r.Matrix)}
	counts := map[frameworks.Status]int{}
	for _, f := range r.Results {
		row := matrixRow{Key: f.Key, Name: f.Name, Status: string(f.Status), Color: StatusColor[string(f.Status)]}
		for _, q := range f.Requirements {
			id := f.Key + "/" + q.Key
			counts[q.Status]++
			a := anchor("req", id)
			row.Cells = append(row.Cells, matrixCell{Key: q.Key, Title: q.Title, Status: string(q.Status), Color: StatusColor[string(q.Status)], Anchor: a})
			rv := reqView{ID: id, Title: q.Title, Status: string(q.Status), Color: StatusColor[string(q.Status)], MetAt: string(q.MetAt), Anchor: a}
			runs := map[string]bool{}
			for _, e := range q.Evidence {
				rv.Evidence = append(rv.Evidence, evidenceView{Key: e.Key, Level: string(e.Level), Color: LevelColor[string(e.Level)], Anchor: anchor("scorer", e.Key)})
				for _, run := range e.Runs {
					runs[run.EvaluationKey+"/"+run.ID] = true
				}
			}
			for run := range runs {
				rv.Runs = append(rv.Runs, run)
			}
			sort.Strings(rv.Runs)
			v.Reqs = append(v.Reqs, rv)
		}
		v.Rows = append(v.Rows, row)
	}
	for _, s := range frameworks.Statuses {
		v.Counts = append(v.Counts, levelCount{Level: string(s), Color: StatusColor[string(s)], N: counts[s]})
	}
	return v
}

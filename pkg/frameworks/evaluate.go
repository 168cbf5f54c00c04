package frameworks

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/project"
	"github.com/lfcli/lf/pkg/risk"
)

// Status is the state of a requirement as its evidence shows it.
type Status string

// Requirement statuses. NoData: no evidence scorer has data in scope.
const (
	Met     Status = "met"
	Partial Status = "partial"
	Gap     Status = "gap"
	NoData  Status = "no_data"
)

// Statuses lists the statuses, best first.
var Statuses = []Status{Met, Partial, Gap, NoData}

// Scorer is one risk scorer behind a requirement, as the overview scored it.
// Its runs are written once per scorer, in the evidence matrix (a scorer
// evidences many requirements: writing its runs with each would multiply
// them).
type Scorer struct {
	Key    string        `json:"key"`
	Domain string        `json:"domain"`
	Level  risk.Level    `json:"level"`
	Score  *float64      `json:"score"`
	Runs   []risk.RunRef `json:"-"`
	Above  bool          `json:"above_met_at"`
}

// RequirementResult is one requirement with its status and the scorers
// behind it. File and Line say where it is declared.
type RequirementResult struct {
	Key      string     `json:"key"`
	Title    string     `json:"title"`
	Status   Status     `json:"status"`
	MetAt    risk.Level `json:"met_at"`
	SameAs   []string   `json:"same_as,omitempty"`
	Evidence []Scorer   `json:"evidence"`
	File     string     `json:"-"`
	Line     int        `json:"-"`
}

// Result is one framework with its requirements' statuses; Status is the
// worst of them (gap, then partial, then no_data, then met).
type Result struct {
	Key          string              `json:"key"`
	Name         string              `json:"name"`
	Source       string              `json:"source,omitempty"`
	Status       Status              `json:"status"`
	Requirements []RequirementResult `json:"requirements"`
}

// Check returns the located errors of requirements whose evidence names a
// risk scorer, a domain or a requirement (same_as) that does not exist:
// such a requirement could never be decided. scored is every stored risk
// scorer.
func (s Set) Check(scored []risk.Result) diag.List {
	keys, domains := map[string]bool{}, map[string]bool{}
	for _, r := range scored {
		keys[r.Key], domains[r.Domain] = true, true
	}
	var ds diag.List
	for _, p := range project.FrameworkRefs(s.frameworks(), keys, domains) {
		ds = append(ds, s[p.Framework].errorf(p.Pointer, "%s", p.Msg))
	}
	return ds
}

// Evaluate decides every requirement of the frameworks (only the framework
// only when not "") from the scored risk scorers. Run Check first: names
// that do not exist are skipped here.
func (s Set) Evaluate(only string, scored []risk.Result) ([]Result, error) {
	if only != "" && s.find(only) == nil {
		return nil, fmt.Errorf("framework %q not found (known: %s)", only, strings.Join(s.keys(), ", "))
	}
	idx := s.index()
	ix := newScoredIndex(scored)
	out := []Result{}
	for i := range s {
		l := &s[i]
		if only != "" && l.Key != only {
			continue
		}
		fr := Result{Key: l.Key, Name: l.Name, Source: l.Source, Requirements: []RequirementResult{}}
		for j := range l.Requirements {
			q := &l.Requirements[j]
			metAt := risk.Level(q.MetAt)
			if metAt == "" {
				metAt = risk.Low
			}
			rr := RequirementResult{Key: q.Key, Title: q.Title, MetAt: metAt, SameAs: q.SameAs}
			rr.File, rr.Line = l.pos(j)
			rr.Evidence = ix.evidence(shared(idx, l.Key+"/"+q.Key, q), metAt)
			rr.Status = status(rr.Evidence)
			fr.Requirements = append(fr.Requirements, rr)
		}
		fr.Status = worst(fr.Requirements)
		out = append(out, fr)
	}
	return out, nil
}

func (s Set) keys() []string {
	ks := make([]string, 0, len(s))
	for _, l := range s {
		ks = append(ks, l.Key)
	}
	return ks
}

// shared returns the evidence of q and of every requirement it names in
// same_as, following those in turn.
func shared(idx map[string]*Requirement, ref string, q *Requirement) []Evidence {
	out := []Evidence{q.Evidence}
	if len(q.SameAs) == 0 {
		return out
	}
	seen := map[string]bool{ref: true}
	queue := append([]string(nil), q.SameAs...)
	for len(queue) > 0 {
		r := queue[0]
		queue = queue[1:]
		if seen[r] {
			continue
		}
		seen[r] = true
		if other, ok := idx[r]; ok {
			out = append(out, other.Evidence)
			queue = append(queue, other.SameAs...)
		}
	}
	return out
}

// scoredIndex finds the scored risk scorers by key and by domain; order
// ranks them by key, and stamp marks those an evidence picked already.
type scoredIndex struct {
	scored          []risk.Result
	byKey, byDomain map[string][]int
	order, stamp    []int
	gen             int
	picked          []int
}

func newScoredIndex(scored []risk.Result) *scoredIndex {
	ix := &scoredIndex{scored: scored, byKey: map[string][]int{}, byDomain: map[string][]int{}, order: make([]int, len(scored)), stamp: make([]int, len(scored))}
	byName := make([]int, len(scored))
	for i, r := range scored {
		ix.byKey[r.Key] = append(ix.byKey[r.Key], i)
		ix.byDomain[r.Domain] = append(ix.byDomain[r.Domain], i)
		byName[i] = i
	}
	sort.SliceStable(byName, func(a, b int) bool { return scored[byName[a]].Key < scored[byName[b]].Key })
	for rank, i := range byName {
		ix.order[i] = rank
	}
	return ix
}

// evidence returns the scored risk scorers the evidence names, by key, once
// each, marking those with data above metAt (an error counts as above: a
// scorer that could not be scored does not show the requirement met).
func (ix *scoredIndex) evidence(evs []Evidence, metAt risk.Level) []Scorer {
	ix.gen++
	ix.picked = ix.picked[:0]
	pick := func(is []int) {
		for _, i := range is {
			if ix.stamp[i] != ix.gen {
				ix.stamp[i] = ix.gen
				ix.picked = append(ix.picked, i)
			}
		}
	}
	for _, e := range evs {
		for _, k := range e.RiskScorers {
			pick(ix.byKey[k])
		}
		for _, d := range e.Domains {
			pick(ix.byDomain[d])
		}
	}
	sort.Slice(ix.picked, func(a, b int) bool { return ix.order[ix.picked[a]] < ix.order[ix.picked[b]] })
	out := make([]Scorer, len(ix.picked))
	for j, i := range ix.picked {
		r := &ix.scored[i]
		above := r.Level == risk.Failed || r.Level.Rank() > metAt.Rank()
		out[j] = Scorer{Key: r.Key, Domain: r.Domain, Level: r.Level, Score: r.Score, Runs: r.Runs, Above: above}
	}
	return out
}

func status(ev []Scorer) Status {
	withData, above := 0, 0
	for _, e := range ev {
		if e.Level == risk.NoData {
			continue
		}
		withData++
		if e.Above {
			above++
		}
	}
	switch {
	case withData == 0:
		return NoData
	case above == 0:
		return Met
	case above == withData:
		return Gap
	}
	return Partial
}

func worst(rs []RequirementResult) Status {
	rank := map[Status]int{Met: 0, NoData: 1, Partial: 2, Gap: 3}
	w := Met
	for _, r := range rs {
		if rank[r.Status] > rank[w] {
			w = r.Status
		}
	}
	return w
}

// Gate fails requirements at On (gap, or partial: partial and gap) and,
// unless AllowNoData, requirements with no data.
type Gate struct {
	On          Status
	AllowNoData bool
}

// ParseGate reads --fail-on: "" (off), gap or partial.
func ParseGate(s string, allowNoData bool) (Gate, error) {
	switch Status(s) {
	case "", Gap, Partial:
		return Gate{On: Status(s), AllowNoData: allowNoData}, nil
	}
	return Gate{}, fmt.Errorf("--fail-on %q: expected gap or partial", s)
}

// Fails says whether r trips the gate.
func (g Gate) Fails(r RequirementResult) bool {
	switch {
	case g.On == "":
		return false
	case r.Status == NoData:
		return !g.AllowNoData
	case r.Status == Gap:
		return true
	}
	return r.Status == Partial && g.On == Partial
}

// Check returns an error naming the requirements that trip the gate, or
// saying there is no requirement to check (a gate that sees nothing fails).
func (g Gate) Check(rs []Result) error {
	if g.On == "" {
		return nil
	}
	var failed []string
	n := 0
	for _, f := range rs {
		for _, r := range f.Requirements {
			n++
			if g.Fails(r) {
				failed = append(failed, f.Key+"/"+r.Key+" ("+string(r.Status)+")")
			}
		}
	}
	if n == 0 {
		return errors.New("no requirement to check: the gate cannot pass on nothing")
	}
	if len(failed) > 0 {
		return fmt.Errorf("%d requirement%s at --fail-on %s: %s", len(failed), plural(len(failed)), g.On, strings.Join(failed, ", "))
	}
	return nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

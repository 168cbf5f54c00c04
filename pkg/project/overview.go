package project

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/model"
	"github.com/lfcli/lf/pkg/risk"
	"github.com/lfcli/lf/pkg/store"
)

// OverviewFilter narrows the risk-scorer overview.
type OverviewFilter struct {
	Keys   []string // only these risk scorers (all when empty)
	Domain string   // only this domain (all when empty)
	// At scores as of this moment: the latest completed run of each
	// evaluation key created at or before it (the zero time: the latest).
	At time.Time
}

// Overview scores the stored risk scorers that pass the filter, sorted by key.
func Overview(ctx context.Context, st *store.Store, f OverviewFilter) ([]risk.Result, error) {
	scorers, err := st.RiskScorers(ctx)
	if err != nil {
		return nil, diag.Internal(err)
	}
	methods, err := st.Methodologies(ctx)
	if err != nil {
		return nil, diag.Internal(err)
	}
	selected, missing := f.apply(scorers)
	if len(missing) > 0 {
		msg := fmt.Sprintf("risk scorer %q not found%s", missing[0], knownList("risk scorers", scorerKeys(scorers)))
		for _, sc := range scorers {
			if sc.Key == missing[0] {
				msg = fmt.Sprintf("risk scorer %q is of domain %q, not %q", sc.Key, sc.Domain, f.Domain)
			}
		}
		return nil, &diag.Error{Code: diag.ExitInvalid, Err: &FilterError{Filter: "key", Value: missing[0], Msg: msg}}
	}
	if f.Domain != "" && len(selected) == 0 {
		return nil, &diag.Error{Code: diag.ExitInvalid, Err: &FilterError{Filter: "domain", Value: f.Domain, Msg: fmt.Sprintf("no risk scorer of domain %q%s", f.Domain, knownList("domains", scorerDomains(scorers)))}}
	}
	res, err := risk.Score(ctx, f.source(st), methods, selected)
	if err != nil {
		return nil, diag.Internal(err)
	}
	return res, nil
}

// apply returns the scorers that pass the filter, and the wanted keys that
// name no scorer that passes the domain filter (sorted). The wanted set is kept whole while filtering: a
// key found early must not widen the filter for the scorers after it.
func (f OverviewFilter) apply(scorers []*model.RiskScorer) (selected []*model.RiskScorer, missing []string) {
	want := map[string]bool{}
	for _, k := range f.Keys {
		want[k] = true
	}
	found := map[string]bool{}
	for _, s := range scorers {
		if len(want) > 0 && !want[s.Key] {
			continue
		}
		if f.Domain != "" && s.Domain != f.Domain {
			continue
		}
		selected = append(selected, s)
		found[s.Key] = true
	}
	for k := range want {
		if !found[k] {
			missing = append(missing, k)
		}
	}
	sort.Strings(missing)
	return selected, missing
}

// FilterError is an overview filter (--key, --domain, a run file's
// overview.domain) that matches no risk scorer: a gate over nothing cannot
// pass, so it is an error (exit 3), never an empty overview.
type FilterError struct {
	Filter string // key or domain
	Value  string
	Msg    string
}

func (e *FilterError) Error() string { return e.Msg }

// knownList is ": the NAME are a, b, c" (at most ten shown), or ": the
// store holds none" when there are none.
func knownList(name string, items []string) string {
	if len(items) == 0 {
		return "; the app holds no risk scorer"
	}
	more := ""
	if len(items) > 10 {
		more = fmt.Sprintf(" and %d more", len(items)-10)
		items = items[:10]
	}
	return fmt.Sprintf("; the %s are %s%s", name, strings.Join(items, ", "), more)
}

func scorerKeys(scorers []*model.RiskScorer) []string {
	out := make([]string, 0, len(scorers))
	for _, s := range scorers {
		out = append(out, s.Key)
	}
	sort.Strings(out)
	return out
}

func scorerDomains(scorers []*model.RiskScorer) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range scorers {
		if !seen[s.Domain] {
			seen[s.Domain] = true
			out = append(out, s.Domain)
		}
	}
	sort.Strings(out)
	return out
}

package project

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/kind"
	"github.com/lfcli/lf/pkg/model"
	"github.com/lfcli/lf/pkg/store"
	"github.com/lfcli/lf/pkg/yamlsrc"
)

// decodeFramework decodes the framework at ptr with its schema's defaults
// (met_at) filled in a copy: the entity's values, which the store keeps
// and export writes back, stay as the file says them.
func decodeFramework(doc *yamlsrc.Doc, ptr string) (model.Framework, diag.List) {
	v, _ := doc.Get(ptr)
	f, err := frameworkOf(v)
	if err != nil {
		return f, diag.List{doc.Errorf(ptr, "cannot decode framework: %v", err)}
	}
	return f, nil
}

// frameworkOf decodes a framework's values (a file's, or a stored body's)
// with the schema's defaults.
func frameworkOf(v any) (model.Framework, error) {
	return kind.DecodeCopy[model.Framework]("project", "frameworks", v)
}

// checkFramework fails on a requirement key given twice in a framework.
func checkFramework(doc *yamlsrc.Doc, ptr string, f *model.Framework, _ struct{}) diag.List {
	var ds diag.List
	seen := map[string]bool{}
	for i, r := range f.Requirements {
		if seen[r.Key] {
			ds = append(ds, doc.Errorf(ptr+"/requirements/"+strconv.Itoa(i)+"/key", "requirement %q given twice in framework %q", r.Key, f.Key))
		}
		seen[r.Key] = true
	}
	return ds
}

// StoredFrameworks returns the store's frameworks, sorted by key, with
// their schema defaults.
func StoredFrameworks(ctx context.Context, st interface {
	Entities(context.Context, model.Kind) ([]store.Entity, error)
},
) ([]*model.Framework, error) {
	es, err := st.Entities(ctx, model.KindFramework)
	if err != nil {
		return nil, err
	}
	out := make([]*model.Framework, 0, len(es))
	for _, e := range es {
		var v any
		if err := json.Unmarshal([]byte(e.Body), &v); err != nil {
			return nil, fmt.Errorf("store: framework %s: %w", e.Key, err)
		}
		f, err := frameworkOf(v)
		if err != nil {
			return nil, fmt.Errorf("store: framework %s: %w", e.Key, err)
		}
		out = append(out, &f)
	}
	return out, nil
}

// RefProblem is a reference of a framework's requirement that leads
// nowhere: Framework indexes the frameworks given, Pointer is relative to
// the framework ("/requirements/0/evidence/domains/1").
type RefProblem struct {
	Framework int
	Pointer   string
	Msg       string
}

// FrameworkRefs returns the references of the frameworks' requirements
// that lead nowhere: a risk scorer key that is not among scorerKeys, a
// domain not among domains (no risk scorer has it), a same_as that names
// no requirement of the frameworks, or the requirement itself. Such a
// requirement could never be decided.
func FrameworkRefs(fws []*model.Framework, scorerKeys, domains map[string]bool) []RefProblem {
	reqs := map[string]bool{}
	for _, f := range fws {
		for _, q := range f.Requirements {
			reqs[f.Key+"/"+q.Key] = true
		}
	}
	var out []RefProblem
	for i, f := range fws {
		for j, q := range f.Requirements {
			p := "/requirements/" + strconv.Itoa(j)
			for k, sc := range q.Evidence.RiskScorers {
				if !scorerKeys[sc] {
					out = append(out, RefProblem{i, fmt.Sprintf("%s/evidence/risk_scorers/%d", p, k), fmt.Sprintf("risk scorer %q not found in the store", sc)})
				}
			}
			for k, d := range q.Evidence.Domains {
				if !domains[d] {
					out = append(out, RefProblem{i, fmt.Sprintf("%s/evidence/domains/%d", p, k), fmt.Sprintf("no risk scorer of domain %q in the store", d)})
				}
			}
			for k, ref := range q.SameAs {
				if !reqs[ref] || ref == f.Key+"/"+q.Key {
					out = append(out, RefProblem{i, fmt.Sprintf("%s/same_as/%d", p, k), fmt.Sprintf("requirement %q not found among the frameworks (framework/requirement, another requirement)", ref)})
				}
			}
		}
	}
	return out
}

// frameworkRefs is checkRefs' part for frameworks, in the same
// transaction: every reference of every stored framework must lead to a
// stored risk scorer, a domain some stored risk scorer has, or a stored
// requirement. Problems of frameworks the transaction wrote are located in
// their files; the others (a risk scorer or framework deleted that a
// framework still names) are one message.
func frameworkRefs(ctx context.Context, tx store.Tx, written []*Entity) (diag.List, error) {
	fws, err := StoredFrameworks(ctx, tx)
	if err != nil || len(fws) == 0 {
		return nil, err
	}
	scorers, err := tx.RiskScorers(ctx)
	if err != nil {
		return nil, err
	}
	keys, domains := map[string]bool{}, map[string]bool{}
	for _, s := range scorers {
		keys[s.Key], domains[s.Domain] = true, true
	}
	mine := map[string]*Entity{}
	for _, e := range written {
		if e.Kind == model.KindFramework {
			mine[e.Key] = e
		}
	}
	var diags diag.List
	var loose []string
	for _, p := range FrameworkRefs(fws, keys, domains) {
		f := fws[p.Framework]
		if e := mine[f.Key]; e != nil {
			diags = append(diags, e.Errorf(p.Pointer, "%s", p.Msg))
			continue
		}
		j, _ := strconv.Atoi(strings.Split(p.Pointer, "/")[2])
		loose = append(loose, fmt.Sprintf("%s/%s (%s)", f.Key, f.Requirements[j].Key, p.Msg))
	}
	if len(loose) > 0 {
		sort.Strings(loose)
		diags = append(diags, diag.Diagnostic{Msg: fmt.Sprintf("this would leave framework requirements whose evidence leads nowhere: %s; nothing was written: change or delete those frameworks first (lf set frameworks, lf delete framework)", strings.Join(loose, "; "))})
	}
	return diags, nil
}

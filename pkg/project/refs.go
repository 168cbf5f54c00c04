package project

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/model"
	"github.com/lfcli/lf/pkg/risk"
	"github.com/lfcli/lf/pkg/store"
)

// checkRefs is the last step of every transaction that writes
// methodologies, risk scorers or frameworks: every risk scorer the app holds must use
// a methodology the app holds, and every risk scorer the transaction wrote
// must fit that methodology's config_spec as it is now. The files were
// checked before the transaction against the store as it was then; a
// writer that ran in between (`lf set`, `lf add`, `lf delete` at the same
// time) may have changed it. On a problem the transaction rolls back and
// nothing is written (exit 3). Every reference of a stored framework must
// lead somewhere too (frameworkRefs). written are the batch's entities, to
// locate the problems of the risk scorers and frameworks it wrote.
// left are entities of the files that the command leaves out (another
// kind than the one asked for), to say so when a risk scorer needs one.
func checkRefs(ctx context.Context, tx store.Tx, written, left []*Entity) error {
	es, err := tx.Entities(ctx, model.KindMethodology)
	if err != nil {
		return err
	}
	methods := map[string]*model.Methodology{}
	for _, e := range es {
		var m model.Methodology
		if err := json.Unmarshal([]byte(e.Body), &m); err != nil {
			return fmt.Errorf("store: methodology %s: %w", e.Key, err)
		}
		methods[e.Key] = &m
	}
	scorers, err := tx.RiskScorers(ctx)
	if err != nil {
		return err
	}
	mine := map[string]*Entity{}
	for _, e := range written {
		if e.Kind == model.KindRiskScorer {
			mine[e.Key] = e
		}
	}
	var diags diag.List
	var loose []string
	for _, s := range scorers {
		m := methods[s.RiskScoringMethodologyKey]
		e := mine[s.Key]
		switch {
		case m == nil && e != nil && leftOut(left, s.RiskScoringMethodologyKey) != nil:
			d := leftOut(left, s.RiskScoringMethodologyKey)
			diags = append(diags, e.Errorf("/risk_scoring_methodology_key", "risk scoring methodology %q is not in the store: %s defines it, but this command writes risk scorers only; add both with lf add -f FILE (no KIND), or the methodology first with lf add risk-scoring-methodology -f FILE", s.RiskScoringMethodologyKey, d.File.Rel))
		case m == nil && e != nil:
			diags = append(diags, e.Errorf("/risk_scoring_methodology_key", "risk scoring methodology %q is not in the store, so risk scorer %s would use nothing: add the methodology in the same command or first with lf add risk-scoring-methodology", s.RiskScoringMethodologyKey, s.Key))
		case m == nil:
			loose = append(loose, fmt.Sprintf("%s (uses %s)", s.Key, s.RiskScoringMethodologyKey))
		case e != nil:
			for _, p := range risk.CheckScorer(s, m) {
				diags = append(diags, e.Errorf(p.Pointer, "%s (against risk scoring methodology %s as stored now)", p.Msg, m.Key))
			}
		}
	}
	if len(loose) > 0 {
		sort.Strings(loose)
		diags = append(diags, diag.Diagnostic{Msg: fmt.Sprintf("this would leave risk scorers without their risk scoring methodology: %s; nothing was written: delete or change those risk scorers first", strings.Join(loose, ", "))})
	}
	fds, err := frameworkRefs(ctx, tx, written)
	if err != nil {
		return err
	}
	if diags = append(diags, fds...); len(diags) > 0 {
		return diag.Invalid(diags)
	}
	return nil
}

// writesEntities tells whether a batch holds methodologies or risk scorers
// (runs alone need no reference check).
func writesEntities(es []*Entity) bool {
	for _, e := range es {
		if e.Kind != model.KindEvaluationRun {
			return true
		}
	}
	return false
}

// leftOut finds the methodology key among the entities left out.
func leftOut(left []*Entity, key string) *Entity {
	for _, e := range left {
		if e.Kind == model.KindMethodology && e.Key == key {
			return e
		}
	}
	return nil
}

// Only keeps the batch's entities of kind, for `lf add KIND`; the ones it
// leaves out are remembered, so that the reference check can say that a
// file defines the methodology a risk scorer needs.
func (b *Batch) Only(kind model.Kind) {
	var keep []*Entity
	for _, e := range b.Entities {
		if e.Kind == kind {
			keep = append(keep, e)
		} else {
			b.left = append(b.left, e)
		}
	}
	b.Entities = keep
}

// refuseEmpty refuses to replace the set of kind by the batch when the
// batch holds none of kind, unless allowEmpty: nothing is written (exit 3).
func refuseEmpty(b *Batch, kind model.Kind, allowEmpty bool) error {
	if allowEmpty {
		return nil
	}
	for _, e := range b.Entities {
		if e.Kind == kind {
			return nil
		}
	}
	info, _ := ParseKind(string(kind))
	var files []string
	for _, f := range b.Files {
		files = append(files, f.Rel)
	}
	what, verb := "the files given", "hold"
	if len(files) > 0 {
		what = strings.Join(files, ", ")
	}
	if len(files) == 1 {
		verb = "holds"
	}
	return diag.Invalidf("%s %s no %s (no %s: list), so lf set %s would delete every stored one; nothing was written. To empty the kind on purpose, pass --allow-empty", what, verb, info.Plural, info.Section, info.Plural)
}

package project

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/model"
	"github.com/lfcli/lf/pkg/store"
)

// Change is what happened to one entity.
type Change struct {
	Kind    model.Kind
	Key     string
	Outcome store.Outcome // created, updated, unchanged or deleted
}

// Deleted is the outcome of an entity removed by Replace.
const Deleted store.Outcome = "deleted"

// Upsert writes every entity of the batch in one transaction. The batch must
// have passed Check.
func Upsert(ctx context.Context, st *store.Store, b *Batch) ([]Change, error) {
	var changes []Change
	completed := completedRuns(b.Entities) // putAll releases the runs
	err := st.Update(ctx, func(tx store.Tx) error {
		var err error
		check := writesEntities(b.Entities)
		if changes, err = putAll(ctx, tx, b.Entities); err != nil || !check {
			return err
		}
		return checkRefs(ctx, tx, b.Entities, b.left)
	})
	if err != nil {
		return nil, diag.Internal(err)
	}
	_ = KeepRunPartials(ctx, st, writtenRuns(completed, changes)) // best effort: histories compute what is missing
	return changes, nil
}

// putAll writes entities and returns their changes in the entities' order;
// it releases each run's values and YAML once written (the batch is spent).
// Runs are written sorted by key: the store clusters runs and values by
// evaluation key, so a file that interleaves keys would otherwise insert all
// over the tables' B-trees (issue 9, item 19).
func putAll(ctx context.Context, tx store.Tx, entities []*Entity) ([]Change, error) {
	changes := make([]Change, len(entities))
	order := make([]int, len(entities))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		ea, eb := entities[order[a]], entities[order[b]]
		ra, rb := ea.Kind == model.KindEvaluationRun, eb.Kind == model.KindEvaluationRun
		if !ra || !rb {
			return !ra && rb // other kinds first, in their order
		}
		ka, ia := ea.runID()
		kb, ib := eb.runID()
		if ka != kb {
			return ka < kb
		}
		return ia < ib
	})
	for _, i := range order {
		e := entities[i]
		var out store.Outcome
		var err error
		if e.Kind == model.KindEvaluationRun {
			out, err = putRun(ctx, tx, e)
			// Written: its values and YAML, most of a large batch's memory,
			// can go while the rest is written.
			e.Run, e.packed, e.YAML = nil, nil, ""
		} else {
			body, jerr := json.Marshal(e.Value)
			if jerr != nil {
				return nil, jerr
			}
			out, err = tx.PutEntity(ctx, store.Entity{Kind: e.Kind, Key: e.Key, Body: string(body), YAML: e.YAML})
		}
		if err != nil {
			return nil, err
		}
		changes[i] = Change{Kind: e.Kind, Key: e.Key, Outcome: out}
	}
	return changes, nil
}

func putRun(ctx context.Context, tx store.Tx, e *Entity) (store.Outcome, error) {
	run := e.Run
	if run == nil {
		run = e.packed.unpack()
	}
	return tx.PutRunYAML(ctx, *run, e.yaml())
}

// runID is a run's evaluation key and id.
func (e *Entity) runID() (key, id string) {
	if e.Run == nil && e.packed != nil {
		return e.packed.head.EvaluationKey, e.packed.head.ID
	}
	return e.Run.EvaluationKey, e.Run.ID
}

// Replace makes the stored set of kind exactly the batch's entities of that
// kind, in one transaction: what the batch omits is deleted. Deleting a
// methodology that a remaining risk scorer uses is refused, and so is a
// batch holding none of kind (files of another kind given by mistake would
// delete every stored one) unless allowEmpty says so on purpose.
func Replace(ctx context.Context, st *store.Store, kind model.Kind, b *Batch, allowEmpty bool) ([]Change, error) {
	if err := refuseEmpty(b, kind, allowEmpty); err != nil {
		return nil, err
	}
	var keep, left []*Entity
	want := map[string]bool{}
	for _, e := range b.Entities {
		if e.Kind == kind {
			keep = append(keep, e)
			want[e.Key] = true
		} else {
			left = append(left, e)
		}
	}
	var changes []Change
	err := st.Update(ctx, func(tx store.Tx) error {
		existing, err := storedKeys(ctx, tx, kind)
		if err != nil {
			return err
		}
		var gone []string
		for _, k := range existing {
			if !want[k] {
				gone = append(gone, k)
			}
		}
		if kind == model.KindMethodology && len(gone) > 0 {
			if err := refuseInUse(ctx, tx, gone); err != nil {
				return err
			}
		}
		if changes, err = putAll(ctx, tx, keep); err != nil {
			return err
		}
		for _, k := range gone {
			if err := deleteOne(ctx, tx, kind, k); err != nil {
				return err
			}
			changes = append(changes, Change{Kind: kind, Key: k, Outcome: Deleted})
		}
		if kind == model.KindEvaluationRun {
			return nil
		}
		return checkRefs(ctx, tx, keep, left)
	})
	if err != nil {
		return nil, diag.Internal(err)
	}
	return changes, nil
}

func storedKeys(ctx context.Context, tx store.Tx, kind model.Kind) ([]string, error) {
	if kind == model.KindEvaluationRun {
		rows, err := tx.Runs(ctx)
		if err != nil {
			return nil, err
		}
		out := make([]string, len(rows))
		for i, r := range rows {
			out[i] = r.EvaluationKey + "/" + r.ID
		}
		return out, nil
	}
	es, err := tx.Entities(ctx, kind)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Key
	}
	return out, nil
}

func refuseInUse(ctx context.Context, tx store.Tx, methodologies []string) error {
	scorers, err := tx.RiskScorers(ctx)
	if err != nil {
		return err
	}
	gone := map[string]bool{}
	for _, m := range methodologies {
		gone[m] = true
	}
	var users []string
	for _, s := range scorers {
		if gone[s.RiskScoringMethodologyKey] {
			users = append(users, fmt.Sprintf("%s (uses %s)", s.Key, s.RiskScoringMethodologyKey))
		}
	}
	if len(users) > 0 {
		return diag.Invalidf("risk scoring methodologies still in use by risk scorers %s: delete or change those first", strings.Join(users, ", "))
	}
	return nil
}

func deleteOne(ctx context.Context, tx store.Tx, kind model.Kind, key string) error {
	if kind == model.KindEvaluationRun {
		ek, id, _ := strings.Cut(key, "/")
		return tx.DeleteRun(ctx, ek, id)
	}
	_, err := tx.DeleteEntity(ctx, kind, key)
	return err
}

// Delete removes one entity; for runs key is EVALUATION_KEY/ID. A missing
// entity is an error (exit 3), as is a methodology still in use, and a
// risk scorer or framework that a stored framework names (checkRefs).
func Delete(ctx context.Context, st *store.Store, kind model.Kind, key string) error {
	return st.Update(ctx, func(tx store.Tx) error {
		existing, err := storedKeys(ctx, tx, kind)
		if err != nil {
			return diag.Internal(err)
		}
		sort.Strings(existing)
		i := sort.SearchStrings(existing, key)
		if i == len(existing) || existing[i] != key {
			if kind == model.KindEvaluationRun && !strings.Contains(key, "/") {
				return diag.Invalidf("%s %q not found: name a run as EVALUATION_KEY/ID", kind, key)
			}
			return diag.Invalidf("%s %q not found", kind, key)
		}
		if kind == model.KindMethodology {
			if err := refuseInUse(ctx, tx, []string{key}); err != nil {
				return err
			}
		}
		if err := deleteOne(ctx, tx, kind, key); err != nil || kind == model.KindEvaluationRun {
			return err
		}
		return checkRefs(ctx, tx, nil, nil)
	})
}

// Export writes the canonical YAML of one kind, or of all kinds when kind is
// "": entities sorted by key, each with the comments it was added with.
func Export(ctx context.Context, st *store.Store, kind model.Kind) ([]byte, error) {
	var buf bytes.Buffer
	for _, k := range Kinds {
		if kind != "" && k.Kind != kind {
			continue
		}
		items, err := exportItems(ctx, st, k.Kind)
		if err != nil {
			return nil, diag.Internal(err)
		}
		if len(items) == 0 {
			if kind != "" {
				fmt.Fprintf(&buf, "%s: []\n", k.Section)
			}
			continue
		}
		fmt.Fprintf(&buf, "%s:\n", k.Section)
		for _, it := range items {
			for _, line := range strings.SplitAfter(it, "\n") {
				if line == "" {
					continue
				}
				if line != "\n" {
					buf.WriteString("  ")
				}
				buf.WriteString(line)
			}
		}
	}
	if buf.Len() == 0 {
		buf.WriteString("{}\n")
	}
	return buf.Bytes(), nil
}

func exportItems(ctx context.Context, st *store.Store, kind model.Kind) ([]string, error) {
	if kind != model.KindEvaluationRun {
		es, err := st.Entities(ctx, kind)
		if err != nil {
			return nil, err
		}
		out := make([]string, len(es))
		for i, e := range es {
			out[i] = e.YAML
		}
		return out, nil
	}
	rows, err := st.Runs(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(rows))
	for _, r := range rows {
		if r.YAML != "" {
			out = append(out, r.YAML)
			continue
		}
		run, err := st.Run(ctx, r.EvaluationKey, r.ID)
		if err != nil {
			return nil, err
		}
		if run == nil {
			continue
		}
		out = append(out, EntityYAML(model.KindEvaluationRun, runValue(run), nil))
	}
	return out, nil
}

// runValue is the YAML form of a run recorded by an evaluation.
// RunYAML is the canonical YAML of a run, as `lf add` stores it and `lf
// export` writes it; importers store their runs with it.
func RunYAML(run *model.EvaluationRun) string {
	return EntityYAML(model.KindEvaluationRun, runValue(run), nil)
}

func runValue(run *model.EvaluationRun) map[string]any {
	results := make([]any, len(run.Results))
	for i, r := range run.Results {
		metrics := make(map[string]any, len(r.Metrics))
		for k, v := range r.Metrics {
			metrics[k] = v
		}
		results[i] = map[string]any{"task_specification_key": r.TaskSpecificationKey, "scorer_key": r.ScorerKey, "metrics": metrics}
	}
	v := map[string]any{
		"evaluation_key": run.EvaluationKey,
		"id":             run.ID,
		"created_at":     run.CreatedAt.UTC().Format(time.RFC3339Nano),
		"status":         run.Status,
		"results":        results,
	}
	if len(run.Metadata) > 0 {
		v["metadata"] = run.Metadata // where an imported run came from
	}
	return v
}

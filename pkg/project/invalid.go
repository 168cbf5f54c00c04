package project

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/model"
	"github.com/lfcli/lf/pkg/risk"
	"github.com/lfcli/lf/pkg/yamlsrc"
)

// An entity with schema problems is not written, but its other problems
// (a default out of range, a config value outside its parameter's range or
// allowed values, a result given twice, a key defined twice) are independent
// of them and reported in the same pass (issue 9, item 9). The fields or
// config_spec items the schema rejects are left out when it is decoded, and
// the checks' messages at or around a pointer the schema already named are
// dropped, so no problem is reported twice.

// invalidEntity is an entity with schema problems, decoded as far as it goes.
type invalidEntity struct {
	*Entity
	schemaPtrs []string // absolute pointers of its schema problems
	dropped    []string // its top-level fields, or config_spec items ("config_spec/1"), left out
	missing    []string // absolute pointers of the required fields it lacks
}

// keepInvalid decodes the entity at ptr of f, whose schema problems are
// among invalid, for Check's independent checks. It reports the problems
// that need nothing but the entity itself (a result given twice in a run).
func (b *Batch) keepInvalid(f *File, kind model.Kind, ptr string, m map[string]any, invalid diag.List) diag.List {
	ie := invalidEntity{Entity: &Entity{Kind: kind, File: f, Pointer: ptr}}
	for _, d := range invalid {
		if d.Severity == diag.SevError && (d.Pointer == ptr || strings.HasPrefix(d.Pointer, ptr+"/")) {
			ie.schemaPtrs = append(ie.schemaPtrs, d.Pointer)
			for _, f := range missingFields(d.Msg) {
				ie.missing = append(ie.missing, d.Pointer+"/"+f)
			}
		}
	}
	clean := make(map[string]any, len(m))
	for k, v := range m {
		clean[k] = v
	}
	for _, p := range ie.schemaPtrs {
		rel := strings.TrimPrefix(p, ptr+"/")
		if p == ptr || rel == "" {
			continue // a missing field or a wrong type of the whole entity
		}
		parts := strings.SplitN(rel, "/", 3)
		field := parts[0]
		if field == "config_spec" && len(parts) > 1 {
			if i, err := strconv.Atoi(parts[1]); err == nil {
				if items, ok := clean[field].([]any); ok && i < len(items) {
					items = append([]any(nil), items...)
					items[i] = nil
					clean[field] = items
					ie.dropped = append(ie.dropped, field+"/"+parts[1])
					continue
				}
			}
		}
		if _, ok := clean[field]; ok {
			delete(clean, field)
			ie.dropped = append(ie.dropped, field)
		}
	}
	if items, ok := clean["config_spec"].([]any); ok {
		kept := items[:0:0]
		for _, it := range items {
			if it != nil {
				kept = append(kept, it)
			}
		}
		clean["config_spec"] = kept
	}
	var err error
	switch kind {
	case model.KindAIApp:
		ie.AIApp = &model.AIApp{}
		err = decodeJSON(clean, ie.AIApp)
		ie.Key = ie.AIApp.Key
	case model.KindMethodology:
		ie.Methodology = &model.Methodology{}
		err = decodeJSON(clean, ie.Methodology)
		ie.Key = ie.Methodology.Key
	case model.KindRiskScorer:
		ie.Scorer = &model.RiskScorer{}
		err = decodeJSON(clean, ie.Scorer)
		ie.Key = ie.Scorer.Key
	case model.KindEvaluationRun:
		ie.Run, err = decodeRun(clean)
		if err == nil {
			ie.Key = ie.Run.EvaluationKey + "/" + ie.Run.ID
		}
	}
	if err != nil {
		return nil // too broken to check further: the schema problems say why
	}
	b.invalid = append(b.invalid, ie)
	if kind == model.KindEvaluationRun {
		return ie.filter(runProblems(ie.Entity))
	}
	return nil
}

func decodeJSON(m map[string]any, v any) error {
	raw, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, v)
}

// wasDropped tells whether the field (or any config_spec item, for
// "config_spec") was left out.
func (ie invalidEntity) wasDropped(field string) bool {
	for _, d := range ie.dropped {
		if d == field || strings.HasPrefix(d, field+"/") {
			return true
		}
	}
	return false
}

// filter drops the diagnostics at, inside or around a pointer the schema
// already reported (not counting the entity itself, where a missing field
// is reported).
func (ie invalidEntity) filter(ds diag.List) diag.List {
	var out diag.List
next:
	for _, d := range ds {
		for _, p := range ie.missing {
			// reported once, as missing, not again as empty or unparsable
			if d.Pointer == p || strings.HasPrefix(d.Pointer, p+"/") {
				continue next
			}
		}
		for _, p := range ie.schemaPtrs {
			if p == ie.Pointer {
				continue
			}
			if d.Pointer == p || strings.HasPrefix(d.Pointer, p+"/") || (d.Pointer != ie.Pointer && strings.HasPrefix(p, d.Pointer+"/")) {
				continue next
			}
		}
		out = append(out, d)
	}
	return out
}

// checkInvalid runs on the entities with schema problems the checks Check
// runs on the others: keys defined twice (seen holds the valid entities by
// kind and key), a methodology's own checks, and a scorer's config against
// its methodology (valid ones in methods, else one with schema problems
// outside its config_spec).
func (b *Batch) checkInvalid(seen map[string]*Entity, methods map[string]*model.Methodology) diag.List {
	var diags diag.List
	usable := map[string]*model.Methodology{}
	for _, ie := range b.invalid {
		if ie.Kind == model.KindMethodology && ie.Key != "" && !ie.wasDropped("config_spec") && !ie.wasDropped("key") {
			if _, ok := usable[ie.Key]; !ok {
				usable[ie.Key] = ie.Methodology
			}
		}
	}
	for _, ie := range b.invalid {
		var ds diag.List
		if ie.Key != "" && !ie.wasDropped("key") {
			id := string(ie.Kind) + "\x00" + ie.Key
			if first, dup := seen[id]; dup {
				what := "key"
				if ie.Kind == model.KindEvaluationRun {
					what = "run id"
				}
				ds = append(ds, ie.Errorf("", "%s %q is defined twice (first at %s:%d)", what, ie.Key, first.File.Rel, line(first)))
			} else {
				seen[id] = ie.Entity
			}
		}
		switch ie.Kind {
		case model.KindMethodology:
			dependsOnSpec := ie.wasDropped("config_spec") || ie.wasDropped("metric_key")
			for _, p := range risk.CheckMethodology(ie.Methodology) {
				if dependsOnSpec && p.Pointer == "/function" {
					continue // undeclared variables may be the dropped parameters
				}
				ds = append(ds, ie.Errorf(p.Pointer, "%s", p.Msg))
			}
		case model.KindRiskScorer:
			if ie.wasDropped("config") || ie.wasDropped("risk_scoring_methodology_key") || ie.Scorer.RiskScoringMethodologyKey == "" {
				break
			}
			m := methods[ie.Scorer.RiskScoringMethodologyKey]
			if m == nil {
				m = usable[ie.Scorer.RiskScoringMethodologyKey]
			}
			if m == nil {
				break // not found, or its methodology's problems are reported already
			}
			for _, p := range risk.CheckScorer(ie.Scorer, m) {
				ds = append(ds, ie.Errorf(p.Pointer, "%s", p.Msg))
			}
		}
		diags = append(diags, ie.filter(ds)...)
	}
	return diags
}

// missingFields reads the field names of the schema's "missing required
// field" message (one or more quoted names).
func missingFields(msg string) []string {
	rest, ok := strings.CutPrefix(msg, "missing required field ")
	if !ok {
		return nil
	}
	var out []string
	for _, q := range quotedName.FindAllString(rest, -1) {
		if name, err := strconv.Unquote(q); err == nil {
			out = append(out, yamlsrc.EscapePointer(name))
		}
	}
	return out
}

var quotedName = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)

package project

import (
	"strings"
	"sync"

	"github.com/lfcli/lf/pkg/kind"
	"github.com/lfcli/lf/pkg/model"
	"github.com/lfcli/lf/pkg/yamlsrc"
	"github.com/lfcli/lf/schemas"
)

// The entity kinds, each declared once as a kind.Kind: its command-line
// plural (Name), its section of an entity file (List), the schema and the
// Go type its entries decode into. Entity files are read as a batch
// (LoadEntities, Validate): one schema step per file (on several cores for
// a large one), kind.Skip, then each entry through its kind's Entry (decode
// and check), and Batch.Check across the batch (references between files,
// keys given twice). They are not file kinds of their own: a file may hold
// every section (EntityFile).
var (
	AIApps = kind.Kind[model.AIApp, struct{}]{
		Name: "ai-apps", Schema: "project", List: "ai_apps",
	}
	Methodologies = kind.Kind[model.Methodology, struct{}]{
		Name: "risk-scoring-methodologies", Schema: "project", List: "risk_scoring_methodologies",
	}
	RiskScorers = kind.Kind[model.RiskScorer, struct{}]{
		Name: "risk-scorers", Schema: "project", List: "risk_scorers",
	}
	EvaluationRuns = kind.Kind[model.EvaluationRun, struct{}]{
		Name: "evaluation-runs", Schema: "project", List: "evaluation_runs",
		Decode: decodeRunAt,
	}
	// Frameworks are compliance frameworks (frameworks.go): the section's
	// entries are schemas/frameworks.schema.json's.
	Frameworks = kind.Kind[model.Framework, struct{}]{
		Name: "frameworks", Schema: "project", List: "frameworks",
		Decode: decodeFramework, Check: checkFramework,
	}
)

// KindInfo describes an entity kind of project files.
type KindInfo struct {
	Kind    model.Kind
	Plural  string // command-line plural, e.g. risk-scorers: the kind's Name
	Section string // top-level YAML key, e.g. risk_scorers: the kind's List
}

// Kinds lists the entity kinds in export order.
var Kinds = []KindInfo{
	entityKind(model.KindAIApp, &AIApps),
	entityKind(model.KindMethodology, &Methodologies),
	entityKind(model.KindRiskScorer, &RiskScorers),
	entityKind(model.KindEvaluationRun, &EvaluationRuns),
	entityKind(model.KindFramework, &Frameworks),
}

func entityKind[T any](k model.Kind, decl *kind.Kind[T, struct{}]) KindInfo {
	return KindInfo{Kind: k, Plural: decl.Name, Section: decl.List}
}

// ParseKind accepts the singular or plural command-line name of a kind (or
// its YAML section name).
func ParseKind(s string) (KindInfo, bool) {
	for _, k := range Kinds {
		if s == string(k.Kind) || s == k.Plural || s == k.Section {
			return k, true
		}
	}
	return KindInfo{}, false
}

// KindNames lists the accepted kind names for messages.
func KindNames() string {
	var out []string
	for _, k := range Kinds {
		out = append(out, string(k.Kind))
	}
	return strings.Join(out, ", ")
}

// The documented key order of canonical YAML is the order of the
// properties in schemas/project.schema.json, read from the schema so that
// it is declared once. Keys not listed (config, values_mapping and metrics
// entries) are written in sorted order. TestSchemaAndGoTypesAgree checks
// that the schema and the Go types name the same fields.
type keyOrders struct {
	aiApp, keyInfo,
	methodology, param, scorer, scope, run, result, section []string
	framework, requirement, evidence []string
}

// orders reads the key orders from the schema the first time one is
// needed, not at start-up: most commands never write canonical YAML.
var orders = sync.OnceValue(func() keyOrders {
	doc, apps, fw := schemaDoc("project"), schemaDoc("ai_apps"), schemaDoc("frameworks")
	return keyOrders{
		aiApp:       mustKeys(apps, "/$defs/ai_app/properties"),
		keyInfo:     mustKeys(apps, "/$defs/key_info/properties"),
		methodology: mustKeys(doc, "/$defs/methodology/properties"),
		param:       mustKeys(doc, "/$defs/param/properties"),
		scorer:      mustKeys(doc, "/$defs/risk_scorer/properties"),
		scope:       mustKeys(doc, "/$defs/scope/oneOf/1/properties"),
		run:         mustKeys(doc, "/$defs/evaluation_run/properties"),
		result:      mustKeys(doc, "/$defs/evaluation_run/properties/results/items/properties"),
		section:     mustKeys(doc, "/properties"),
		framework:   mustKeys(fw, "/$defs/framework/properties"),
		requirement: mustKeys(fw, "/$defs/requirement/properties"),
		evidence:    mustKeys(fw, "/$defs/requirement/properties/evidence/properties"),
	}
})

// schemaDoc parses schemas/<name>.schema.json keeping its key order.
func schemaDoc(name string) *yamlsrc.Doc {
	b, err := schemas.FS.ReadFile(name + ".schema.json")
	if err != nil {
		panic(err) // embedded: cannot happen in a built binary
	}
	doc, ds := yamlsrc.Parse(name+".schema.json", b)
	if ds.HasErrors() {
		panic(ds[0].String())
	}
	return doc
}

// mustKeys returns the keys, in schema order, of the mapping at pointer.
func mustKeys(doc *yamlsrc.Doc, pointer string) []string {
	keys := doc.Keys(pointer)
	if len(keys) == 0 {
		panic(doc.File + ": no properties at " + pointer)
	}
	return keys
}

// KeyOrder returns the canonical key order for a mapping of an entity of
// kind at pointer rel (relative to the entity).
func KeyOrder(kind model.Kind, rel string, keys []string) []string {
	var order []string
	o := orders()
	parts := strings.Split(strings.TrimPrefix(rel, "/"), "/")
	switch {
	case rel == "":
		switch kind {
		case model.KindAIApp:
			order = o.aiApp
		case model.KindMethodology:
			order = o.methodology
		case model.KindRiskScorer:
			order = o.scorer
		case model.KindEvaluationRun:
			order = o.run
		case model.KindFramework:
			order = o.framework
		}
	case kind == model.KindAIApp && rel == "/key_info":
		order = o.keyInfo
	case kind == model.KindMethodology && len(parts) == 2 && parts[0] == "config_spec":
		order = o.param
	case kind == model.KindRiskScorer && rel == "/scope":
		order = o.scope
	case kind == model.KindEvaluationRun && len(parts) == 2 && parts[0] == "results":
		order = o.result
	case kind == model.KindFramework && len(parts) == 2 && parts[0] == "requirements":
		order = o.requirement
	case kind == model.KindFramework && len(parts) == 3 && parts[0] == "requirements" && parts[2] == "evidence":
		order = o.evidence
	}
	return applyOrder(order, keys)
}

// SectionOrder orders the top-level sections of a file.
func SectionOrder(keys []string) []string { return applyOrder(orders().section, keys) }

func applyOrder(order, keys []string) []string {
	if order == nil {
		return keys
	}
	have := map[string]bool{}
	for _, k := range keys {
		have[k] = true
	}
	out := make([]string, 0, len(keys))
	for _, k := range order {
		if have[k] {
			out = append(out, k)
			delete(have, k)
		}
	}
	for _, k := range keys { // sorted already; unknown keys last
		if have[k] {
			out = append(out, k)
		}
	}
	return out
}

// Settings is the project's lf.yaml.
type Settings struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	App         *string  `json:"app"`     // the app key scoping the project's data (App)
	Include     []string `json:"include"` // what validating the whole project covers
	Exclude     []string `json:"exclude"`
}

// Marker is the file kind lf.yaml (schemas/lf.schema.json), told apart by
// its name.
var Marker = kind.Kind[Settings, struct{}]{Name: "lf", Description: "the project's lf.yaml", Schema: "lf", FileName: MarkerFile}

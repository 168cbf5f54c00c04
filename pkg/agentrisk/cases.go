package agentrisk

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/kind"
	"github.com/lfcli/lf/pkg/yamlsrc"
)

// DecideCase is one case of a decisions file (`cases: [{name, config, agent,
// request, expect}]`), the format of the shared conformance suite.
type DecideCase struct {
	Name        string
	Config      RiskConfig
	Agent       AgentState
	Request     Request
	TenantCount int
	Expect      map[string]any // fields the decision must have; nil when none
	Pointer     string         // JSON pointer of the case in its file
}

// CaseResult is what `lf agents decide` prints for a case.
type CaseResult struct {
	Name string `json:"name"`
	Decision
}

// Run decides the case.
func (c *DecideCase) Run() CaseResult {
	return CaseResult{Name: c.Name, Decision: Decide(c.Config, c.Agent, c.Request, c.TenantCount)}
}

// Mismatches lists the expected fields the result does not have.
func (c *DecideCase) Mismatches(r CaseResult) []string {
	b, _ := json.Marshal(r)
	var got map[string]any
	_ = json.Unmarshal(b, &got)
	var out []string
	for _, k := range sortedKeys(c.Expect) {
		want := c.Expect[k]
		g, ok := got[k]
		if !ok || !sameValue(g, want) {
			out = append(out, fmt.Sprintf("%s: got %v, want %v", k, g, want))
		}
	}
	return out
}

func sameValue(a, b any) bool {
	fa, oka := toFloat(a)
	fb, okb := toFloat(b)
	if oka && okb {
		return math.Abs(fa-fb) < 1e-9
	}
	return fmt.Sprint(a) == fmt.Sprint(b)
}

func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int64:
		return float64(x), true
	case int:
		return float64(x), true
	}
	return 0, false
}

// CasesFile is the file kind of agent risk decision cases (`cases: [{name,
// config, agent, request, expect}]`, `lf agents decide -f`). It has no
// schema of its own: checkCase checks each case, whose config is a risk
// config read through ConfigBody.
var CasesFile = kind.Kind[caseEntry, struct{}]{
	Name:        "agent-risk-cases",
	Description: "agent risk decision cases (use `lf agents decide -f`)",
	List:        "cases",
	NotMapping:  "expected a mapping with a cases list",
	Missing:     casesShape,
	Lint: func(doc *yamlsrc.Doc, _ string) diag.List {
		list, ok := doc.Value.(map[string]any)["cases"].([]any)
		if !ok {
			return diag.List{doc.Errorf("", casesShape)}
		}
		var out diag.List
		for i, item := range list {
			if _, ok := item.(map[string]any); !ok {
				out = append(out, doc.Errorf(fmt.Sprintf("/cases/%d", i), "expected a case object"))
			}
		}
		return out
	},
	Check: checkCase,
}

const casesShape = "expected cases: [{name, config, agent, request, expect}]"

// caseEntry is one case as decoded: its mapping, and the case checkCase
// built from it (done when the case got through its checks).
type caseEntry struct {
	m    map[string]any
	c    DecideCase
	done bool
}

func (e *caseEntry) UnmarshalJSON(b []byte) error { return json.Unmarshal(b, &e.m) }

// ParseDecideCases reads a decisions file. Configs take the defaults for the
// fields they leave out and are validated like any risk config.
func ParseDecideCases(file string, data []byte) ([]DecideCase, diag.List) {
	entries, diags := CasesFile.Parse(file, data, struct{}{}).All()
	if diags.HasErrors() {
		return nil, diags
	}
	var out []DecideCase
	for _, e := range entries {
		if e.done {
			out = append(out, e.c)
		}
	}
	return out, nil
}

// checkCase checks the case at p and builds it.
func checkCase(doc *yamlsrc.Doc, p string, e *caseEntry, _ struct{}) diag.List {
	var diags diag.List
	m := e.m
	c := DecideCase{Pointer: p, Config: defaultRiskConfig()}
	for k := range m {
		switch k {
		case "name", "config", "agent", "request", "expect":
		default:
			diags = append(diags, doc.Errorf(p+"/"+yamlsrc.EscapePointer(k), "unknown field %q (expected name, config, agent, request, expect)", k))
		}
	}
	if s, ok := m["name"].(string); ok {
		c.Name = s
	} else {
		diags = append(diags, doc.Errorf(p, "missing name"))
	}
	if _, ok := m["config"]; ok {
		// The config is a risk config like any other.
		res := ConfigBody.ParseAt(doc, p+"/config", struct{}{})
		diags = append(diags, res.Diags...)
		if len(res.Values) == 0 {
			return diags // schema problems: the rest would be guesses
		}
		c.Config = res.Values[0]
	}
	var agent struct {
		Score         *float64 `json:"score"`
		SecondsInTier *float64 `json:"secondsInTier"`
		OverrideTier  string   `json:"overrideTier"`
	}
	if err := doc.Decode(p+"/agent", &agent); err != nil || agent.Score == nil {
		diags = append(diags, doc.Errorf(p+"/agent", "expected agent: {score: 0..100, secondsInTier?, overrideTier?}"))
		return diags
	}
	if *agent.Score < 0 || *agent.Score > 100 {
		diags = append(diags, doc.Errorf(p+"/agent/score", "score must lie within 0..100"))
	}
	switch Tier(agent.OverrideTier) {
	case "", TierNormal, TierElevated, TierHigh, TierCritical:
	default:
		diags = append(diags, doc.Errorf(p+"/agent/overrideTier", "overrideTier must be normal, elevated, high or critical"))
	}
	c.Agent = AgentState{Score: int(math.Round(*agent.Score)), SecondsInTier: agent.SecondsInTier, OverrideTier: Tier(agent.OverrideTier)}
	var req struct {
		Method      string `json:"method"`
		Shadow      bool   `json:"shadow"`
		TenantCount int    `json:"tenantCount"`
	}
	if err := doc.Decode(p+"/request", &req); err != nil {
		diags = append(diags, doc.Errorf(p+"/request", "expected request: {method, shadow?, tenantCount?}: %v", err))
		return diags
	}
	c.Request = Request{Method: req.Method, Shadow: req.Shadow}
	c.TenantCount = req.TenantCount
	if e, ok := m["expect"].(map[string]any); ok {
		c.Expect = e
	}
	e.c, e.done = c, true
	return diags
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

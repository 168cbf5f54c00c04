package alerts

import (
	"errors"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/kind"
	"github.com/lfcli/lf/pkg/yamlsrc"
)

// RulesFile is the file kind `alert_rules: [...]` (YAML or JSON): every
// rule names its tenant and a stable id. Its check is CheckRules.
var RulesFile = kind.Kind[Rule, HostAllowList]{
	Name:       "alert-rules",
	Schema:     "alert-rules",
	List:       "alert_rules",
	NotMapping: "expected a mapping with an alert_rules list, e.g. alert_rules: [{tenantId: acme, id: crit, tier: critical, channel: webhook, url: ..., secretName: ...}]",
	Missing:    "missing alert_rules: expected alert_rules: [{tenantId: ..., ...}]",
	Check: func(doc *yamlsrc.Doc, ptr string, r *Rule, allow HostAllowList) diag.List {
		if r.ID == "" {
			return diag.List{doc.Errorf(ptr, "missing id: a rule in a file needs a stable id so that setting the file again replaces it")}
		}
		return CheckRule(doc, ptr, r, allow)
	},
	CheckAll: checkDuplicates,
}

// BodyRule is what checking one rule sent to the server needs: the tenant
// of the request path, the webhook allow-list and, with Policy, the
// server's outbound policy and declared secrets (Rule.CheckPolicy).
type BodyRule struct {
	Tenant  string
	Allow   HostAllowList
	Secrets Secrets
	Policy  bool
}

// RuleBody is one alert rule object (POST /tenants/{tenantId}/alert-rules):
// its tenantId, when given, must be the path's; its id is generated when
// absent. Its check is CheckRule.
var RuleBody = kind.Kind[Rule, BodyRule]{
	Name:   "alert-rule",
	Schema: "alert-rules",
	Empty:  "empty body: expected an alert rule object",
	Lint: func(doc *yamlsrc.Doc, ptr string) diag.List {
		v, _ := doc.Get(ptr)
		if m, ok := v.(map[string]any); ok {
			if _, isFile := m["alert_rules"]; isFile {
				return diag.List{doc.Errorf(ptr+"/alert_rules", "expected one alert rule, not an alert_rules list")}
			}
		}
		return nil
	},
	Check: func(doc *yamlsrc.Doc, ptr string, r *Rule, b BodyRule) diag.List {
		if r.TenantID != "" && r.TenantID != b.Tenant {
			return diag.List{doc.Errorf(ptr+"/tenantId", "%q does not match the tenant of the path %q", r.TenantID, b.Tenant)}
		}
		r.TenantID = b.Tenant
		if r.ID == "" {
			r.ID = NewID("rule_")
		}
		if d := CheckRule(doc, ptr, r, b.Allow); d.HasErrors() || !b.Policy {
			return d
		}
		return CheckRulePolicy(doc, ptr, r, b.Allow, b.Secrets)
	},
}

// ParseRulesFile parses a project file `alert_rules: [...]` (named file in
// messages) through the RulesFile kind and returns the rules, or every
// problem as a located diagnostic.
func ParseRulesFile(file string, data []byte, allow HostAllowList) ([]Rule, diag.List) {
	rules, ds := RulesFile.Parse(file, data, allow).All()
	if ds.HasErrors() {
		return nil, ds
	}
	return rules, nil
}

// CheckRule is the one check of an alert rule beyond its schema, wherever
// the rule comes from (a rules file, a request body, the server config's
// alertRules): Rule.Check's problem located at ptr, the rule's pointer in
// doc.
func CheckRule(doc *yamlsrc.Doc, ptr string, r *Rule, allow HostAllowList) diag.List {
	err := r.Check(allow)
	if err == nil {
		return nil
	}
	var fe *FieldError
	if errors.As(err, &fe) {
		return diag.List{doc.Errorf(ptr+fe.Pointer, "%s", fe.Msg)}
	}
	return diag.List{doc.Errorf(ptr, "%v", err)}
}

// CheckRulePolicy is Rule.CheckPolicy's problem located at ptr: the checks
// that need the server's config (outbound policy, declared secrets).
func CheckRulePolicy(doc *yamlsrc.Doc, ptr string, r *Rule, allow HostAllowList, secrets Secrets) diag.List {
	err := r.CheckPolicy(allow, secrets)
	if err == nil {
		return nil
	}
	var fe *FieldError
	if errors.As(err, &fe) {
		return diag.List{doc.Errorf(ptr+fe.Pointer, "%s", fe.Msg)}
	}
	return diag.List{doc.Errorf(ptr, "%v", err)}
}

// CheckRulesPolicy runs CheckRulePolicy on the rules that pass Rule.Check
// (the others are reported by CheckRules).
func CheckRulesPolicy(doc *yamlsrc.Doc, ptrs []string, rules []Rule, allow HostAllowList, secrets Secrets) diag.List {
	var out diag.List
	for i := range rules {
		if rules[i].Check(allow) == nil {
			out = append(out, CheckRulePolicy(doc, ptrs[i], &rules[i], allow, secrets)...)
		}
	}
	return out
}

// CheckRules checks rules decoded from doc (rules[i] at ptrs[i]) with
// CheckRule, and that no tenant defines a rule id twice.
func CheckRules(doc *yamlsrc.Doc, ptrs []string, rules []Rule, allow HostAllowList) diag.List {
	var out diag.List
	for i := range rules {
		out = append(out, CheckRule(doc, ptrs[i], &rules[i], allow)...)
	}
	return append(out, checkDuplicates(doc, ptrs, rules, allow)...)
}

func checkDuplicates(doc *yamlsrc.Doc, ptrs []string, rules []Rule, _ HostAllowList) diag.List {
	var out diag.List
	seen := map[string]bool{}
	for i, r := range rules {
		if r.ID == "" {
			continue // reported as missing
		}
		k := r.TenantID + "\x00" + r.ID
		if seen[k] {
			out = append(out, doc.Errorf(ptrs[i]+"/id", "rule %q is defined twice for tenant %q", r.ID, r.TenantID))
		}
		seen[k] = true
	}
	return out
}

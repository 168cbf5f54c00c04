package alerts

import (
	"errors"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/kind"
	"github.com/lfcli/lf/pkg/yamlsrc"
)

// RulesFile is the file kind `alert_rules: [...]` (YAML or JSON): every
// rule names its tenant and a stable id. Its check is CheckRules.
var RulesFile = kind.Kind[Rule, RuleCheck]{
	Name:        "alert-rules",
	Description: "an alert rules file",
	Schema:      "alert-rules",
	List:        "alert_rules",
	NotMapping:  "expected a mapping with an alert_rules list, e.g. alert_rules: [{tenantId: acme, id: crit, tier: critical, channel: webhook, url: ..., secretName: ...}]",
	Missing:     "missing alert_rules: expected alert_rules: [{tenantId: ..., ...}]",
	Check: func(doc *yamlsrc.Doc, ptr string, r *Rule, rc RuleCheck) diag.List {
		if r.ID == "" {
			return diag.List{doc.Errorf(ptr, "missing id: a rule in a file needs a stable id so that setting the file again replaces it")}
		}
		return CheckRule(doc, ptr, r, rc)
	},
	CheckAll: checkDuplicates,
}

// RuleCheck is where a rule is checked. Allow is the webhook allow-list.
// Server is set where lf serve's config is known (its alertRules, a request
// body): the webhook target is then checked against the outbound policy
// and the secretName against the Secrets declared for the rule's tenant. A
// rules file checked on its own (lf validate, lf set) gets those checks
// when lf serve loads its rules.
type RuleCheck struct {
	Allow   HostAllowList
	Secrets Secrets
	Server  bool
}

// BodyRule is what checking one rule sent to the server needs: the tenant
// of the request path and the server's RuleCheck.
type BodyRule struct {
	Tenant string
	RuleCheck
}

// RuleBody is one alert rule object (POST /tenants/{tenantId}/alert-rules):
// its tenantId, when given, must be the path's; its id is generated when
// absent. Its check is CheckRule.
var RuleBody = kind.Kind[Rule, BodyRule]{
	Name:     "alert-rule",
	Schema:   "alert-rules",
	Empty:    "empty body: expected an alert rule object",
	FileList: "alert_rules",
	One:      "alert rule",
	Check: func(doc *yamlsrc.Doc, ptr string, r *Rule, b BodyRule) diag.List {
		if r.TenantID != "" && r.TenantID != b.Tenant {
			return diag.List{doc.Errorf(ptr+"/tenantId", "%q does not match the tenant of the path %q", r.TenantID, b.Tenant)}
		}
		r.TenantID = b.Tenant
		if r.ID == "" {
			r.ID = NewID("rule_")
		}
		return CheckRule(doc, ptr, r, b.RuleCheck)
	},
}

// ParseRulesFile parses a project file `alert_rules: [...]` (named file in
// messages) through the RulesFile kind and returns the rules, or every
// problem as a located diagnostic.
func ParseRulesFile(file string, data []byte, allow HostAllowList) ([]Rule, diag.List) {
	rules, ds := RulesFile.Parse(file, data, RuleCheck{Allow: allow}).All()
	if ds.HasErrors() {
		return nil, ds
	}
	return rules, nil
}

// CheckRule is the one check of an alert rule beyond its schema, wherever
// the rule comes from (a rules file, a request body, the server config's
// alertRules): Rule.Check, then where rc.Server Rule.CheckPolicy, with the
// problem located at ptr, the rule's pointer in doc.
func CheckRule(doc *yamlsrc.Doc, ptr string, r *Rule, rc RuleCheck) diag.List {
	err := r.Check(rc.Allow)
	if err == nil && rc.Server {
		err = r.CheckPolicy(rc.Allow, rc.Secrets)
	}
	if err == nil {
		return nil
	}
	var fe *FieldError
	if errors.As(err, &fe) {
		return diag.List{doc.Errorf(ptr+fe.Pointer, "%s", fe.Msg)}
	}
	return diag.List{doc.Errorf(ptr, "%v", err)}
}

// CheckRules checks rules decoded from doc (rules[i] at ptrs[i]) with
// CheckRule, and that no tenant defines a rule id twice.
func CheckRules(doc *yamlsrc.Doc, ptrs []string, rules []Rule, rc RuleCheck) diag.List {
	var out diag.List
	for i := range rules {
		out = append(out, CheckRule(doc, ptrs[i], &rules[i], rc)...)
	}
	return append(out, checkDuplicates(doc, ptrs, rules, rc)...)
}

func checkDuplicates(doc *yamlsrc.Doc, ptrs []string, rules []Rule, _ RuleCheck) diag.List {
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

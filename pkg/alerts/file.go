package alerts

import (
	"errors"
	"fmt"
	"strings"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/schema"
	"github.com/lfcli/lf/pkg/yamlsrc"
)

// ParseRulesFile parses a project file `alert_rules: [...]` (YAML or JSON,
// named file in messages), validates it with schemas/alert-rules.schema.json
// and the checks of Rule.Check, and returns the rules. Every problem is a
// located diagnostic.
func ParseRulesFile(file string, data []byte, allow HostAllowList) ([]Rule, diag.List) {
	doc, diags := yamlsrc.Parse(file, data)
	if diags.HasErrors() {
		return nil, diags
	}
	m, ok := doc.Value.(map[string]any)
	if !ok {
		return nil, diag.List{{File: file, Line: 1, Col: 1, Msg: "expected a mapping with an alert_rules list, e.g. alert_rules: [{tenantId: acme, id: crit, tier: critical, channel: webhook, url: ..., secretEnv: ...}]"}}
	}
	if _, ok := m["alert_rules"]; !ok {
		return nil, diag.List{doc.Errorf("", "missing alert_rules: expected alert_rules: [{tenantId: ..., ...}]")}
	}
	// Schema problems first; rules without any are then checked further, so
	// that one run reports every problem of the file.
	out := schema.Validate("alert-rules", doc)
	bad := func(ptr string) bool {
		for _, d := range out {
			if d.Pointer == ptr || strings.HasPrefix(d.Pointer, ptr+"/") || d.Pointer == "" || d.Pointer == "/alert_rules" {
				return true
			}
		}
		return false
	}
	list, _ := m["alert_rules"].([]any)
	var rules []Rule
	seen := map[string]bool{}
	for i := range list {
		ptr := fmt.Sprintf("/alert_rules/%d", i)
		if bad(ptr) {
			continue
		}
		var r Rule
		if err := doc.Decode(ptr, &r); err != nil {
			out = append(out, doc.Errorf(ptr, "%v", err))
			continue
		}
		if r.ID == "" {
			out = append(out, doc.Errorf(ptr, "missing id: a rule in a file needs a stable id so that setting the file again replaces it"))
			continue
		}
		if err := r.Check(allow); err != nil {
			var fe *FieldError
			if errors.As(err, &fe) {
				out = append(out, doc.Errorf(ptr+fe.Pointer, "%s", fe.Msg))
			} else {
				out = append(out, doc.Errorf(ptr, "%v", err))
			}
		}
		k := r.TenantID + "\x00" + r.ID
		if seen[k] {
			out = append(out, doc.Errorf(ptr+"/id", "rule %q is defined twice for tenant %q", r.ID, r.TenantID))
		}
		seen[k] = true
		rules = append(rules, r)
	}
	if out.HasErrors() {
		out.Sort()
		return nil, out
	}
	return rules, nil
}

package server

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/lfcli/lf/pkg/alerts"
)

// Role is what a key may do within its tenant. Roles are ordered: each one
// may do everything the roles below it may.
type Role int

// The roles, least first.
const (
	RoleNone     Role = iota // public endpoints (no key)
	RoleViewer               // read scores, baselines, configs, rules, deliveries, reports
	RoleOperator             // what a gateway needs: ingest events, ask for verdicts, recalculate
	RoleAdmin                // change the tenant: risk config (incl. the enforcement switch), alert rules, release, baseline reset
)

// DefaultRole is the role of a tenant key configured without one: the
// least role, so that forgetting `role:` never grants more than reading.
const DefaultRole = RoleViewer

var roleNames = map[Role]string{RoleNone: "public", RoleViewer: "viewer", RoleOperator: "operator", RoleAdmin: "admin"}

func (r Role) String() string { return roleNames[r] }

// ParseRole reads a role name of server.yaml.
func ParseRole(s string) (Role, bool) {
	for r, n := range roleNames {
		if r != RoleNone && n == s {
			return r, true
		}
	}
	return RoleNone, false
}

// route is one endpoint and the least role it needs. routeTable is the one
// list of endpoints: routes() registers it, and a test checks it against the
// x-lf-role of every operation of schemas/openapi.json.
type route struct {
	pattern string // http.ServeMux pattern, "METHOD /path"
	role    Role
}

// routeTable lists every endpoint with the role it needs.
var routeTable = []route{
	{"GET /healthz", RoleNone},
	{"GET /openapi.json", RoleNone},
	{"POST /verdict", RoleOperator},
	{"GET /tenants/{tenantId}/agents", RoleViewer},
	{"GET /tenants/{tenantId}/agents/{agentId}/risk", RoleViewer},
	{"POST /tenants/{tenantId}/risk/recalculate", RoleOperator},
	{"POST /tenants/{tenantId}/agents/{agentId}/risk/recalculate", RoleOperator},
	{"GET /tenants/{tenantId}/agents/{agentId}/baseline", RoleViewer},
	{"DELETE /tenants/{tenantId}/agents/{agentId}/baseline", RoleAdmin},
	{"POST /tenants/{tenantId}/agents/{agentId}/release", RoleAdmin},
	{"GET /tenants/{tenantId}/risk-config", RoleViewer},
	{"PUT /tenants/{tenantId}/risk-config", RoleAdmin},
	{"POST /tenants/{tenantId}/events", RoleOperator},
	{"GET /tenants/{tenantId}/alert-rules", RoleViewer},
	{"POST /tenants/{tenantId}/alert-rules", RoleAdmin},
	{"DELETE /tenants/{tenantId}/alert-rules/{ruleId}", RoleAdmin},
	{"GET /tenants/{tenantId}/alert-deliveries", RoleViewer},
	{"GET /report", RoleViewer},
	{"GET /tenants/{tenantId}/report", RoleViewer},
}

// roleOf returns the role a route pattern needs (RoleAdmin for an unknown
// pattern, so a route added without a table entry fails closed).
func roleOf(pattern string) Role {
	for _, r := range routeTable {
		if r.pattern == pattern {
			return r.role
		}
	}
	return RoleAdmin
}

// Allows reports whether the principal holds role within its tenants.
func (p Principal) Allows(role Role) bool {
	return p.Admin || p.Role >= role
}

// writeForbidden answers 403 to a known key without the role.
func writeForbidden(w http.ResponseWriter, p Principal, need Role) {
	writeError(w, http.StatusForbidden, fmt.Sprintf("key %q has role %s; this needs role %s", p.Name, p.Role, need), "")
}

// requireRole checks the route's role for an endpoint that is not tenant
// scoped by its path (POST /verdict checks after reading its tenant).
func (s *Server) requireRole(pattern string, h http.HandlerFunc) http.HandlerFunc {
	need := roleOf(pattern)
	return func(w http.ResponseWriter, r *http.Request) {
		if p := principalFrom(r.Context()); !p.Allows(need) {
			writeForbidden(w, p, need)
			return
		}
		h(w, r)
	}
}

// keySummary describes which key has which role, one line per key, for the
// start-up log; it never includes a key itself.
func keySummary(keys []Key) []string {
	var out []string
	for _, k := range keys {
		switch {
		case k.Admin:
			out = append(out, fmt.Sprintf("key %q: global admin (every tenant, every role)", k.Name))
		default:
			note := ""
			if k.RoleDefaulted {
				note = " (no role set: the least role)"
			}
			out = append(out, fmt.Sprintf("key %q: tenant %s, role %s%s", k.Name, k.Tenant, k.Role, note))
		}
	}
	sort.Strings(out)
	return out
}

// logKeys writes keySummary to the server log, then warns about stored
// webhook rules that the outbound policy or the declared secrets refuse
// (e.g. rules of an earlier version with secretEnv, or loaded by
// lf set alert-rules with a secretName the config does not declare):
// their deliveries will fail with "refused by policy" or "no signing
// secret".
func (s *Server) logKeys() {
	for _, l := range keySummary(s.cfg.Keys) {
		s.logf("lf serve: %s", l)
	}
	for _, l := range sharedSecrets(s.cfg.Secrets) {
		s.logf("lf serve: warning: %s", l)
	}
	rules, err := alerts.ListRules(context.Background(), s.store, "")
	if err != nil {
		return
	}
	for _, r := range rules {
		err := r.Check(s.cfg.Alerts.AllowHosts)
		if err == nil {
			err = r.CheckPolicy(s.cfg.Alerts.AllowHosts, s.cfg.Secrets)
		}
		if err != nil && !r.Disabled {
			s.logf("lf serve: alert rule %q of tenant %s will not deliver: %v", r.ID, r.TenantID, err)
		}
	}
}

// roleList is the documented list of role names.
func roleList() string {
	return strings.Join([]string{RoleViewer.String(), RoleOperator.String(), RoleAdmin.String()}, ", ")
}

// sharedSecrets names the signing secrets that have the same value in two
// tenants (never the value): a receiver of one tenant could then forge or
// replay the other tenant's alerts. One line per pair, sorted.
func sharedSecrets(secrets alerts.Secrets) []string {
	type owner struct{ tenant, name string }
	byValue := map[string][]owner{}
	for t, names := range secrets {
		for n, v := range names {
			byValue[v] = append(byValue[v], owner{t, n})
		}
	}
	var out []string
	for _, os := range byValue {
		for i := range os {
			for j := range os {
				a, b := os[i], os[j]
				if a.tenant < b.tenant {
					out = append(out, fmt.Sprintf("secret %q of tenant %s and secret %q of tenant %s have the same value; give each tenant its own (a receiver of one could sign alerts of the other)", a.name, a.tenant, b.name, b.tenant))
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

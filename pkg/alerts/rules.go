// Package alerts turns per-agent risk changes into alerts and delivers them.
//
// A Rule belongs to one tenant and names a condition (a score threshold or a
// minimum tier) and a channel (a signed webhook or an email). Evaluate
// compares every recalculated agent against the tenant's rules and fires a
// rule once per upward crossing: the store remembers, per rule and agent,
// whether the agent is above, and the rule re-arms when the agent drops back.
// A Dispatcher delivers the fired alerts in the background with bounded
// retries and records every attempt.
package alerts

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/lfcli/lf/pkg/store"
)

// Channels a rule can deliver through.
const (
	ChannelWebhook = "webhook"
	ChannelEmail   = "email"
)

// ErrNotFound is returned for a rule that does not exist in the tenant.
var ErrNotFound = errors.New("alert rule not found")

// tierRank orders the risk tiers; unknown tiers rank below normal.
var tierRank = map[string]int{"normal": 1, "elevated": 2, "high": 3, "critical": 4}

// TierRank returns the order of a tier (normal 1 .. critical 4, unknown 0).
func TierRank(tier string) int { return tierRank[strings.ToLower(tier)] }

// Rule is one alert rule of a tenant. Exactly one of Threshold and Tier is
// set: Threshold fires when the score reaches it (>=) from below, Tier fires
// when the tier rises to it or above.
type Rule struct {
	ID        string   `json:"id"`
	TenantID  string   `json:"tenantId,omitempty"`
	Name      string   `json:"name,omitempty"`
	Threshold *float64 `json:"threshold,omitempty"`
	Tier      string   `json:"tier,omitempty"`
	Channel   string   `json:"channel"`
	URL       string   `json:"url,omitempty"`
	// Secret signs webhook bodies; SecretEnv names an environment variable
	// holding it instead, so that rule files can live in git.
	Secret    string    `json:"secret,omitempty"`
	SecretEnv string    `json:"secretEnv,omitempty"`
	To        []string  `json:"to,omitempty"`
	Disabled  bool      `json:"disabled,omitempty"`
	CreatedAt time.Time `json:"createdAt,omitzero"`
}

// PublicRule is a rule as the API and the CLI show it: the secret is never
// echoed back, only whether one is set.
type PublicRule struct {
	Rule
	Secret    string `json:"secret,omitempty"`
	HasSecret bool   `json:"hasSecret"`
}

// Public hides the rule's secret.
func (r Rule) Public() PublicRule {
	return PublicRule{Rule: r, HasSecret: r.Secret != "" || r.SecretEnv != ""}
}

// above reports whether an agent with score and tier is on the firing side
// of the rule.
func (r Rule) above(score float64, tier string) bool {
	if r.Threshold != nil {
		return score >= *r.Threshold
	}
	return TierRank(tier) >= TierRank(r.Tier)
}

// Condition describes the rule's condition for messages.
func (r Rule) Condition() string {
	if r.Threshold != nil {
		return fmt.Sprintf("score >= %g", *r.Threshold)
	}
	return "tier >= " + r.Tier
}

// HostAllowList restricts the hosts webhooks may be sent to. Entries are
// host names or IP addresses ("hooks.example.com", "127.0.0.1") or suffix
// patterns ("*.example.com"); an empty list allows every host.
type HostAllowList []string

// Allows reports whether host (without port) is allowed.
func (l HostAllowList) Allows(host string) bool {
	if len(l) == 0 {
		return true
	}
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	for _, p := range l {
		p = strings.ToLower(strings.TrimSpace(p))
		if strings.HasPrefix(p, "*.") {
			if strings.HasSuffix(host, p[1:]) && len(host) > len(p)-1 {
				return true
			}
			continue
		}
		if host == p {
			return true
		}
	}
	return false
}

// CheckWebhookURL accepts only absolute http(s) URLs whose host the allow
// list allows.
func CheckWebhookURL(raw string, allow HostAllowList) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("not a URL: %v", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("only http and https URLs are accepted, got %q", u.Scheme)
	}
	if u.Hostname() == "" {
		return errors.New("URL has no host")
	}
	if u.User != nil {
		return errors.New("URL must not carry credentials; use the rule's secret")
	}
	if !allow.Allows(u.Hostname()) {
		return fmt.Errorf("host %q is not in webhookAllowHosts", u.Hostname())
	}
	return nil
}

// FieldError is a problem with one field of a rule, named by JSON pointer
// relative to the rule.
type FieldError struct {
	Pointer string
	Msg     string
}

func (e *FieldError) Error() string { return e.Pointer + ": " + e.Msg }

// Check validates what the JSON Schema cannot: the URL's scheme and host and
// the mutual exclusion of conditions. It returns nil or a *FieldError.
func (r Rule) Check(allow HostAllowList) error {
	if r.ID == "" {
		return &FieldError{"/id", "is required"}
	}
	if (r.Threshold == nil) == (r.Tier == "") {
		return &FieldError{"", "exactly one of threshold and tier is required"}
	}
	if r.Threshold != nil && (*r.Threshold < 0 || *r.Threshold > 100) {
		return &FieldError{"/threshold", "must be between 0 and 100"}
	}
	if r.Tier != "" && TierRank(r.Tier) == 0 {
		return &FieldError{"/tier", "must be one of normal, elevated, high, critical"}
	}
	switch r.Channel {
	case ChannelWebhook:
		if r.URL == "" {
			return &FieldError{"/url", "is required for a webhook rule"}
		}
		if err := CheckWebhookURL(r.URL, allow); err != nil {
			return &FieldError{"/url", err.Error()}
		}
		if r.Secret == "" && r.SecretEnv == "" {
			return &FieldError{"/secret", "a webhook rule needs secret or secretEnv to sign its bodies"}
		}
	case ChannelEmail:
		if len(r.To) == 0 {
			return &FieldError{"/to", "is required for an email rule"}
		}
		for i, a := range r.To {
			if !strings.Contains(a, "@") || strings.ContainsAny(a, "\r\n<>") {
				return &FieldError{fmt.Sprintf("/to/%d", i), "is not an email address"}
			}
		}
	default:
		return &FieldError{"/channel", "must be webhook or email"}
	}
	return nil
}

// NewID returns a random rule or alert id with prefix.
func NewID(prefix string) string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

// PutRule creates or replaces a rule of its tenant. Replacing a rule with a
// different one resets its crossing memory; putting the same rule again (a
// server restart loading its config) keeps it, so nothing fires twice.
func PutRule(ctx context.Context, st *store.Store, r Rule) error {
	if r.TenantID == "" {
		return errors.New("alerts: rule without tenant")
	}
	return st.Update(ctx, func(tx store.Tx) error {
		old, found, err := tx.AlertRule(ctx, r.TenantID, r.ID)
		if err != nil {
			return fmt.Errorf("alerts: put rule: %w", err)
		}
		if found {
			var prev Rule
			if json.Unmarshal([]byte(old), &prev) == nil {
				created := prev.CreatedAt
				prev.CreatedAt, r.CreatedAt = time.Time{}, time.Time{}
				a, _ := json.Marshal(prev)
				b, _ := json.Marshal(r)
				if string(a) == string(b) {
					return nil
				}
				r.CreatedAt = created
			}
		}
		if r.CreatedAt.IsZero() {
			r.CreatedAt = time.Now().UTC()
		}
		body, err := json.Marshal(r)
		if err != nil {
			return err
		}
		if err := tx.PutAlertRule(ctx, r.TenantID, r.ID, string(body), r.CreatedAt); err != nil {
			return fmt.Errorf("alerts: put rule: %w", err)
		}
		return nil
	})
}

// DeleteRule removes a rule and its crossing state; ErrNotFound when absent.
func DeleteRule(ctx context.Context, st *store.Store, tenantID, id string) error {
	return st.Update(ctx, func(tx store.Tx) error {
		found, err := tx.DeleteAlertRule(ctx, tenantID, id)
		if err != nil {
			return fmt.Errorf("alerts: delete rule: %w", err)
		}
		if !found {
			return ErrNotFound
		}
		return nil
	})
}

// ListRules returns the rules of a tenant ("" for every tenant), ordered by
// tenant and id.
func ListRules(ctx context.Context, st *store.Store, tenantID string) ([]Rule, error) {
	bodies, err := st.AlertRules(ctx, tenantID)
	if err != nil {
		return nil, fmt.Errorf("alerts: list rules: %w", err)
	}
	out := []Rule{}
	for _, body := range bodies {
		var r Rule
		if err := json.Unmarshal([]byte(body), &r); err != nil {
			return nil, fmt.Errorf("alerts: decode rule: %w", err)
		}
		out = append(out, r)
	}
	return out, nil
}

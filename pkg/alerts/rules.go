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
	// SecretName names the secret that signs webhook bodies: one of the
	// secrets the server config declares for the rule's tenant. Rules never
	// hold a secret, nor the name of an environment variable.
	SecretName string    `json:"secretName,omitempty"`
	To         []string  `json:"to,omitempty"`
	Disabled   bool      `json:"disabled,omitempty"`
	CreatedAt  time.Time `json:"createdAt,omitzero"`
}

// MaxRecipients is the most addresses an email rule may name.
const MaxRecipients = 32

// PublicRule is a rule as the API and the CLI show it. Rules hold no secret
// (only its name), so nothing is hidden; hasSecret says whether it signs.
type PublicRule struct {
	Rule
	HasSecret bool `json:"hasSecret"`
}

// Public returns the rule as the API shows it.
func (r Rule) Public() PublicRule {
	return PublicRule{Rule: r, HasSecret: r.SecretName != ""}
}

// Secrets are the webhook signing secrets of the server config, by tenant
// and then by name.
type Secrets map[string]map[string]string

// Lookup returns the secret name of tenant.
func (s Secrets) Lookup(tenant, name string) (string, bool) {
	v, ok := s[tenant][name]
	return v, ok && v != ""
}

// secretNameOK is the rule for secret names.
func secretNameOK(n string) bool {
	if n == "" || len(n) > 64 {
		return false
	}
	for _, c := range n {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// CheckPolicy checks a rule against the server's config, after Check: the
// webhook target against the outbound policy (CheckTarget) and the
// secretName against the secrets declared for the rule's tenant.
func (r Rule) CheckPolicy(allow HostAllowList, secrets Secrets) error {
	if r.Channel != ChannelWebhook {
		return nil
	}
	if err := CheckTarget(r.URL, allow); err != nil {
		return &FieldError{"/url", err.Error()}
	}
	if _, ok := secrets.Lookup(r.TenantID, r.SecretName); !ok {
		return &FieldError{"/secretName", fmt.Sprintf("no secret %q is declared for tenant %q in the server config (secrets:)", r.SecretName, r.TenantID)}
	}
	return nil
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
		if r.SecretName == "" {
			return &FieldError{"/secretName", "a webhook rule needs secretName: the name of a secret the server config declares for the tenant"}
		}
		if !secretNameOK(r.SecretName) {
			return &FieldError{"/secretName", "a secret name is 1 to 64 letters, digits, '_', '-' or '.'"}
		}
	case ChannelEmail:
		if len(r.To) == 0 {
			return &FieldError{"/to", "is required for an email rule"}
		}
		if len(r.To) > MaxRecipients {
			return &FieldError{"/to", fmt.Sprintf("at most %d recipients", MaxRecipients)}
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

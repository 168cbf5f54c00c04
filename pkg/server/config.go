// Package server is `lf serve`: the agent-risk HTTP API on top of
// pkg/agentrisk, with bearer keys bound to tenants, an in-memory verdict path
// with a tenant-scoped rate counter, a single-flight background
// recalculation and alert rules delivered by pkg/alerts.
package server

import (
	"fmt"
	"time"

	"github.com/lfcli/lf/pkg/alerts"
	"github.com/lfcli/lf/pkg/diag"
	agentevents "github.com/lfcli/lf/pkg/events"
	"github.com/lfcli/lf/pkg/schema"
	"github.com/lfcli/lf/pkg/yamlsrc"
)

// KeyConfig is one API key entry of server.yaml.
type KeyConfig struct {
	Name   string `json:"name"`
	Tenant string `json:"tenant,omitempty"`
	Admin  bool   `json:"admin,omitempty"`
	Key    string `json:"key,omitempty"`
	KeyEnv string `json:"keyEnv,omitempty"`
}

// SMTPConfig is the smtp: section of server.yaml.
type SMTPConfig struct {
	Host        string `json:"host"`
	Port        int    `json:"port,omitempty"`
	From        string `json:"from"`
	Username    string `json:"username,omitempty"`
	UsernameEnv string `json:"usernameEnv,omitempty"`
	Password    string `json:"password,omitempty"`
	PasswordEnv string `json:"passwordEnv,omitempty"`
	StartTLS    string `json:"startTLS,omitempty"`
}

// DeliveryConfig tunes alert delivery.
type DeliveryConfig struct {
	MaxAttempts int    `json:"maxAttempts,omitempty"`
	BaseBackoff string `json:"baseBackoff,omitempty"`
	MaxBackoff  string `json:"maxBackoff,omitempty"`
	QueueSize   int    `json:"queueSize,omitempty"`
	Timeout     string `json:"timeout,omitempty"`
}

// EventsConfig is the events: section: agent events consumed from NATS
// JetStream (see pkg/events).
type EventsConfig struct {
	URL           string `json:"url,omitempty"`
	Stream        string `json:"stream,omitempty"`
	SubjectPrefix string `json:"subjectPrefix,omitempty"`
	Durable       string `json:"durable,omitempty"`
	Batch         int    `json:"batch,omitempty"`
	AckWait       string `json:"ackWait,omitempty"`
	CreateStream  *bool  `json:"createStream,omitempty"`
}

// Config is server.yaml, decoded and checked.
type Config struct {
	Addr              string         `json:"addr,omitempty"`
	RecalcInterval    string         `json:"recalcInterval,omitempty"`
	ScoreTime         string         `json:"scoreTime,omitempty"`
	MaxBodyBytes      int64          `json:"maxBodyBytes,omitempty"`
	APIKeys           []KeyConfig    `json:"apiKeys"`
	WebhookAllowHosts []string       `json:"webhookAllowHosts,omitempty"`
	AlertRules        []alerts.Rule  `json:"alertRules,omitempty"`
	SMTP              *SMTPConfig    `json:"smtp,omitempty"`
	Delivery          DeliveryConfig `json:"delivery"`
	Events            *EventsConfig  `json:"events,omitempty"`

	// Resolved values.
	Interval time.Duration  `json:"-"`
	At       time.Time      `json:"-"` // fixed score time (ScoreTime); zero = the current time
	Keys     []Key          `json:"-"`
	Mailer   *alerts.Mailer `json:"-"`
	Alerts   alerts.Options `json:"-"`
	// EventOptions configure the JetStream consumer; it runs when URL is
	// set (events.url, or lf serve --events).
	EventOptions agentevents.Options `json:"-"`
}

// Key is a resolved API key: the secret itself never leaves this struct
// except as a hash in the keyring.
type Key struct {
	Name   string
	Tenant string
	Admin  bool
	Secret string
}

// LoadConfig parses and validates server.yaml (named file in messages),
// resolving keys and SMTP credentials from the environment through getenv.
// Every problem is a located diagnostic.
func LoadConfig(file string, data []byte, getenv func(string) string) (*Config, diag.List) {
	doc, diags := yamlsrc.Parse(file, data)
	if diags.HasErrors() {
		return nil, diags
	}
	if doc.Value == nil {
		return nil, diag.List{{File: file, Line: 1, Col: 1, Msg: "empty server config; it needs at least apiKeys"}}
	}
	if d := schema.Validate("server-config", doc); d.HasErrors() {
		return nil, d
	}
	var cfg Config
	if err := doc.Decode("", &cfg); err != nil {
		return nil, diag.List{doc.Errorf("", "%v", err)}
	}
	var out diag.List
	dur := func(ptr, s string, def time.Duration) time.Duration {
		if s == "" {
			return def
		}
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 {
			out = append(out, doc.Errorf(ptr, "not a positive duration: %q", s))
			return def
		}
		return d
	}
	cfg.Interval = dur("/recalcInterval", cfg.RecalcInterval, 5*time.Minute)
	if cfg.ScoreTime != "" {
		t, err := time.Parse(time.RFC3339, cfg.ScoreTime)
		if err != nil {
			out = append(out, doc.Errorf("/scoreTime", "not an RFC 3339 time (e.g. 2026-04-16T14:00:00Z): %q", cfg.ScoreTime))
		}
		cfg.At = t.UTC()
	}
	if cfg.MaxBodyBytes == 0 {
		cfg.MaxBodyBytes = 16 << 20
	}
	seenKey := map[string]string{}
	for i, k := range cfg.APIKeys {
		ptr := fmt.Sprintf("/apiKeys/%d", i)
		if (k.Tenant == "") == !k.Admin {
			out = append(out, doc.Errorf(ptr, "key %q needs exactly one of tenant: ID and admin: true", k.Name))
			continue
		}
		if (k.Key == "") == (k.KeyEnv == "") {
			out = append(out, doc.Errorf(ptr, "key %q needs exactly one of key and keyEnv (prefer keyEnv, so the key stays out of the file)", k.Name))
			continue
		}
		secret := k.Key
		if k.KeyEnv != "" {
			secret = getenv(k.KeyEnv)
			if secret == "" {
				out = append(out, doc.Errorf(ptr+"/keyEnv", "environment variable %s is empty or unset", k.KeyEnv))
				continue
			}
		}
		if len(secret) < 16 {
			out = append(out, doc.Errorf(ptr, "key %q is shorter than 16 characters", k.Name))
			continue
		}
		if prev, dup := seenKey[secret]; dup {
			out = append(out, doc.Errorf(ptr, "key %q has the same value as key %q", k.Name, prev))
			continue
		}
		seenKey[secret] = k.Name
		cfg.Keys = append(cfg.Keys, Key{Name: k.Name, Tenant: k.Tenant, Admin: k.Admin, Secret: secret})
	}
	allow := alerts.HostAllowList(cfg.WebhookAllowHosts)
	seenRule := map[string]bool{}
	for i, r := range cfg.AlertRules {
		ptr := fmt.Sprintf("/alertRules/%d", i)
		if err := r.Check(allow); err != nil {
			fe := err.(*alerts.FieldError)
			out = append(out, doc.Errorf(ptr+fe.Pointer, "%s", fe.Msg))
		}
		k := r.TenantID + "\x00" + r.ID
		if seenRule[k] {
			out = append(out, doc.Errorf(ptr+"/id", "rule %q is defined twice for tenant %q", r.ID, r.TenantID))
		}
		seenRule[k] = true
	}
	if s := cfg.SMTP; s != nil {
		m := &alerts.Mailer{Host: s.Host, Port: s.Port, From: s.From, Username: s.Username, Password: s.Password, StartTLS: s.StartTLS}
		if m.Port == 0 {
			m.Port = 587
		}
		if m.StartTLS == "" {
			m.StartTLS = alerts.StartTLSRequired
		}
		if s.UsernameEnv != "" {
			m.Username = getenv(s.UsernameEnv)
		}
		if s.PasswordEnv != "" {
			m.Password = getenv(s.PasswordEnv)
			if m.Password == "" {
				out = append(out, doc.Errorf("/smtp/passwordEnv", "environment variable %s is empty or unset", s.PasswordEnv))
			}
		}
		cfg.Mailer = m
	}
	cfg.Alerts = alerts.Options{
		AllowHosts:  allow,
		Mailer:      cfg.Mailer,
		QueueSize:   cfg.Delivery.QueueSize,
		MaxAttempts: cfg.Delivery.MaxAttempts,
		BaseBackoff: dur("/delivery/baseBackoff", cfg.Delivery.BaseBackoff, time.Second),
		MaxBackoff:  dur("/delivery/maxBackoff", cfg.Delivery.MaxBackoff, 30*time.Second),
		Getenv:      getenv,
	}
	if t := dur("/delivery/timeout", cfg.Delivery.Timeout, 10*time.Second); t > 0 {
		cfg.Alerts.Client = alerts.NewWebhookClient(t)
	}
	cfg.EventOptions.CreateStream = true
	if e := cfg.Events; e != nil {
		cfg.EventOptions = agentevents.Options{
			URL: e.URL, Stream: e.Stream, SubjectPrefix: e.SubjectPrefix, Durable: e.Durable, Batch: e.Batch,
			AckWait: dur("/events/ackWait", e.AckWait, 30*time.Second), CreateStream: e.CreateStream == nil || *e.CreateStream,
		}
	}
	if out.HasErrors() {
		out.Sort()
		return nil, out
	}
	return &cfg, nil
}

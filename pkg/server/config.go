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
	agentevents "github.com/lfcli/lf/pkg/eventstream"
	"github.com/lfcli/lf/pkg/kind"
	"github.com/lfcli/lf/pkg/yamlsrc"
)

// KeyConfig is one API key entry of server.yaml.
type KeyConfig struct {
	Name   string `json:"name"`
	Tenant string `json:"tenant,omitempty"`
	Admin  bool   `json:"admin,omitempty"`
	Role   string `json:"role,omitempty"` // viewer (default), operator or admin within Tenant
	Key    string `json:"key,omitempty"`
	KeyEnv string `json:"keyEnv,omitempty"`
}

// SecretConfig is one entry of secrets: a webhook signing secret of one
// tenant, referred to by alert rules by its name. Its value comes from the
// config or, better, from the environment variable the operator names.
type SecretConfig struct {
	Name     string `json:"name"`
	Tenant   string `json:"tenant"`
	Value    string `json:"value,omitempty"`
	ValueEnv string `json:"valueEnv,omitempty"`
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
	MaxAttempts    int    `json:"maxAttempts,omitempty"`
	BaseBackoff    string `json:"baseBackoff,omitempty"`
	MaxBackoff     string `json:"maxBackoff,omitempty"`
	QueueSize      int    `json:"queueSize,omitempty"`
	Timeout        string `json:"timeout,omitempty"`
	RedeliverAfter string `json:"redeliverAfter,omitempty"`
}

// LimitsConfig is the limits: section: what one tenant may hold (defaults
// from the schema).
type LimitsConfig struct {
	MaxAgentsPerTenant     int `json:"maxAgentsPerTenant,omitempty"`
	MaxAlertRulesPerTenant int `json:"maxAlertRulesPerTenant,omitempty"`
}

// TimeoutsConfig is the timeouts: section: how long a client may take to
// send its request before it is cut off (defaults from the schema;
// documented in docs/serve.md, "Security: a hostile tenant").
type TimeoutsConfig struct {
	Header  string `json:"header,omitempty"`  // reading the request headers
	Request string `json:"request,omitempty"` // reading a whole request with a small body
	Body    string `json:"body,omitempty"`    // reading a body, plus 1 s per MiB of Content-Length
}

// EventsConfig is the events: section: agent events consumed from NATS
// JetStream (see pkg/eventstream).
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
	MaxConnections    int            `json:"maxConnections,omitempty"`
	APIKeys           []KeyConfig    `json:"apiKeys"`
	WebhookAllowHosts []string       `json:"webhookAllowHosts,omitempty"`
	SecretList        []SecretConfig `json:"secrets,omitempty"`
	AlertRules        []alerts.Rule  `json:"alertRules,omitempty"`
	SMTP              *SMTPConfig    `json:"smtp,omitempty"`
	Limits            LimitsConfig   `json:"limits"`
	Timeouts          TimeoutsConfig `json:"timeouts"`
	Delivery          DeliveryConfig `json:"delivery"`
	Events            *EventsConfig  `json:"events,omitempty"`
	OTLP              *OTLPConfig    `json:"otlp,omitempty"` // POST /v1/traces (otlp_config.go)
	// Dir is server.yaml's folder: otlp: paths are relative to it.
	Dir string `json:"-"`

	// Resolved values.
	Interval time.Duration  `json:"-"`
	At       time.Time      `json:"-"` // fixed score time (ScoreTime); zero = the current time
	Keys     []Key          `json:"-"`
	Mailer   *alerts.Mailer `json:"-"`
	Secrets  alerts.Secrets `json:"-"`
	Alerts   alerts.Options `json:"-"`
	// HeaderTimeout, RequestTimeout and BodyTimeout are timeouts:
	// resolved; zero means the default (limits.go).
	HeaderTimeout  time.Duration `json:"-"`
	RequestTimeout time.Duration `json:"-"`
	BodyTimeout    time.Duration `json:"-"`
	// EventOptions configure the JetStream consumer; it runs when URL is
	// set (events.url, or lf serve --events).
	EventOptions agentevents.Options `json:"-"`
}

// Key is a resolved API key: the secret itself never leaves this struct
// except as a hash in the keyring.
type Key struct {
	Name          string
	Tenant        string
	Admin         bool
	Role          Role
	RoleDefaulted bool // no role: in the config, so the least role
	Secret        string
}

// ConfigFile is the file kind server.yaml; its defaults are the schema's
// (schemas/server-config.schema.json), its check checkConfig, which
// resolves keys and SMTP credentials through the getenv it is given.
var ConfigFile = kind.Kind[Config, func(string) string]{
	Name:        "server-config",
	Description: "an `lf serve` config",
	Keys:        []string{"apiKeys", "addr", "recalcInterval", "smtp", "webhookAllowHosts"},
	Schema:      "server-config",
	Empty:       "empty server config; it needs at least apiKeys",
	Check:       checkConfig,
}

// LoadConfig parses and validates server.yaml (named file in messages),
// resolving keys and SMTP credentials from the environment through getenv.
// Every problem is a located diagnostic.
func LoadConfig(file string, data []byte, getenv func(string) string) (*Config, diag.List) {
	cfg, ds := ConfigFile.Parse(file, data, getenv).One()
	if ds.HasErrors() {
		return nil, ds
	}
	return &cfg, nil
}

// checkConfig checks a decoded server.yaml and resolves its values.
func checkConfig(doc *yamlsrc.Doc, _ string, cfg *Config, getenv func(string) string) diag.List {
	c := &configCheck{doc: doc, cfg: cfg, getenv: getenv}
	cfg.Interval = c.dur("/recalcInterval", cfg.RecalcInterval)
	c.timeouts()
	c.scoreTime()
	c.keys()
	allow := c.allowList()
	c.secrets()
	c.rules(allow)
	c.smtp()
	c.alertOptions(allow)
	c.events()
	c.otlpGRPC() // otlp_grpc.go
	return c.out
}

// configCheck carries the state of one checkConfig call: the document for
// locating diagnostics, the config being resolved, the environment lookup and
// the diagnostics found so far.
type configCheck struct {
	doc    *yamlsrc.Doc
	cfg    *Config
	getenv func(string) string
	out    diag.List
}

// errorf records a diagnostic located at the JSON pointer ptr.
func (c *configCheck) errorf(ptr, format string, args ...any) {
	c.out = append(c.out, c.doc.Errorf(ptr, format, args...))
}

// dur parses a positive duration, recording a diagnostic at ptr when s is not one.
func (c *configCheck) dur(ptr, s string) time.Duration {
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		c.errorf(ptr, "not a positive duration: %q", s)
	}
	return d
}

// timeouts resolves the timeouts: section; an absent value keeps the
// default.
func (c *configCheck) timeouts() {
	t := c.cfg.Timeouts
	for _, f := range []struct {
		ptr, s string
		d      *time.Duration
	}{
		{"/timeouts/header", t.Header, &c.cfg.HeaderTimeout},
		{"/timeouts/request", t.Request, &c.cfg.RequestTimeout},
		{"/timeouts/body", t.Body, &c.cfg.BodyTimeout},
	} {
		if f.s != "" {
			*f.d = c.dur(f.ptr, f.s)
		}
	}
}

// scoreTime resolves the optional fixed scoring time.
func (c *configCheck) scoreTime() {
	cfg := c.cfg
	if cfg.ScoreTime == "" {
		return
	}
	t, err := time.Parse(time.RFC3339, cfg.ScoreTime)
	if err != nil {
		c.errorf("/scoreTime", "not an RFC 3339 time (e.g. 2026-04-16T14:00:00Z): %q", cfg.ScoreTime)
	}
	cfg.At = t.UTC()
}

// keys resolves the API keys: scope, role and secret, each secret at least
// 16 characters and unique.
func (c *configCheck) keys() {
	seenKey := map[string]string{}
	for i, k := range c.cfg.APIKeys {
		ptr := fmt.Sprintf("/apiKeys/%d", i)
		role, defaulted, ok := c.keyRole(ptr, k)
		if !ok {
			continue
		}
		secret, ok := c.keySecret(ptr, k)
		if !ok {
			continue
		}
		if prev, dup := seenKey[secret]; dup {
			c.errorf(ptr, "key %q has the same value as key %q", k.Name, prev)
			continue
		}
		seenKey[secret] = k.Name
		c.cfg.Keys = append(c.cfg.Keys, Key{Name: k.Name, Tenant: k.Tenant, Admin: k.Admin, Role: role, RoleDefaulted: defaulted, Secret: secret})
	}
}

// keyRole checks a key's scope (tenant or global admin) and resolves its
// role; ok is false when a diagnostic was recorded.
func (c *configCheck) keyRole(ptr string, k KeyConfig) (role Role, defaulted, ok bool) {
	if (k.Tenant == "") == !k.Admin {
		c.errorf(ptr, "key %q needs exactly one of tenant: ID and admin: true", k.Name)
		return role, false, false
	}
	role, defaulted = DefaultRole, k.Role == ""
	if k.Admin {
		if k.Role != "" {
			c.errorf(ptr+"/role", "key %q is a global admin (admin: true); it takes no role", k.Name)
			return role, false, false
		}
		return RoleAdmin, false, true
	}
	if !defaulted {
		r, ok := ParseRole(k.Role)
		if !ok {
			c.errorf(ptr+"/role", "role %q is not one of %s", k.Role, roleList())
			return role, false, false
		}
		role = r
	}
	return role, defaulted, true
}

// keySecret resolves a key's value from key or keyEnv; ok is false when a
// diagnostic was recorded.
func (c *configCheck) keySecret(ptr string, k KeyConfig) (string, bool) {
	if (k.Key == "") == (k.KeyEnv == "") {
		c.errorf(ptr, "key %q needs exactly one of key and keyEnv (prefer keyEnv, so the key stays out of the file)", k.Name)
		return "", false
	}
	secret := k.Key
	if k.KeyEnv != "" {
		secret = c.getenv(k.KeyEnv)
		if secret == "" {
			c.errorf(ptr+"/keyEnv", "environment variable %s is empty or unset", k.KeyEnv)
			return "", false
		}
	}
	if len(secret) < 16 {
		c.errorf(ptr, "key %q is shorter than 16 characters", k.Name)
		return "", false
	}
	return secret, true
}

// allowList checks the webhook allow-list entries and returns the list.
func (c *configCheck) allowList() alerts.HostAllowList {
	allow := alerts.HostAllowList(c.cfg.WebhookAllowHosts)
	for i, e := range c.cfg.WebhookAllowHosts {
		if msg := alerts.CheckAllowEntry(e); msg != "" {
			c.errorf(fmt.Sprintf("/webhookAllowHosts/%d", i), "%s (entries are host, host:port or host:*)", msg)
		}
	}
	return allow
}

// secrets resolves the per-tenant alert secrets from value or valueEnv.
func (c *configCheck) secrets() {
	cfg := c.cfg
	cfg.Secrets = alerts.Secrets{}
	for i, sc := range cfg.SecretList {
		ptr := fmt.Sprintf("/secrets/%d", i)
		if (sc.Value == "") == (sc.ValueEnv == "") {
			c.errorf(ptr, "secret %q needs exactly one of value and valueEnv (prefer valueEnv, so the secret stays out of the file)", sc.Name)
			continue
		}
		v := sc.Value
		if sc.ValueEnv != "" {
			v = c.getenv(sc.ValueEnv)
			if v == "" {
				c.errorf(ptr+"/valueEnv", "environment variable %s is empty or unset", sc.ValueEnv)
				continue
			}
		}
		if _, dup := cfg.Secrets[sc.Tenant][sc.Name]; dup {
			c.errorf(ptr+"/name", "secret %q is declared twice for tenant %q", sc.Name, sc.Tenant)
			continue
		}
		if cfg.Secrets[sc.Tenant] == nil {
			cfg.Secrets[sc.Tenant] = map[string]string{}
		}
		cfg.Secrets[sc.Tenant][sc.Name] = v
	}
}

// rules checks the server's alert rules against the allow-list and secrets.
func (c *configCheck) rules(allow alerts.HostAllowList) {
	cfg := c.cfg
	rulePtrs := make([]string, len(cfg.AlertRules))
	for i := range cfg.AlertRules {
		rulePtrs[i] = fmt.Sprintf("/alertRules/%d", i)
	}
	c.out = append(c.out, alerts.CheckRules(c.doc, rulePtrs, cfg.AlertRules, alerts.RuleCheck{Allow: allow, Secrets: cfg.Secrets, Server: true})...)
}

// smtp resolves the optional mailer and its credentials.
func (c *configCheck) smtp() {
	s := c.cfg.SMTP
	if s == nil {
		return
	}
	m := &alerts.Mailer{Host: s.Host, Port: s.Port, From: s.From, Username: s.Username, Password: s.Password, StartTLS: s.StartTLS}
	if s.UsernameEnv != "" {
		m.Username = c.getenv(s.UsernameEnv)
	}
	if s.PasswordEnv != "" {
		m.Password = c.getenv(s.PasswordEnv)
		if m.Password == "" {
			c.errorf("/smtp/passwordEnv", "environment variable %s is empty or unset", s.PasswordEnv)
		}
	}
	c.cfg.Mailer = m
}

// alertOptions builds the alert delivery options.
func (c *configCheck) alertOptions(allow alerts.HostAllowList) {
	cfg := c.cfg
	cfg.Alerts = alerts.Options{
		AllowHosts:  allow,
		Secrets:     cfg.Secrets,
		Mailer:      cfg.Mailer,
		QueueSize:   cfg.Delivery.QueueSize,
		MaxAttempts: cfg.Delivery.MaxAttempts,
		BaseBackoff: c.dur("/delivery/baseBackoff", cfg.Delivery.BaseBackoff),
		MaxBackoff:  c.dur("/delivery/maxBackoff", cfg.Delivery.MaxBackoff),
	}
	cfg.Alerts.RedeliverAfter = c.dur("/delivery/redeliverAfter", cfg.Delivery.RedeliverAfter)
	if t := c.dur("/delivery/timeout", cfg.Delivery.Timeout); t > 0 {
		cfg.Alerts.Client = alerts.NewWebhookClient(t)
	}
}

// events builds the options of the event-stream consumer.
func (c *configCheck) events() {
	cfg := c.cfg
	cfg.EventOptions.CreateStream = true
	e := cfg.Events
	if e == nil {
		return
	}
	ackWait := c.dur("/events/ackWait", e.AckWait)
	if ackWait == 0 {
		ackWait = 30 * time.Second
	}
	cfg.EventOptions = agentevents.Options{
		URL: e.URL, Stream: e.Stream, SubjectPrefix: e.SubjectPrefix, Durable: e.Durable, Batch: e.Batch,
		AckWait: ackWait, CreateStream: e.CreateStream == nil || *e.CreateStream,
	}
}

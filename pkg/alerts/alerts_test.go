package alerts

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lfcli/lf/pkg/store"
)

func openStore(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), t.TempDir()+"/lf.db")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func ptr(f float64) *float64 { return &f }

func TestEvaluateFiresOncePerCrossing(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	rules := []Rule{
		{ID: "r-score", TenantID: "t1", Threshold: ptr(80), Channel: ChannelWebhook, URL: "http://hooks.example.com/", SecretName: "s"},
		{ID: "r-crit", TenantID: "t1", Tier: "critical", Channel: ChannelEmail, To: []string{"a@example.com"}},
		{ID: "r-off", TenantID: "t1", Threshold: ptr(10), Channel: ChannelEmail, To: []string{"a@example.com"}, Disabled: true},
		{ID: "r-other", TenantID: "t2", Threshold: ptr(1), Channel: ChannelEmail, To: []string{"a@example.com"}},
	}
	for _, r := range rules {
		if err := r.Check(nil); err != nil {
			t.Fatalf("%s: %v", r.ID, err)
		}
		if err := PutRule(ctx, st, r); err != nil {
			t.Fatal(err)
		}
	}
	steps := []struct {
		old, new         float64
		oldTier, newTier string
		want             []string
	}{
		{10, 50, "normal", "normal", nil},
		{50, 85, "normal", "high", []string{"r-score"}},
		{85, 88, "high", "high", nil},                    // still above: no second alert
		{88, 95, "high", "critical", []string{"r-crit"}}, // tier rule crosses now
		{95, 96, "critical", "critical", nil},
		{96, 40, "critical", "normal", nil},                           // drops back: both re-arm
		{40, 92, "normal", "critical", []string{"r-crit", "r-score"}}, // fires again
	}
	for i, s := range steps {
		fired, err := Evaluate(ctx, st, []Change{{TenantID: "t1", AgentID: "a1", OldScore: s.old, NewScore: s.new, OldTier: s.oldTier, NewTier: s.newTier}}, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, a := range fired {
			got = append(got, a.RuleID)
			if a.TenantID != "t1" || a.AgentID != "a1" || a.NewScore != s.new {
				t.Errorf("step %d: alert %+v", i, a)
			}
		}
		if strings.Join(got, ",") != strings.Join(s.want, ",") {
			t.Errorf("step %d (%g -> %g): fired %v, want %v", i, s.old, s.new, got, s.want)
		}
	}
}

func TestEvaluateFirstSightUsesOldScore(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	if err := PutRule(ctx, st, Rule{ID: "r", TenantID: "t", Threshold: ptr(50), Channel: ChannelEmail, To: []string{"x@y"}}); err != nil {
		t.Fatal(err)
	}
	// Already above before the rule saw the agent: not a crossing.
	fired, err := Evaluate(ctx, st, []Change{{TenantID: "t", AgentID: "a", OldScore: 70, NewScore: 75}}, time.Now())
	if err != nil || len(fired) != 0 {
		t.Fatalf("fired %v, err %v", fired, err)
	}
}

func TestRuleCheck(t *testing.T) {
	allow := HostAllowList{"hooks.example.com", "*.internal.example", "127.0.0.1:*"}
	cases := []struct {
		name    string
		rule    Rule
		pointer string
	}{
		{"ok", Rule{ID: "a", Threshold: ptr(5), Channel: ChannelWebhook, URL: "https://hooks.example.com/x", SecretName: "s"}, ""},
		{"suffix", Rule{ID: "a", Tier: "high", Channel: ChannelWebhook, URL: "http://a.internal.example/x", SecretName: "S"}, ""},
		{"both", Rule{ID: "a", Threshold: ptr(5), Tier: "high", Channel: ChannelEmail, To: []string{"a@b"}}, ""},
		{"scheme", Rule{ID: "a", Threshold: ptr(5), Channel: ChannelWebhook, URL: "file:///etc/passwd", SecretName: "s"}, "/url"},
		{"host", Rule{ID: "a", Threshold: ptr(5), Channel: ChannelWebhook, URL: "http://169.254.169.254/", SecretName: "s"}, "/url"},
		{"userinfo", Rule{ID: "a", Threshold: ptr(5), Channel: ChannelWebhook, URL: "http://u:p@hooks.example.com/", SecretName: "s"}, "/url"},
		{"port", Rule{ID: "a", Threshold: ptr(5), Channel: ChannelWebhook, URL: "http://hooks.example.com:22/", SecretName: "s"}, "/url"},
		{"nosecret", Rule{ID: "a", Threshold: ptr(5), Channel: ChannelWebhook, URL: "http://127.0.0.1/"}, "/secretName"},
		{"secret name", Rule{ID: "a", Threshold: ptr(5), Channel: ChannelWebhook, URL: "http://127.0.0.1/", SecretName: "$HOME"}, "/secretName"},
		{"tier", Rule{ID: "a", Tier: "severe", Channel: ChannelEmail, To: []string{"a@b"}}, "/tier"},
		{"range", Rule{ID: "a", Threshold: ptr(101), Channel: ChannelEmail, To: []string{"a@b"}}, "/threshold"},
		{"to", Rule{ID: "a", Threshold: ptr(1), Channel: ChannelEmail, To: []string{"nobody"}}, "/to/0"},
		{"channel", Rule{ID: "a", Threshold: ptr(1), Channel: "pager"}, "/channel"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.rule.Check(allow)
			if c.name == "ok" || c.name == "suffix" {
				if err != nil {
					t.Fatalf("unexpected %v", err)
				}
				return
			}
			fe, ok := err.(*FieldError)
			if !ok {
				t.Fatalf("want a FieldError, got %v", err)
			}
			if fe.Pointer != c.pointer {
				t.Errorf("pointer %q, want %q (%v)", fe.Pointer, c.pointer, fe)
			}
		})
	}
}

func webhookAlert(url string) Alert {
	return Alert{
		AlertID: "alr_1", RuleID: "r1", TenantID: "t1", AgentID: "a1", AgentName: "bot",
		OldScore: 70, NewScore: 93, OldTier: "elevated", NewTier: "critical", Time: time.Now().UTC(),
		Rule: Rule{ID: "r1", TenantID: "t1", Channel: ChannelWebhook, URL: url, SecretName: "hook"},
	}
}

// local allows the test's webhook receivers on 127.0.0.1 (any port) and
// declares the secret webhookAlert signs with.
func local(o Options) Options {
	o.AllowHosts = append(o.AllowHosts, "127.0.0.1:*")
	o.Secrets = Secrets{"t1": {"hook": "topsecret"}}
	return o
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestWebhookSignedWithRetries(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	var calls atomic.Int32
	var mu sync.Mutex
	var body []byte
	var ts, sig string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := calls.Add(1)
		if n <= 2 {
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		body, ts, sig = b, r.Header.Get(TimestampHeader), r.Header.Get(SignatureHeader)
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	d := NewDispatcher(st, local(Options{BaseBackoff: 5 * time.Millisecond}))
	enqueue(t, st, d, webhookAlert(srv.URL+"/hook"))
	settle(t, d)
	if calls.Load() != 3 {
		t.Fatalf("calls = %d, want 3", calls.Load())
	}
	if !Verify("topsecret", ts, body, sig) {
		t.Errorf("signature %q does not verify over %s.%s", sig, ts, body)
	}
	if Verify("other", ts, body, sig) {
		t.Error("signature verifies with the wrong secret")
	}
	var got map[string]any
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"tenantId", "agentId", "agentName", "oldScore", "newScore", "oldTier", "newTier", "time"} {
		if _, ok := got[k]; !ok {
			t.Errorf("webhook body lacks %s: %s", k, body)
		}
	}
	ds, err := ListDeliveries(ctx, st, "t1", 0)
	if err != nil {
		t.Fatal(err)
	}
	var statuses []string
	for i := len(ds) - 1; i >= 0; i-- {
		statuses = append(statuses, ds[i].Status+":"+itoa(ds[i].StatusCode))
	}
	if strings.Join(statuses, ",") != "retrying:503,retrying:503,delivered:204" {
		t.Errorf("attempts %v", statuses)
	}
	if other, _ := ListDeliveries(ctx, st, "t2", 0); len(other) != 0 {
		t.Errorf("tenant t2 sees %d deliveries", len(other))
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestWebhookGivesUpAfterMaxAttempts(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "down", http.StatusInternalServerError)
	}))
	defer srv.Close()
	d := NewDispatcher(st, local(Options{BaseBackoff: time.Millisecond, MaxAttempts: 3}))
	enqueue(t, st, d, webhookAlert(srv.URL))
	settle(t, d)
	ds, _ := ListDeliveries(ctx, st, "", 0)
	if len(ds) != 3 || ds[0].Status != StatusFailed || ds[0].Attempt != 3 || ds[1].Status != StatusRetrying {
		t.Fatalf("deliveries %+v", ds)
	}
	// A 4xx is not retried.
	srv4 := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "gone", http.StatusGone)
	}))
	defer srv4.Close()
	st2 := openStore(t)
	d = NewDispatcher(st2, local(Options{BaseBackoff: time.Millisecond}))
	enqueue(t, st2, d, webhookAlert(srv4.URL))
	settle(t, d)
	ds, _ = ListDeliveries(ctx, st2, "", 0)
	if len(ds) != 1 || ds[0].Status != StatusFailed || ds[0].StatusCode != 410 {
		t.Fatalf("deliveries %+v", ds)
	}
}

func TestWebhookAllowListAtDelivery(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	var logged []string
	d := NewDispatcher(st, Options{
		AllowHosts: HostAllowList{"hooks.example.com"}, Secrets: Secrets{"t1": {"hook": "x"}},
		Logf: func(f string, a ...any) { logged = append(logged, fmt.Sprintf(f, a...)) },
	})
	enqueue(t, st, d, webhookAlert("http://127.0.0.1:9/"))
	settle(t, d)
	ds, _ := ListDeliveries(ctx, st, "", 0)
	// The tenant reads "refused by policy", nothing about the address or the list.
	if len(ds) != 1 || ds[0].Status != StatusFailed || ds[0].Error != "refused by policy" {
		t.Fatalf("deliveries %+v", ds)
	}
	if len(logged) == 0 || !strings.Contains(logged[0], "webhookAllowHosts") {
		t.Errorf("the server log lacks the detail: %q", logged)
	}
}

func TestSlowWebhookDoesNotBlockEnqueue(t *testing.T) {
	st := openStore(t)
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-release
	}))
	defer srv.Close()
	defer close(release)
	// The rule is stored, as every rule that fires is: the outbox sweeper
	// drops (and records as failed) an alert whose rule is gone.
	if err := PutRule(context.Background(), st, webhookAlert(srv.URL).Rule); err != nil {
		t.Fatal(err)
	}
	d := NewDispatcher(st, local(Options{QueueSize: 4, Workers: 1}))
	start := time.Now()
	for i := range 10 { // more than the queue holds: the rest wait in the outbox
		a := webhookAlert(srv.URL)
		a.AlertID = fmt.Sprint("alr_", i)
		d.Enqueue(a)
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Fatalf("Enqueue blocked for %v", el)
	}
	rows, err := st.OutboxAlerts(context.Background(), time.Now().Add(time.Hour), 100)
	if err != nil || len(rows) != 10 {
		t.Fatalf("outbox: %d alerts, %v; want all 10", len(rows), err)
	}
	if ds, _ := ListDeliveries(context.Background(), st, "", 0); len(ds) != 0 {
		t.Errorf("alerts that did not fit in the queue were recorded: %+v", ds)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	go func() { time.Sleep(100 * time.Millisecond); srv.CloseClientConnections() }()
	_ = d.Close(ctx)
}

func TestEmailWithStartTLSAndAuth(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	cert, pool := selfSigned(t)
	smtpd := startSMTP(t, &tls.Config{Certificates: []tls.Certificate{cert}})
	m := &Mailer{
		Host: "127.0.0.1", Port: smtpd.port(), Username: "alerts", Password: "pw", From: "lf@example.com",
		TLSConfig: &tls.Config{RootCAs: pool, ServerName: "127.0.0.1"},
	}
	d := NewDispatcher(st, Options{Mailer: m, BaseBackoff: time.Millisecond})
	a := webhookAlert("")
	a.Rule = Rule{ID: "r1", TenantID: "t1", Channel: ChannelEmail, To: []string{"oncall@example.com"}}
	enqueue(t, st, d, a)
	settle(t, d)
	msgs := smtpd.got()
	if len(msgs) != 1 {
		t.Fatalf("%d messages", len(msgs))
	}
	got := msgs[0]
	if !got.TLS || got.Auth != "|alerts|pw" || got.From != "lf@example.com" || got.To[0] != "oncall@example.com" {
		t.Errorf("message %+v", got)
	}
	if !strings.Contains(got.Data, "Subject: [lf] t1: agent bot is critical (score 93)") {
		t.Errorf("data %q", got.Data)
	}
	ds, _ := ListDeliveries(ctx, st, "t1", 0)
	if len(ds) != 1 || ds[0].Status != StatusDelivered || ds[0].Channel != ChannelEmail {
		t.Fatalf("deliveries %+v", ds)
	}
}

func TestEmailFailuresAreRecorded(t *testing.T) {
	ctx := context.Background()
	alert := webhookAlert("")
	alert.Rule = Rule{ID: "r1", TenantID: "t1", Channel: ChannelEmail, To: []string{"gone@example.com"}}
	cert, pool := selfSigned(t)

	t.Run("rejected recipient", func(t *testing.T) {
		st := openStore(t)
		smtpd := startSMTP(t, &tls.Config{Certificates: []tls.Certificate{cert}})
		smtpd.rejectTo = "gone@example.com"
		m := &Mailer{Host: "127.0.0.1", Port: smtpd.port(), From: "lf@example.com", TLSConfig: &tls.Config{RootCAs: pool, ServerName: "127.0.0.1"}}
		d := NewDispatcher(st, Options{Mailer: m, BaseBackoff: time.Millisecond})
		enqueue(t, st, d, alert)
		settle(t, d)
		ds, _ := ListDeliveries(ctx, st, "", 0)
		if len(ds) != 1 || ds[0].Status != StatusFailed || !strings.Contains(ds[0].Error, "550") {
			t.Fatalf("deliveries %+v", ds)
		}
	})
	t.Run("STARTTLS required but not offered", func(t *testing.T) {
		st := openStore(t)
		smtpd := startSMTP(t, nil)
		m := &Mailer{Host: "127.0.0.1", Port: smtpd.port(), From: "lf@example.com"}
		d := NewDispatcher(st, Options{Mailer: m, BaseBackoff: time.Millisecond})
		enqueue(t, st, d, alert)
		settle(t, d)
		ds, _ := ListDeliveries(ctx, st, "", 0)
		if len(ds) != 1 || ds[0].Status != StatusFailed || !strings.Contains(ds[0].Error, "STARTTLS") {
			t.Fatalf("deliveries %+v", ds)
		}
		if len(smtpd.got()) != 0 {
			t.Error("a message went out in plain text")
		}
	})
	t.Run("no SMTP configured", func(t *testing.T) {
		st := openStore(t)
		d := NewDispatcher(st, Options{})
		enqueue(t, st, d, alert)
		settle(t, d)
		ds, _ := ListDeliveries(ctx, st, "", 0)
		if len(ds) != 1 || ds[0].Status != StatusFailed || !strings.Contains(ds[0].Error, "no SMTP") {
			t.Fatalf("deliveries %+v", ds)
		}
	})
	t.Run("unreachable server is retried then failed", func(t *testing.T) {
		st := openStore(t)
		m := &Mailer{Host: "127.0.0.1", Port: 1, From: "lf@example.com"}
		d := NewDispatcher(st, Options{Mailer: m, BaseBackoff: time.Millisecond, MaxAttempts: 2})
		enqueue(t, st, d, alert)
		settle(t, d)
		ds, _ := ListDeliveries(ctx, st, "", 0)
		if len(ds) != 2 || ds[0].Status != StatusFailed || ds[1].Status != StatusRetrying {
			t.Fatalf("deliveries %+v", ds)
		}
	})
}

// settle waits until d has delivered or given up on everything, then closes it.
func settle(t *testing.T, d *Dispatcher) {
	t.Helper()
	waitFor(t, "deliveries to settle", func() bool { return d.Pending() == 0 })
	if err := d.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestCloseCutsBackoffShort(t *testing.T) {
	st := openStore(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "down", http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	d := NewDispatcher(st, local(Options{BaseBackoff: time.Hour, MaxAttempts: 5}))
	enqueue(t, st, d, webhookAlert(srv.URL))
	waitFor(t, "first attempt", func() bool {
		ds, _ := ListDeliveries(context.Background(), st, "", 0)
		return len(ds) == 1
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := d.Close(ctx); err != nil {
		t.Fatalf("Close waited for an hour-long backoff: %v", err)
	}
	ds, _ := ListDeliveries(context.Background(), st, "", 0)
	if len(ds) != 2 || ds[0].Status != StatusFailed || ds[0].Attempt != 2 {
		t.Fatalf("deliveries %+v", ds)
	}
}

func TestPutSameRuleKeepsCrossingMemory(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	r := Rule{ID: "r", TenantID: "t", Threshold: ptr(50), Channel: ChannelEmail, To: []string{"a@b"}}
	if err := PutRule(ctx, st, r); err != nil {
		t.Fatal(err)
	}
	up := []Change{{TenantID: "t", AgentID: "a", OldScore: 10, NewScore: 60}}
	if fired, _ := Evaluate(ctx, st, up, time.Now()); len(fired) != 1 {
		t.Fatalf("fired %d", len(fired))
	}
	// A restart loads the same rule again: no second alert for the same crossing.
	if err := PutRule(ctx, st, r); err != nil {
		t.Fatal(err)
	}
	if fired, _ := Evaluate(ctx, st, []Change{{TenantID: "t", AgentID: "a", OldScore: 10, NewScore: 65}}, time.Now()); len(fired) != 0 {
		t.Fatalf("same rule fired again after being put again")
	}
	// A changed rule starts over.
	r.Threshold = ptr(55)
	if err := PutRule(ctx, st, r); err != nil {
		t.Fatal(err)
	}
	if fired, _ := Evaluate(ctx, st, []Change{{TenantID: "t", AgentID: "a", OldScore: 10, NewScore: 65}}, time.Now()); len(fired) != 1 {
		t.Fatalf("changed rule did not fire")
	}
}

// enqueue stores each alert's rule, as every rule that fires is stored,
// then enqueues the alerts. The outbox sweeper, which may take an alert up
// before Enqueue's own offer does, reads its rule from the store and
// records an alert whose rule is gone as failed: without the stored rule a
// test would race with it.
func enqueue(t *testing.T, st *store.Store, d *Dispatcher, alerts ...Alert) {
	t.Helper()
	for _, a := range alerts {
		if err := PutRule(context.Background(), st, a.Rule); err != nil {
			t.Fatal(err)
		}
	}
	d.Enqueue(alerts...)
}

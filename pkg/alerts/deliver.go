package alerts

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lfcli/lf/pkg/store"
)

// Webhook headers. The signature is "sha256=" followed by the hex
// HMAC-SHA256, keyed with the rule's secret, of "<timestamp>.<body>", where
// timestamp is the value of TimestampHeader (Unix seconds). Receivers should
// recompute it, compare in constant time and reject old timestamps.
const (
	SignatureHeader = "X-LF-Signature"
	TimestampHeader = "X-LF-Timestamp"
	AlertIDHeader   = "X-LF-Alert-Id"
)

// Sign returns the signature header value for body sent at timestamp.
func Sign(secret, timestamp string, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(timestamp))
	m.Write([]byte{'.'})
	m.Write(body)
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

// Verify checks a signature header in constant time.
func Verify(secret, timestamp string, body []byte, signature string) bool {
	return hmac.Equal([]byte(Sign(secret, timestamp, body)), []byte(signature))
}

// Delivery statuses of an attempt.
const (
	StatusDelivered = "delivered"
	StatusRetrying  = "retrying" // this attempt failed, another one follows
	StatusFailed    = "failed"   // this attempt failed and was the last one
)

// Delivery is one recorded delivery attempt.
type Delivery struct {
	Seq        int64     `json:"seq"`
	TenantID   string    `json:"tenantId"`
	RuleID     string    `json:"ruleId"`
	AgentID    string    `json:"agentId"`
	AlertID    string    `json:"alertId"`
	Channel    string    `json:"channel"`
	Target     string    `json:"target"`
	Attempt    int       `json:"attempt"`
	Status     string    `json:"status"`
	StatusCode int       `json:"statusCode,omitempty"`
	Error      string    `json:"error,omitempty"`
	Time       time.Time `json:"time"`
}

func record(ctx context.Context, st *store.Store, d Delivery) error {
	if err := st.RecordAlertDelivery(ctx, store.AlertDelivery(d)); err != nil {
		return fmt.Errorf("alerts: record delivery: %w", err)
	}
	return nil
}

// ListDeliveries returns the recorded attempts of a tenant ("" for all),
// newest first, at most limit (0 for all).
func ListDeliveries(ctx context.Context, st *store.Store, tenantID string, limit int) ([]Delivery, error) {
	rows, err := st.AlertDeliveries(ctx, tenantID, limit)
	if err != nil {
		return nil, fmt.Errorf("alerts: list deliveries: %w", err)
	}
	out := make([]Delivery, len(rows))
	for i, d := range rows {
		out[i] = Delivery(d)
	}
	return out, nil
}

// Options configure a Dispatcher.
type Options struct {
	AllowHosts  HostAllowList // webhook hosts and ports allowed (empty: any public address)
	Secrets     Secrets       // signing secrets by tenant and name
	Mailer      *Mailer       // nil: email deliveries fail with "no SMTP configured"
	Client      *http.Client  // nil: a client with a 10 s timeout that does not follow redirects
	QueueSize   int           // pending alerts; default 1024
	Workers     int           // default 2
	MaxAttempts int           // per alert; default 5
	BaseBackoff time.Duration // first retry delay, doubled each time; default 1 s
	MaxBackoff  time.Duration // cap of the delay; default 30 s
	// Logf, when set, gets one line per failed attempt (never secrets).
	Logf func(format string, args ...any)
}

// Dispatcher delivers alerts in the background so that a slow or failing
// target never delays the caller: Enqueue does not block, a bounded queue
// feeds a few workers, and each alert is retried with exponential backoff.
type Dispatcher struct {
	st     *store.Store
	opt    Options
	queue  chan Alert
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	mu     sync.Mutex
	closed bool
	stop   chan struct{} // closed by Close: no more backoff, one last attempt each

	pending atomic.Int64 // alerts queued or being delivered
}

// Pending returns the number of alerts queued or being delivered.
func (d *Dispatcher) Pending() int { return int(d.pending.Load()) }

// NewDispatcher starts a dispatcher's workers. Close stops it.
func NewDispatcher(st *store.Store, opt Options) *Dispatcher {
	if opt.QueueSize <= 0 {
		opt.QueueSize = 1024
	}
	if opt.Workers <= 0 {
		opt.Workers = 2
	}
	if opt.MaxAttempts <= 0 {
		opt.MaxAttempts = 5
	}
	if opt.BaseBackoff <= 0 {
		opt.BaseBackoff = time.Second
	}
	if opt.MaxBackoff <= 0 {
		opt.MaxBackoff = 30 * time.Second
	}
	if opt.Client == nil {
		opt.Client = NewWebhookClient(10 * time.Second)
	}
	ctx, cancel := context.WithCancel(context.Background())
	d := &Dispatcher{st: st, opt: opt, queue: make(chan Alert, opt.QueueSize), ctx: ctx, cancel: cancel, stop: make(chan struct{})}
	for range opt.Workers {
		d.wg.Add(1)
		go d.work()
	}
	return d
}

// Enqueue hands alerts to the workers without blocking. An alert that does
// not fit in the queue is recorded as failed.
func (d *Dispatcher) Enqueue(alerts ...Alert) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, a := range alerts {
		if d.closed {
			d.fail(a, "dispatcher is shut down")
			continue
		}
		d.pending.Add(1)
		select {
		case d.queue <- a:
		default:
			d.pending.Add(-1)
			d.fail(a, "delivery queue is full")
		}
	}
}

func (d *Dispatcher) fail(a Alert, reason string) {
	_ = record(context.Background(), d.st, Delivery{
		TenantID: a.TenantID, RuleID: a.RuleID, AgentID: a.AgentID, AlertID: a.AlertID,
		Channel: a.Rule.Channel, Target: target(a.Rule), Attempt: 0, Status: StatusFailed,
		Error: reason, Time: time.Now().UTC().Truncate(time.Second),
	})
}

// Close stops accepting alerts and gives every queued or retrying alert one
// last attempt without waiting for its backoff, until ctx ends; then it
// cancels what is still in flight. Last attempts that fail are recorded as
// failed.
func (d *Dispatcher) Close(ctx context.Context) error {
	d.mu.Lock()
	if !d.closed {
		d.closed = true
		close(d.queue)
		close(d.stop)
	}
	d.mu.Unlock()
	done := make(chan struct{})
	go func() { d.wg.Wait(); close(done) }()
	select {
	case <-done:
		d.cancel()
		return nil
	case <-ctx.Done():
		d.cancel()
		<-done
		return ctx.Err()
	}
}

func (d *Dispatcher) stopping() bool {
	select {
	case <-d.stop:
		return true
	default:
		return false
	}
}

func (d *Dispatcher) work() {
	defer d.wg.Done()
	for a := range d.queue {
		d.deliver(a)
		d.pending.Add(-1)
	}
}

func target(r Rule) string {
	if r.Channel == ChannelEmail {
		return fmt.Sprint(r.To)
	}
	return r.URL
}

// deliver tries one alert up to MaxAttempts times, recording each attempt.
func (d *Dispatcher) deliver(a Alert) {
	delay := d.opt.BaseBackoff
	for attempt := 1; ; attempt++ {
		code, err, retry := d.send(a)
		rec := Delivery{
			TenantID: a.TenantID, RuleID: a.RuleID, AgentID: a.AgentID, AlertID: a.AlertID,
			Channel: a.Rule.Channel, Target: target(a.Rule), Attempt: attempt, StatusCode: code,
			Time: time.Now().UTC().Truncate(time.Second), Status: StatusDelivered,
		}
		last := !retry || attempt >= d.opt.MaxAttempts || d.ctx.Err() != nil || d.stopping()
		if err != nil {
			rec.Error = err.Error()
			rec.Status = StatusRetrying
			if last {
				rec.Status = StatusFailed
			}
			if d.opt.Logf != nil {
				d.opt.Logf("alert %s rule %s attempt %d: %s", a.AlertID, a.RuleID, attempt, rec.Error)
			}
		}
		if rerr := record(context.Background(), d.st, rec); rerr != nil && d.opt.Logf != nil {
			d.opt.Logf("%v", rerr)
		}
		if err == nil || last {
			return
		}
		select {
		case <-time.After(delay):
		case <-d.stop:
		}
		delay *= 2
		if delay > d.opt.MaxBackoff {
			delay = d.opt.MaxBackoff
		}
	}
}

// send makes one attempt; retry tells whether another attempt could help.
func (d *Dispatcher) send(a Alert) (code int, err error, retry bool) {
	switch a.Rule.Channel {
	case ChannelWebhook:
		return d.sendWebhook(a)
	case ChannelEmail:
		if d.opt.Mailer == nil {
			return 0, errors.New("no SMTP server configured (smtp: in the server config)"), false
		}
		if err := d.opt.Mailer.Send(d.ctx, a.Rule.To, a); err != nil {
			var perm *PermanentError
			return 0, err, !errors.As(err, &perm)
		}
		return 0, nil, false
	default:
		return 0, fmt.Errorf("unknown channel %q", a.Rule.Channel), false
	}
}

// refuse logs why a delivery was refused and returns what the tenant sees.
func (d *Dispatcher) refuse(a Alert, detail string) error {
	if d.opt.Logf != nil {
		d.opt.Logf("alert %s rule %s of tenant %s: refused by policy: %s", a.AlertID, a.RuleID, a.TenantID, detail)
	}
	return ErrRefused
}

func (d *Dispatcher) sendWebhook(a Alert) (int, error, bool) {
	if err := CheckTarget(a.Rule.URL, d.opt.AllowHosts); err != nil {
		return 0, d.refuse(a, err.Error()), false
	}
	secret, ok := d.opt.Secrets.Lookup(a.TenantID, a.Rule.SecretName)
	if !ok {
		// The same answer whether the name is unknown or the rule has none:
		// nothing tells a tenant which secrets exist.
		return 0, errors.New("no signing secret: the rule's secretName is not declared for this tenant"), false
	}
	t, _ := parseTarget(a.Rule.URL)
	ctx := withTrust(d.ctx, d.opt.AllowHosts.trustsInternal(t.host, t.port))
	body, err := json.Marshal(a)
	if err != nil {
		return 0, err, false
	}
	ts := strconv.FormatInt(time.Now().Unix(), 10)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.Rule.URL, bytes.NewReader(body))
	if err != nil {
		return 0, err, false
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "lf-alerts/1")
	req.Header.Set(TimestampHeader, ts)
	req.Header.Set(SignatureHeader, Sign(secret, ts, body))
	req.Header.Set(AlertIDHeader, a.AlertID)
	resp, err := d.opt.Client.Do(req)
	if err != nil {
		var id *errInternalDial
		if errors.As(err, &id) {
			return 0, d.refuse(a, id.Error()), false
		}
		if d.opt.Logf != nil {
			d.opt.Logf("alert %s rule %s: %v", a.AlertID, a.RuleID, err)
		}
		return 0, errors.New(publicError(err)), true
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		return resp.StatusCode, nil, false
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusRequestTimeout || resp.StatusCode >= 500:
		return resp.StatusCode, fmt.Errorf("target answered %s", resp.Status), true
	default:
		return resp.StatusCode, fmt.Errorf("target answered %s", resp.Status), false
	}
}

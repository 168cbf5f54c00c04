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
	QueueSize   int           // alerts queued in memory per tenant; default 1024 (more wait in the outbox)
	Workers     int           // default 2
	MaxAttempts int           // per alert; default 5
	BaseBackoff time.Duration // first retry delay, doubled each time; default 1 s
	MaxBackoff  time.Duration // cap of the delay; default 30 s
	// RedeliverAfter is how long an alert taken for delivery stays this
	// process's: one still in the outbox after that (the process died) is
	// delivered again, by whichever process sweeps first. Default 5 min;
	// it should exceed an alert's longest delivery (attempts x (timeout +
	// backoff)).
	RedeliverAfter time.Duration
	// Sweep is how often the outbox is read for alerts that did not fit in
	// memory or were left by a process that died; default 1 s.
	Sweep time.Duration
	// Logf, when set, gets one line per failed attempt (never secrets).
	Logf func(format string, args ...any)
}

// Dispatcher delivers alerts in the background so that a slow or failing
// target never delays the caller, and so that no tenant can delay another
// tenant's alerts: Enqueue does not block, each tenant has its own bounded
// queue, a few workers take the tenants in turn (one tenant holds at most
// all workers but one), and each alert is retried with exponential backoff.
//
// Delivery is at least once: every alert is in the store's outbox before
// it is delivered (Evaluate writes it in the transaction that claims its
// crossing) and leaves it only when its delivery ended (delivered, or
// failed after its last attempt). An alert that does not fit in its
// tenant's queue waits in the outbox; one left by a process that died is
// delivered again after RedeliverAfter. Receivers de-duplicate by the
// alert id (X-LF-Alert-Id), the same on every attempt and redelivery.
type Dispatcher struct {
	st     *store.Store
	opt    Options
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	stop   chan struct{} // closed by Close: no more backoff, one last attempt each

	mu       sync.Mutex
	wake     *sync.Cond          // signalled when an alert is queued or Close is called
	queues   map[string][]Alert  // by tenant
	turn     []string            // tenants with queued alerts, in the order workers serve them
	inflight map[string]struct{} // ids of alerts queued or being delivered
	active   map[string]int      // alerts being delivered, by tenant
	closed   bool

	pending atomic.Int64 // alerts queued or being delivered
}

// Pending returns the number of alerts queued or being delivered.
func (d *Dispatcher) Pending() int { return int(d.pending.Load()) }

// NewDispatcher starts a dispatcher's workers and its outbox sweeper (which
// first takes up what an earlier process left). Close stops it.
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
	if opt.RedeliverAfter <= 0 {
		opt.RedeliverAfter = 5 * time.Minute
	}
	if opt.Sweep <= 0 {
		opt.Sweep = time.Second
	}
	if opt.Client == nil {
		opt.Client = NewWebhookClient(10 * time.Second)
	}
	ctx, cancel := context.WithCancel(context.Background())
	d := &Dispatcher{
		st: st, opt: opt, ctx: ctx, cancel: cancel, stop: make(chan struct{}),
		queues: map[string][]Alert{}, inflight: map[string]struct{}{}, active: map[string]int{},
	}
	d.wake = sync.NewCond(&d.mu)
	for range opt.Workers {
		d.wg.Add(1)
		go d.work()
	}
	d.wg.Add(1)
	go d.sweepLoop()
	return d
}

// Enqueue hands alerts to the workers without blocking. Alerts Evaluate
// returned are in the outbox already; others are written to it first. An
// alert that does not fit in its tenant's queue stays in the outbox and is
// taken up by the sweeper when there is room.
func (d *Dispatcher) Enqueue(alerts ...Alert) {
	for _, a := range alerts {
		if !a.stored {
			if err := putOutbox(d.ctx, d.st, a, time.Now()); err != nil {
				d.logf("alert %s: not written to the outbox, delivered from memory only: %v", a.AlertID, err)
			}
		}
		d.offer(a, false)
	}
}

// offer queues a if its tenant's queue has room and the outbox lease can be
// taken (claimed: the sweeper took it already); false when it was not. The
// store is not called under the dispatcher's lock.
func (d *Dispatcher) offer(a Alert, claimed bool) bool {
	if !claimed {
		if !d.hasRoom(a.TenantID, a.AlertID) {
			return false // it waits in the outbox, not leased
		}
		now := time.Now()
		ok, err := d.st.ClaimOutboxAlert(d.ctx, a.AlertID, now, now.Add(d.opt.RedeliverAfter))
		if err != nil || !ok {
			return false // another process took it, or the sweeper retries later
		}
	}
	d.mu.Lock()
	_, busy := d.inflight[a.AlertID]
	if d.closed || busy || len(d.queues[a.TenantID]) >= d.opt.QueueSize {
		d.mu.Unlock()
		if !busy { // filled or closed meanwhile: due again at once, for the sweeper or the next start
			_, _ = d.st.ClaimOutboxAlert(context.Background(), a.AlertID, time.Now().Add(d.opt.RedeliverAfter+time.Minute), time.Time{})
		}
		return false
	}
	if len(d.queues[a.TenantID]) == 0 {
		d.turn = append(d.turn, a.TenantID)
	}
	d.queues[a.TenantID] = append(d.queues[a.TenantID], a)
	d.inflight[a.AlertID] = struct{}{}
	d.pending.Add(1)
	d.wake.Signal()
	d.mu.Unlock()
	return true
}

// next takes the oldest alert of the first tenant in turn that is below
// its share of the workers; false when the dispatcher closed and nothing is
// queued, or was cancelled.
func (d *Dispatcher) next() (Alert, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for {
		if d.ctx.Err() != nil || (d.closed && len(d.turn) == 0) {
			return Alert{}, false
		}
		for i, t := range d.turn {
			if d.active[t] >= d.share() {
				continue
			}
			q := d.queues[t]
			a := q[0]
			q[0] = Alert{}
			d.turn = append(d.turn[:i:i], d.turn[i+1:]...)
			if q = q[1:]; len(q) > 0 {
				d.queues[t] = q
				d.turn = append(d.turn, t) // the tenant's next alert waits for the other tenants' turns
			} else {
				delete(d.queues, t)
			}
			d.active[t]++
			return a, true
		}
		d.wake.Wait()
	}
}

// share is how many workers one tenant's alerts may hold at once: all but
// one, so a tenant whose targets hang never holds back another tenant's
// alert.
func (d *Dispatcher) share() int { return max(1, d.opt.Workers-1) }

// done ends an alert's delivery: out of memory, and out of the outbox when
// its delivery ended (not when a shutdown interrupted it).
func (d *Dispatcher) done(a Alert, ended bool) {
	if ended {
		if err := d.st.DeleteOutboxAlert(context.Background(), a.AlertID); err != nil {
			d.logf("alert %s: %v (it may be delivered again)", a.AlertID, err)
		}
	}
	d.mu.Lock()
	delete(d.inflight, a.AlertID)
	if d.active[a.TenantID]--; d.active[a.TenantID] <= 0 {
		delete(d.active, a.TenantID)
	}
	d.wake.Broadcast() // the tenant may take a worker again
	d.mu.Unlock()
	d.pending.Add(-1)
}

func (d *Dispatcher) logf(format string, args ...any) {
	if d.opt.Logf != nil {
		d.opt.Logf(format, args...)
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
// failed; alerts not attempted by then stay in the outbox, for the next
// start.
func (d *Dispatcher) Close(ctx context.Context) error {
	d.mu.Lock()
	if !d.closed {
		d.closed = true
		close(d.stop)
		d.wake.Broadcast()
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
		d.mu.Lock()
		d.wake.Broadcast()
		d.mu.Unlock()
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
	for {
		a, ok := d.next()
		if !ok {
			return
		}
		d.done(a, d.deliver(a))
	}
}

func target(r Rule) string {
	if r.Channel == ChannelEmail {
		return fmt.Sprint(r.To)
	}
	return r.URL
}

// deliver tries one alert up to MaxAttempts times, recording each attempt;
// it reports whether the delivery ended (false: a shutdown cancelled it, and
// the alert stays in the outbox).
func (d *Dispatcher) deliver(a Alert) bool {
	delay := d.opt.BaseBackoff
	for attempt := 1; ; attempt++ {
		code, err, retry := d.send(a)
		if err != nil && retry && d.ctx.Err() != nil {
			return false // cancelled by the shutdown, not the target's answer
		}
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
			return true
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

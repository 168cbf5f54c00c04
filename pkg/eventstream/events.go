// Package eventstream consumes agent events from a NATS JetStream stream into
// the store, for `lf serve --events nats://HOST:4222`.
//
// The stream (default LF_EVENTS) holds one subject per tenant,
// SUBJECTPREFIX.<tenant> (default lf.events.<tenant>); a message is one
// event, a JSON array of events or NDJSON, as POST /tenants/{id}/events
// takes them, and each event's tenant_id is the subject's tenant (a message
// that is not so is rejected: logged and terminated, never redelivered). Every replica of lf serve pulls from the same durable
// consumer (default lf-serve), so each message goes to one replica at a
// time. A fetched batch is ingested in one store transaction through the
// idempotent ingest (agentrisk.Engine.Ingest: an event already stored is
// counted as a duplicate, not twice) and acknowledged only after that
// transaction committed. A replica killed before acknowledging leaves its
// messages to be redelivered after AckWait (to it after a restart, or to
// another replica); one killed after the commit and before the
// acknowledgement causes a redelivery that the ingest recognises. So every
// event is counted exactly once, and a restarted consumer resumes where the
// durable consumer stopped. See docs/events.md.
package eventstream

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/lfcli/lf/pkg/agentrisk"
)

// Options configure the consumer; zero values take the defaults.
type Options struct {
	URL           string        // nats://host:4222 (user:password@ allowed; never printed)
	Stream        string        // default LF_EVENTS
	SubjectPrefix string        // default lf.events: tenant T publishes on lf.events.T
	Durable       string        // durable consumer name, default lf-serve
	Batch         int           // messages per fetch and transaction, default 500
	AckWait       time.Duration // redelivery delay of unacknowledged messages, default 30s
	// CreateStream creates the stream (file storage, the prefix's subjects)
	// when it does not exist.
	CreateStream bool
	Logf         func(format string, args ...any)
}

// Defaults.
const (
	DefaultStream        = "LF_EVENTS"
	DefaultSubjectPrefix = "lf.events"
	DefaultDurable       = "lf-serve"
)

func (o *Options) defaults() {
	if o.Stream == "" {
		o.Stream = DefaultStream
	}
	if o.SubjectPrefix == "" {
		o.SubjectPrefix = DefaultSubjectPrefix
	}
	if o.Durable == "" {
		o.Durable = DefaultDurable
	}
	if o.Batch <= 0 {
		o.Batch = 500
	}
	if o.AckWait <= 0 {
		o.AckWait = 30 * time.Second
	}
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
}

// Ingester stores events idempotently (agentrisk.Engine).
type Ingester interface {
	Ingest(ctx context.Context, events []agentrisk.Event) (agentrisk.IngestResult, error)
}

// Stats count what a consumer did.
type Stats struct {
	Messages   int // messages acknowledged after their events were stored
	Events     int // events in them
	New        int // events stored for the first time
	Duplicates int // events already stored (redeliveries)
	Rejected   int // messages that are not events (terminated, never redelivered)
}

// Redact returns the URL without its password, for messages.
func Redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	if _, has := u.User.Password(); has {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}

// CheckURL says what is wrong with a --events URL, if anything.
func CheckURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "nats" && u.Scheme != "tls") {
		return fmt.Errorf("events URL %q: expected nats://HOST:PORT (or tls://HOST:PORT)", Redact(raw))
	}
	return nil
}

// Consumer pulls agent events from JetStream into the store.
type Consumer struct {
	opt  Options
	nc   *nats.Conn
	cons jetstream.Consumer
	ing  Ingester

	mu    sync.Mutex
	stats Stats
}

// Dial connects to NATS, makes sure the stream (when CreateStream) and the
// durable consumer exist, and returns the consumer; Run consumes.
func Dial(ctx context.Context, opt Options, ing Ingester) (*Consumer, error) {
	opt.defaults()
	if err := CheckURL(opt.URL); err != nil {
		return nil, err
	}
	where := Redact(opt.URL)
	nc, err := nats.Connect(opt.URL,
		nats.Name("lf serve"),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(time.Second),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			if err != nil {
				opt.Logf("events: disconnected from %s: %v (reconnecting)", where, err)
			}
		}),
		nats.ReconnectHandler(func(*nats.Conn) { opt.Logf("events: reconnected to %s", where) }),
	)
	if err != nil {
		return nil, fmt.Errorf("events: connecting to %s: %w", where, err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("events: %w", err)
	}
	subjects := opt.SubjectPrefix + ".>"
	if _, err := js.Stream(ctx, opt.Stream); errors.Is(err, jetstream.ErrStreamNotFound) && opt.CreateStream {
		_, err = js.CreateStream(ctx, jetstream.StreamConfig{
			Name: opt.Stream, Subjects: []string{subjects}, Storage: jetstream.FileStorage,
			Retention: jetstream.LimitsPolicy, Duplicates: 2 * time.Minute,
		})
		if err == nil {
			opt.Logf("events: created stream %s (subjects %s)", opt.Stream, subjects)
		}
		if errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
			err = nil // another replica created it meanwhile
		}
		if err != nil {
			nc.Close()
			return nil, fmt.Errorf("events: creating stream %s on %s: %w", opt.Stream, where, err)
		}
	} else if err != nil {
		nc.Close()
		return nil, fmt.Errorf("events: stream %s on %s: %w (create it: nats stream add %s --subjects '%s' --storage file --defaults)", opt.Stream, where, err, opt.Stream, subjects)
	}
	cons, err := js.CreateOrUpdateConsumer(ctx, opt.Stream, jetstream.ConsumerConfig{
		Durable:       opt.Durable,
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       opt.AckWait,
		FilterSubject: subjects,
		DeliverPolicy: jetstream.DeliverAllPolicy,
		MaxAckPending: max(4*opt.Batch, 1000),
	})
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("events: durable consumer %s of stream %s: %w", opt.Durable, opt.Stream, err)
	}
	return &Consumer{opt: opt, nc: nc, cons: cons, ing: ing}, nil
}

// Stream is the stream's name.
func (c *Consumer) Stream() string { return c.opt.Stream }

// Durable is the durable consumer's name.
func (c *Consumer) Durable() string { return c.opt.Durable }

// Close closes the connection (unacknowledged messages are redelivered).
func (c *Consumer) Close() { c.nc.Close() }

// Stats returns what the consumer did so far.
func (c *Consumer) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stats
}

// Run consumes until ctx ends. A batch the store cannot take (the store is
// down) is not acknowledged: it is fetched again after AckWait, and Run
// waits a little before fetching more.
func (c *Consumer) Run(ctx context.Context) {
	// A fetch returns when the batch is full or after wait; its messages'
	// AckWait runs from their delivery, so the wait is a small part of it.
	wait := min(time.Second, c.opt.AckWait/4)
	for ctx.Err() == nil {
		b, err := c.cons.Fetch(c.opt.Batch, jetstream.FetchMaxWait(wait))
		if err != nil {
			c.opt.Logf("events: fetch: %v", err)
			sleep(ctx, time.Second)
			continue
		}
		var msgs []jetstream.Msg
		for m := range b.Messages() {
			msgs = append(msgs, m)
		}
		if err := b.Error(); err != nil && !errors.Is(err, nats.ErrTimeout) && !errors.Is(err, context.DeadlineExceeded) {
			c.opt.Logf("events: fetch: %v", err)
		}
		if len(msgs) == 0 {
			continue
		}
		if err := c.handle(ctx, msgs); err != nil {
			c.opt.Logf("events: %d messages not stored (redelivered after %s): %v", len(msgs), c.opt.AckWait, err)
			sleep(ctx, time.Second)
		}
	}
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

// handle stores the events of msgs in one transaction and then acknowledges
// them. Messages that are not events are terminated (logged, never
// redelivered); the others wait for the commit.
func (c *Consumer) handle(ctx context.Context, msgs []jetstream.Msg) error {
	var events []agentrisk.Event
	var good []jetstream.Msg
	var ends []int // the end of each good message's events in events
	for _, m := range msgs {
		evs, err := c.parse(m)
		if err != nil {
			c.reject(m, err)
			continue
		}
		events = append(events, evs...)
		good = append(good, m)
		ends = append(ends, len(events))
	}
	if len(good) == 0 {
		return nil
	}
	// The store commit is not cancelled by a shutdown: a finished commit is
	// then acknowledged too.
	res, err := c.ing.Ingest(context.WithoutCancel(ctx), events)
	// An event dated too far ahead is refused with its index: its message
	// is rejected and the others are ingested without it.
	for fe := (*agentrisk.FutureEventError)(nil); err != nil && errors.As(err, &fe) && fe.Index >= 0 && fe.Index < len(events); {
		k := sort.SearchInts(ends, fe.Index+1)
		start := 0
		if k > 0 {
			start = ends[k-1]
		}
		c.reject(good[k], err)
		n := ends[k] - start
		events = append(events[:start:start], events[ends[k]:]...)
		good = append(good[:k:k], good[k+1:]...)
		ends = append(ends[:k:k], ends[k+1:]...)
		for j := k; j < len(ends); j++ {
			ends[j] -= n
		}
		if len(good) == 0 {
			return nil
		}
		res, err = c.ing.Ingest(context.WithoutCancel(ctx), events)
	}
	if err != nil {
		return err
	}
	for _, m := range good {
		// DoubleAck waits for the server's confirmation, so that a stopped
		// replica does not leave acknowledged-looking messages behind; an
		// acknowledgement lost anyway means a redelivery, which the ingest
		// counts as a duplicate.
		actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		if err := m.DoubleAck(actx); err != nil {
			c.opt.Logf("events: acknowledging a message on %s: %v (it will be redelivered and recognised)", m.Subject(), err)
		}
		cancel()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stats.Messages += len(good)
	c.stats.Events += res.Events
	c.stats.New += res.New
	c.stats.Duplicates += res.Duplicates
	return nil
}

// reject terminates a message that cannot be ingested (logged, never
// redelivered).
func (c *Consumer) reject(m jetstream.Msg, err error) {
	c.opt.Logf("events: rejected a message on %s: %v", m.Subject(), err)
	m.Term()
	c.mu.Lock()
	c.stats.Rejected++
	c.mu.Unlock()
}

// parse reads a message's events and checks them against the subject's
// tenant.
func (c *Consumer) parse(m jetstream.Msg) ([]agentrisk.Event, error) {
	tenant, ok := strings.CutPrefix(m.Subject(), c.opt.SubjectPrefix+".")
	if !ok || tenant == "" || strings.Contains(tenant, ".") {
		return nil, fmt.Errorf("subject %q is not %s.<tenant>", m.Subject(), c.opt.SubjectPrefix)
	}
	evs, d := agentrisk.ParseEvents(m.Subject(), bytes.NewReader(m.Data()))
	if d.HasErrors() {
		return nil, fmt.Errorf("%v", d.Errors()[0])
	}
	if len(evs) == 0 {
		return nil, errors.New("no events in the message")
	}
	for i := range evs {
		switch evs[i].TenantID {
		case "":
			evs[i].TenantID = tenant
		case tenant:
		default:
			return nil, fmt.Errorf("event %d has tenant_id %q on the subject of tenant %q", i, evs[i].TenantID, tenant)
		}
		if evs[i].AgentID == "" || evs[i].Timestamp.IsZero() {
			return nil, fmt.Errorf("event %d has no agent_id or no timestamp", i)
		}
	}
	return evs, nil
}

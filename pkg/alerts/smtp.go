package alerts

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/smtp"
	"net/textproto"
	"strconv"
	"strings"
	"time"
)

// STARTTLS policies of a Mailer.
const (
	StartTLSRequired      = "required"      // fail when the server does not offer STARTTLS
	StartTLSOpportunistic = "opportunistic" // use it when offered
)

// PermanentError is a delivery failure that retrying will not fix (a 5xx
// SMTP reply, a missing STARTTLS that the config requires).
type PermanentError struct{ Err error }

func (e *PermanentError) Error() string { return e.Err.Error() }
func (e *PermanentError) Unwrap() error { return e.Err }

// Mailer sends alert emails through one SMTP server.
type Mailer struct {
	Host     string
	Port     int
	Username string // empty: no AUTH
	Password string
	From     string
	StartTLS string        // StartTLSRequired (default) or StartTLSOpportunistic
	Timeout  time.Duration // whole conversation; default 30 s
	// TLSConfig overrides the TLS settings (tests pass their own root CA).
	TLSConfig *tls.Config
}

// Send delivers alert a to the recipients in one SMTP conversation.
func (m *Mailer) Send(ctx context.Context, to []string, a Alert) error {
	timeout := m.Timeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	addr := net.JoinHostPort(m.Host, strconv.Itoa(m.Port))
	var dialer net.Dialer
	conn, err := dialer.DialContext(ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("smtp %s: %w", addr, err)
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	c, err := smtp.NewClient(conn, m.Host)
	if err != nil {
		return fmt.Errorf("smtp %s: %w", addr, classify(err))
	}
	defer c.Close()
	if err := c.Hello("localhost"); err != nil {
		return fmt.Errorf("smtp EHLO: %w", classify(err))
	}
	if ok, _ := c.Extension("STARTTLS"); ok {
		cfg := m.TLSConfig
		if cfg == nil {
			cfg = &tls.Config{ServerName: m.Host, MinVersion: tls.VersionTLS12}
		}
		if err := c.StartTLS(cfg); err != nil {
			return fmt.Errorf("smtp STARTTLS: %w", err)
		}
	} else if m.StartTLS != StartTLSOpportunistic {
		return &PermanentError{fmt.Errorf("smtp %s does not offer STARTTLS, which the config requires (set smtp.startTLS: opportunistic to allow plain text)", addr)}
	}
	if m.Username != "" {
		// net/smtp refuses PLAIN auth over an unencrypted link to a remote host.
		if err := c.Auth(smtp.PlainAuth("", m.Username, m.Password, m.Host)); err != nil {
			return fmt.Errorf("smtp AUTH: %w", classify(err))
		}
	}
	if err := c.Mail(m.From); err != nil {
		return fmt.Errorf("smtp MAIL FROM: %w", classify(err))
	}
	for _, r := range to {
		if err := c.Rcpt(r); err != nil {
			return fmt.Errorf("smtp RCPT TO %s: %w", r, classify(err))
		}
	}
	w, err := c.Data()
	if err != nil {
		return fmt.Errorf("smtp DATA: %w", classify(err))
	}
	if _, err := w.Write(message(m.From, to, a)); err != nil {
		return fmt.Errorf("smtp DATA: %w", err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("smtp DATA: %w", classify(err))
	}
	return c.Quit()
}

// classify marks 5xx replies as permanent.
func classify(err error) error {
	var te *textproto.Error
	if errors.As(err, &te) && te.Code >= 500 {
		return &PermanentError{err}
	}
	return err
}

func message(from string, to []string, a Alert) []byte {
	name := a.AgentName
	if name == "" {
		name = a.AgentID
	}
	var b strings.Builder
	fmt.Fprintf(&b, "From: %s\r\n", from)
	fmt.Fprintf(&b, "To: %s\r\n", strings.Join(to, ", "))
	fmt.Fprintf(&b, "Subject: [lf] %s: agent %s is %s (score %g)\r\n", a.TenantID, oneLine(name), a.NewTier, a.NewScore)
	fmt.Fprintf(&b, "Date: %s\r\n", a.Time.Format(time.RFC1123Z))
	b.WriteString("MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n")
	fmt.Fprintf(&b, "Alert rule %s fired (%s).\r\n\r\n", a.RuleID, a.Condition)
	fmt.Fprintf(&b, "Tenant:  %s\r\nAgent:   %s (%s)\r\nScore:   %g -> %g\r\nTier:    %s -> %s\r\nTime:    %s\r\nAlert:   %s\r\n",
		a.TenantID, oneLine(name), a.AgentID, a.OldScore, a.NewScore, a.OldTier, a.NewTier, a.Time.Format(time.RFC3339), a.AlertID)
	return []byte(b.String())
}

func oneLine(s string) string { return strings.NewReplacer("\r", " ", "\n", " ").Replace(s) }

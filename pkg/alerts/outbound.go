package alerts

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ErrRefused is what a tenant sees when a webhook target is refused by the
// outbound policy; the detail (which address, which rule of the policy)
// goes to the server log only.
var ErrRefused = errors.New("refused by policy")

// HostAllowList is the webhookAllowHosts list of the server config. An entry
// names a host and the ports it may be reached on:
//
//	hooks.example.com        ports 80 and 443
//	hooks.example.com:8443   that port only
//	127.0.0.1:*              any port
//	*.hooks.example.com      any subdomain, ports 80 and 443 (also with :port or :*)
//	[::1]:9000               IPv6 addresses in brackets
//
// An empty list allows any host and port, but never an internal address
// (see Internal). A non-empty list allows only its entries; an exact entry
// (not a *. pattern) may resolve to an internal address, which is how an
// operator allows a local receiver.
type HostAllowList []string

// allowEntry is one parsed entry.
type allowEntry struct {
	host     string // lower case, no trailing dot; "*.x" for a suffix pattern
	anyPort  bool
	port     int // 0: 80 and 443
	wildcard bool
}

// CheckAllowEntry reports what is wrong with one entry ("" if nothing).
func CheckAllowEntry(e string) string {
	_, err := parseAllowEntry(e)
	if err != nil {
		return err.Error()
	}
	return ""
}

func parseAllowEntry(e string) (allowEntry, error) {
	e = strings.ToLower(strings.TrimSpace(e))
	if e == "" || strings.Contains(e, "/") {
		return allowEntry{}, fmt.Errorf("%q is not host, host:port or host:*", e)
	}
	var out allowEntry
	host, port := e, ""
	if _, err := netip.ParseAddr(e); err != nil { // a bare IPv6 address has colons but no port
		if h, p, err := net.SplitHostPort(e); err == nil {
			host, port = h, p
		} else if strings.Contains(e, ":") && !strings.HasPrefix(e, "[") {
			return allowEntry{}, fmt.Errorf("%q is not host, host:port or host:*", e)
		}
	}
	host = strings.TrimSuffix(strings.Trim(host, "[]"), ".")
	if host == "" {
		return allowEntry{}, fmt.Errorf("%q has no host", e)
	}
	switch {
	case port == "":
	case port == "*":
		out.anyPort = true
	default:
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 {
			return allowEntry{}, fmt.Errorf("%q: port must be 1-65535 or *", e)
		}
		out.port = n
	}
	if strings.HasPrefix(host, "*.") {
		out.wildcard = true
		if len(host) < 3 || strings.Contains(host[2:], "*") {
			return allowEntry{}, fmt.Errorf("%q: a pattern is *.suffix", e)
		}
	} else if strings.Contains(host, "*") {
		return allowEntry{}, fmt.Errorf("%q: a pattern is *.suffix", e)
	}
	out.host = host
	return out, nil
}

func (a allowEntry) matches(host string, port int) bool {
	switch {
	case a.anyPort:
	case a.port == 0:
		if port != 80 && port != 443 {
			return false
		}
	default:
		if port != a.port {
			return false
		}
	}
	if a.wildcard {
		return strings.HasSuffix(host, a.host[1:]) && len(host) > len(a.host)-1
	}
	return host == a.host
}

// match finds the entry allowing host:port; ok false when the list is not
// empty and no entry does.
func (l HostAllowList) match(host string, port int) (e allowEntry, ok bool) {
	host = strings.ToLower(strings.TrimSuffix(strings.Trim(host, "[]"), "."))
	for _, raw := range l {
		a, err := parseAllowEntry(raw)
		if err == nil && a.matches(host, port) {
			return a, true
		}
	}
	return allowEntry{}, false
}

// Allows reports whether a webhook may target host on port.
func (l HostAllowList) Allows(host string, port int) bool {
	if len(l) == 0 {
		return true
	}
	_, ok := l.match(host, port)
	return ok
}

// trustsInternal reports whether host:port is allowed by an exact entry, so
// that it may resolve to an internal address.
func (l HostAllowList) trustsInternal(host string, port int) bool {
	a, ok := l.match(host, port)
	return ok && len(l) > 0 && !a.wildcard
}

// Internal reports whether ip is an address webhooks may not reach by
// default: loopback, private (RFC 1918, fc00::/7), link-local (incl. the
// cloud metadata address 169.254.169.254), multicast, unspecified, carrier
// NAT (100.64.0.0/10), the documentation ranges (TEST-NET-1 to 3,
// 2001:db8::/32) and the other special-purpose ranges. An IPv6 address that
// carries an IPv4 address (IPv4-mapped ::ffff:0:0/96, IPv4-compatible
// ::/96, 6to4 2002::/16) is judged by that IPv4 address too.
func Internal(ip netip.Addr) bool {
	ip = ip.Unmap()
	if v4, ok := embeddedIPv4(ip); ok && Internal(v4) {
		return true
	}
	if !ip.IsValid() || ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsInterfaceLocalMulticast() || ip.IsMulticast() || ip.IsUnspecified() {
		return true
	}
	for _, p := range specialPrefixes {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

var specialPrefixes = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("192.0.2.0/24"),    // TEST-NET-1
	netip.MustParsePrefix("198.51.100.0/24"), // TEST-NET-2
	netip.MustParsePrefix("203.0.113.0/24"),  // TEST-NET-3
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("64:ff9b::/96"),
	netip.MustParsePrefix("64:ff9b:1::/48"),
	netip.MustParsePrefix("fec0::/10"),
	netip.MustParsePrefix("2001:db8::/32"),
	netip.MustParsePrefix("::/96"),           // IPv4-compatible (deprecated): never a webhook target
	netip.MustParsePrefix("::ffff:0:0:0/96"), // IPv4-translated (RFC 2765)
	netip.MustParsePrefix("2001::/32"),       // Teredo: carries an obfuscated IPv4 address
}

// embeddedIPv4 returns the IPv4 address an IPv6 address carries: the low 32
// bits of an IPv4-compatible (::a.b.c.d) or IPv4-translated address, bits
// 16 to 47 of a 6to4 address (2002:AABB:CCDD::).
func embeddedIPv4(ip netip.Addr) (netip.Addr, bool) {
	if !ip.Is6() {
		return netip.Addr{}, false
	}
	b := ip.As16()
	switch {
	case b[0] == 0x20 && b[1] == 0x02:
		return netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]}), true
	case ipv4Compat.Contains(ip) || ipv4Translated.Contains(ip):
		return netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}), true
	}
	return netip.Addr{}, false
}

var (
	ipv4Compat     = netip.MustParsePrefix("::/96")
	ipv4Translated = netip.MustParsePrefix("::ffff:0:0:0/96")
)

// webhookTarget is a parsed webhook URL.
type webhookTarget struct {
	host string
	port int
}

func parseTarget(raw string) (webhookTarget, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return webhookTarget{}, fmt.Errorf("not a URL: %v", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return webhookTarget{}, fmt.Errorf("only http and https URLs are accepted, got %q", u.Scheme)
	}
	if u.Hostname() == "" {
		return webhookTarget{}, errors.New("URL has no host")
	}
	if u.User != nil {
		return webhookTarget{}, errors.New("URL must not carry credentials; the rule's secretName signs the body")
	}
	port := 80
	if u.Scheme == "https" {
		port = 443
	}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return webhookTarget{}, fmt.Errorf("port %q is not 1-65535", p)
		}
		port = n
	}
	return webhookTarget{host: strings.ToLower(strings.TrimSuffix(u.Hostname(), ".")), port: port}, nil
}

// CheckWebhookURL accepts only absolute http(s) URLs whose host and port the
// allow list allows (an empty list allows any).
func CheckWebhookURL(raw string, allow HostAllowList) error {
	t, err := parseTarget(raw)
	if err != nil {
		return err
	}
	if !allow.Allows(t.host, t.port) {
		return fmt.Errorf("%s:%d is not in webhookAllowHosts", t.host, t.port)
	}
	return nil
}

// CheckTarget is the server's outbound policy for a webhook URL: what
// CheckWebhookURL checks, and an internal IP address written in the URL is
// refused unless an exact entry allows it. Host names are checked on their
// resolved address when a delivery connects.
func CheckTarget(raw string, allow HostAllowList) error {
	if err := CheckWebhookURL(raw, allow); err != nil {
		return err
	}
	t, _ := parseTarget(raw)
	if ip, err := netip.ParseAddr(t.host); err == nil && Internal(ip) && !allow.trustsInternal(t.host, t.port) {
		return fmt.Errorf("%s is an internal address; webhooks may not target it unless webhookAllowHosts lists it", t.host)
	}
	return nil
}

type trustKey struct{}

// withTrust marks a delivery's context: the target was allowed by an exact
// entry, so its connection may reach an internal address.
func withTrust(ctx context.Context, trusted bool) context.Context {
	return context.WithValue(ctx, trustKey{}, trusted)
}

// errInternalDial is returned by the dialer's control function for an
// internal address; deliveries record it as ErrRefused.
type errInternalDial struct{ addr string }

func (e *errInternalDial) Error() string {
	return "connection to internal address " + e.addr + " refused by policy"
}

// guardDial is the dialer's control function: it runs on the resolved
// address of every connection attempt, so a name that resolves (or is
// re-bound) to an internal address is refused at connect time.
func guardDial(ctx context.Context, network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return &errInternalDial{address}
	}
	if Internal(ap.Addr()) {
		if trusted, _ := ctx.Value(trustKey{}).(bool); !trusted {
			return &errInternalDial{address}
		}
	}
	return nil
}

// NewWebhookClient returns the HTTP client webhooks are sent with: a
// per-attempt timeout, no redirects (following one would let a target send
// us past the allow list), no proxy from the environment, and a dialer that
// refuses internal addresses unless the delivery is trusted.
func NewWebhookClient(timeout time.Duration) *http.Client {
	d := &net.Dialer{Timeout: timeout, ControlContext: guardDial}
	tr := &http.Transport{
		Proxy:                 nil,
		DialContext:           d.DialContext,
		TLSHandshakeTimeout:   timeout,
		ResponseHeaderTimeout: timeout,
		MaxIdleConns:          16,
		IdleConnTimeout:       90 * time.Second,
		ForceAttemptHTTP2:     true,
	}
	return &http.Client{
		Timeout:       timeout,
		Transport:     tr,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// publicError turns a delivery error into what the tenant may read: the
// policy refusal without detail, or the class of a network failure without
// addresses.
func publicError(err error) string {
	var id *errInternalDial
	switch {
	case errors.Is(err, ErrRefused), errors.As(err, &id):
		return ErrRefused.Error()
	case isTimeout(err):
		return "delivery failed: timed out"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "delivery failed: connection refused"
	case errors.Is(err, syscall.ECONNRESET):
		return "delivery failed: connection reset"
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return "delivery failed: the host name does not resolve"
	}
	if strings.Contains(err.Error(), "tls") || strings.Contains(err.Error(), "x509") {
		return "delivery failed: TLS handshake failed"
	}
	return "delivery failed: network error"
}

func isTimeout(err error) bool {
	var ne interface{ Timeout() bool }
	return errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}

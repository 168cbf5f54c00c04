package alerts

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
)

func TestInternalAddresses(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1": true, "10.1.2.3": true, "172.16.0.1": true, "192.168.1.1": true,
		"169.254.169.254": true, "0.0.0.0": true, "224.0.0.1": true, "100.64.0.1": true,
		"::1": true, "::": true, "fe80::1": true, "fd00::1": true, "ff02::1": true,
		"::ffff:127.0.0.1": true, "::ffff:10.0.0.1": true, "255.255.255.255": true,
		"8.8.8.8": false, "93.184.216.34": false, "2606:4700::1111": false,
	} {
		if got := Internal(netip.MustParseAddr(addr)); got != want {
			t.Errorf("Internal(%s) = %v, want %v", addr, got, want)
		}
	}
}

func TestAllowListEntries(t *testing.T) {
	l := HostAllowList{"hooks.example.com", "alt.example.com:8443", "127.0.0.1:*", "*.corp.example", "[::1]:9000"}
	cases := []struct {
		host string
		port int
		want bool
	}{
		{"hooks.example.com", 443, true},
		{"hooks.example.com", 80, true},
		{"hooks.example.com", 22, false}, // a bare host means ports 80 and 443 only
		{"HOOKS.example.com.", 443, true},
		{"alt.example.com", 8443, true},
		{"alt.example.com", 443, false},
		{"127.0.0.1", 6379, true},
		{"a.corp.example", 443, true},
		{"corp.example", 443, false},
		{"a.corp.example", 8080, false},
		{"::1", 9000, true},
		{"::1", 9001, false},
		{"evil.example.com", 443, false},
	}
	for _, c := range cases {
		if got := l.Allows(c.host, c.port); got != c.want {
			t.Errorf("Allows(%s, %d) = %v, want %v", c.host, c.port, got, c.want)
		}
	}
	for _, bad := range []string{"", "http://x", "x:y", "x:0", "a*.b", "*."} {
		if CheckAllowEntry(bad) == "" {
			t.Errorf("entry %q accepted", bad)
		}
	}
	for _, good := range []string{"x", "x:1", "x:*", "*.x", "10.0.0.1:8080", "[::1]:*", "::1"} {
		if msg := CheckAllowEntry(good); msg != "" {
			t.Errorf("entry %q refused: %s", good, msg)
		}
	}
}

func TestCheckWebhookURLPolicy(t *testing.T) {
	for _, c := range []struct {
		url   string
		allow HostAllowList
		ok    bool
	}{
		{"https://hooks.example.com/x", nil, true},
		{"http://hooks.example.com:8080/x", nil, true}, // public names: any port without a list
		{"http://169.254.169.254/latest/meta-data/", nil, false},
		{"http://10.0.0.5:22/", nil, false},
		{"http://[::1]:8080/", nil, false},
		{"http://0.0.0.0/", nil, false},
		{"http://127.0.0.1:9000/", HostAllowList{"127.0.0.1"}, false}, // port not allowed
		{"http://127.0.0.1:9000/", HostAllowList{"127.0.0.1:9000"}, true},
		{"http://127.0.0.1:9001/", HostAllowList{"127.0.0.1:*"}, true},
		{"http://a.corp.example/", HostAllowList{"*.corp.example"}, true},
	} {
		err := CheckTarget(c.url, c.allow)
		if (err == nil) != c.ok {
			t.Errorf("CheckTarget(%s, %v) = %v, want ok=%v", c.url, c.allow, err, c.ok)
		}
	}
}

// TestNameResolvingToInternalIsRefusedAtConnect: the URL names a host, not
// an address, so the rule passes CheckWebhookURL; the dialer sees the
// resolved address (here loopback, as a rebound name would) and refuses it.
// The tenant reads "refused by policy" only.
func TestNameResolvingToInternalIsRefusedAtConnect(t *testing.T) {
	ctx := context.Background()
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { calls.Add(1) }))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	target := "http://localhost:" + u.Port() + "/hook"
	if err := CheckTarget(target, nil); err != nil {
		t.Fatalf("a host name is checked at connect time, not before: %v", err)
	}
	st := openStore(t)
	d := NewDispatcher(st, Options{Secrets: Secrets{"t1": {"hook": "topsecret"}}})
	enqueue(t, st, d, webhookAlert(target))
	settle(t, d)
	ds, _ := ListDeliveries(ctx, st, "", 0)
	if len(ds) != 1 || ds[0].Status != StatusFailed || ds[0].Error != ErrRefused.Error() {
		t.Fatalf("deliveries %+v", ds)
	}
	if calls.Load() != 0 {
		t.Fatalf("the receiver was reached %d times", calls.Load())
	}
	// An exact allow-list entry lets the operator reach it.
	st2 := openStore(t)
	d = NewDispatcher(st2, Options{AllowHosts: HostAllowList{"localhost:" + u.Port()}, Secrets: Secrets{"t1": {"hook": "topsecret"}}})
	enqueue(t, st2, d, webhookAlert(target))
	settle(t, d)
	if ds, _ := ListDeliveries(ctx, st2, "", 0); len(ds) != 1 || ds[0].Status != StatusDelivered {
		t.Fatalf("allowed local receiver: deliveries %+v", ds)
	}
}

// TestSecretsNeverLeak: a rule names its secret; the signature uses the
// declared value, which is never in the body, the deliveries or the rule as
// the API shows it; an undeclared name fails without saying what exists.
func TestSecretsNeverLeak(t *testing.T) {
	ctx := context.Background()
	const secret = "s3cr3t-value-0123456789"
	var got atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.Store(r.Header.Clone())
	}))
	defer srv.Close()
	st := openStore(t)
	d := NewDispatcher(st, local(Options{}))
	d.opt.Secrets = Secrets{"t1": {"hook": secret}}
	a := webhookAlert(srv.URL)
	enqueue(t, st, d, a)
	missing := webhookAlert(srv.URL)
	missing.Rule.SecretName = "LF_ADMIN_KEY"
	missing.AlertID = "alr_2"
	missing.RuleID, missing.Rule.ID = "r2", "r2" // its own stored rule, with the undeclared secret
	enqueue(t, st, d, missing)
	settle(t, d)
	ds, _ := ListDeliveries(ctx, st, "", 0)
	b, _ := json.Marshal(ds)
	if strings.Contains(string(b), secret) {
		t.Fatalf("deliveries hold the secret: %s", b)
	}
	var failed *Delivery
	for i := range ds {
		if ds[i].AlertID == "alr_2" {
			failed = &ds[i]
		}
	}
	if failed == nil || failed.Status != StatusFailed || strings.Contains(failed.Error, "LF_ADMIN_KEY") || strings.Contains(failed.Error, "environment") {
		t.Fatalf("undeclared secret: %+v", failed)
	}
	h, _ := got.Load().(http.Header)
	for k, v := range h {
		if strings.Contains(strings.Join(v, ","), secret) {
			t.Errorf("header %s carries the secret", k)
		}
	}
	pub, _ := json.Marshal(a.Rule.Public())
	if strings.Contains(string(pub), secret) || !strings.Contains(string(pub), `"hasSecret":true`) {
		t.Errorf("public rule: %s", pub)
	}
}

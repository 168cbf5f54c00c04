package server

import (
	"fmt"
	"net"
	"path/filepath"
	"time"

	"github.com/lfcli/lf/pkg/agentleak"
)

// OTLPConfig is the otlp: section of server.yaml: how POST /v1/traces
// assembles and scans traces.
type OTLPConfig struct {
	// IdleTimeout ends a trace whose root span never arrives: no new span
	// for this long (default 30s).
	IdleTimeout string `json:"idleTimeout,omitempty"`
	// MaxPendingSpans bounds the spans held per tenant, of unfinished
	// traces and of finished ones waiting for their scan; above it the
	// receiver answers 429 (default 100000).
	MaxPendingSpans int `json:"maxPendingSpans,omitempty"`
	// MaxLeaks is how many scanned traces GET /tenants/{id}/leaks keeps per
	// tenant, newest last (default 1000).
	MaxLeaks int `json:"maxLeaks,omitempty"`
	// Scan: false keeps no spans and scans no trace (spans only feed agent
	// risk); default true.
	Scan *bool `json:"scan,omitempty"`
	// Tenants name each tenant's AgentLeak config and vaults (paths relative
	// to server.yaml); a tenant not listed is scanned with every channel
	// and detector on and no vault.
	Tenants []OTLPTenantConfig `json:"tenants,omitempty"`
	// GRPC is the OTLP/gRPC receiver (otlp_grpc.go); off when absent.
	GRPC *OTLPGRPCConfig `json:"grpc,omitempty"`
}

// OTLPGRPCConfig is otlp.grpc: the OTLP/gRPC receiver's own port.
type OTLPGRPCConfig struct {
	// Listen is the address the receiver listens on (host:port, e.g.
	// 127.0.0.1:4317); empty: off.
	Listen string `json:"listen,omitempty"`
}

// OTLPTenantConfig is one tenant's AgentLeak scan of its finished traces.
type OTLPTenantConfig struct {
	Tenant    string   `json:"tenant"`
	AgentLeak string   `json:"agentleak,omitempty"` // agentleak.yaml
	Vaults    []string `json:"vaults,omitempty"`    // vault files, folders or globs
}

// otlpSettings are the resolved otlp: values.
type otlpSettings struct {
	idle       time.Duration
	maxPending int
	maxLeaks   int
	noScan     bool
	scanners   map[string]*tenantScanner
	grpcListen string // otlp.grpc.listen; empty: no OTLP/gRPC receiver
}

// tenantScanner is one tenant's AgentLeak scanner (a Scanner is used by one
// goroutine at a time).
type tenantScanner struct {
	cfg    *agentleak.Config
	vaults *agentleak.Vaults
}

// resolveOTLP reads the otlp: section: durations, bounds, and each
// tenant's AgentLeak config and vaults, relative to dir (server.yaml's
// folder).
func resolveOTLP(c *OTLPConfig, dir string) (*otlpSettings, error) {
	st := &otlpSettings{idle: 30 * time.Second, maxPending: 100000, maxLeaks: 1000, scanners: map[string]*tenantScanner{}}
	if c == nil {
		return st, nil
	}
	if c.IdleTimeout != "" {
		d, err := time.ParseDuration(c.IdleTimeout)
		if err != nil || d <= 0 {
			return nil, fmt.Errorf("otlp.idleTimeout: %q is not a positive duration", c.IdleTimeout)
		}
		st.idle = d
	}
	if c.MaxPendingSpans > 0 {
		st.maxPending = c.MaxPendingSpans
	}
	st.noScan = c.Scan != nil && !*c.Scan
	if c.MaxLeaks > 0 {
		st.maxLeaks = c.MaxLeaks
	}
	if c.GRPC != nil && c.GRPC.Listen != "" {
		if _, _, err := net.SplitHostPort(c.GRPC.Listen); err != nil {
			return nil, fmt.Errorf("otlp.grpc.listen: %q is not host:port (e.g. 127.0.0.1:4317): %v", c.GRPC.Listen, err)
		}
		st.grpcListen = c.GRPC.Listen
	}
	at := func(p string) string {
		if filepath.IsAbs(p) || dir == "" {
			return p
		}
		return filepath.Join(dir, p)
	}
	for i, t := range c.Tenants {
		ts := &tenantScanner{}
		if t.AgentLeak != "" {
			cfg, _, err := agentleak.LoadConfig(at(t.AgentLeak), t.AgentLeak)
			if err != nil {
				return nil, fmt.Errorf("otlp.tenants[%d].agentleak: %w", i, diagText(err))
			}
			ts.cfg = cfg
		}
		if len(t.Vaults) > 0 {
			var args []string
			for _, v := range t.Vaults {
				args = append(args, at(v))
			}
			vs, _, err := agentleak.LoadVaultArgs(args, func(p string) string { return p })
			if err != nil {
				return nil, fmt.Errorf("otlp.tenants[%d].vaults: %w", i, diagText(err))
			}
			ts.vaults = vs
		}
		st.scanners[t.Tenant] = ts
	}
	return st, nil
}

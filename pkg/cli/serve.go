package cli

import (
	"errors"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"syscall"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/eventstream"
	"github.com/lfcli/lf/pkg/server"
)

func serveCommand(env *Env) *ucli.Command {
	return &ucli.Command{
		Name:  "serve",
		Usage: "serve the agent-risk HTTP API (scores, baselines, risk configs, verdicts, alert rules) on the project's store",
		Description: "Reads server.yaml (API keys bound to tenants or admin, alert rules, SMTP, webhook allow-list),\n" +
			"recalculates every agent in the background (recalcInterval, default 5m) and stops gracefully\n" +
			"on SIGINT or SIGTERM: in-flight requests and a running recalculation finish first.\n" +
			"See docs/serve.md for the endpoints; GET /openapi.json describes them.\n\n" +
			"Each tenant key has a role: viewer (read; the default when role: is absent), operator (events,\n" +
			"verdicts, recalculation) or admin (risk config and enforcement, alert rules, release, baseline reset);\n" +
			"admin: true is a global admin. The start-up log says which key (by name) has which role.\n" +
			"Alert rules name signing secrets declared per tenant (secrets:); webhooks never reach internal\n" +
			"addresses unless webhookAllowHosts lists them (host, host:port, host:*). Bodies are JSON, at most\n" +
			"16 levels deep, ids at most 256 bytes; errors are JSON with the field's JSON pointer.",
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "addr", Usage: "listen `ADDRESS` (default: addr in the config, else 127.0.0.1:8080)"},
			&ucli.StringFlag{Name: "config", Aliases: []string{"c"}, Usage: "server config `FILE` (default: server.yaml in the project)"},
			&ucli.StringFlag{Name: "events", Usage: "consume agent events from NATS JetStream at `URL` (nats://HOST:4222; default: events.url in the config); see docs/events.md"},
			&ucli.DurationFlag{Name: "grace", Value: 30 * time.Second, Usage: "how long a shutdown waits for in-flight work"},
		},
		Action: func(c *ucli.Context) error {
			if c.NArg() > 0 {
				return diag.Usagef("serve takes no arguments, got %q", c.Args().First())
			}
			path := c.String("config")
			if path == "" {
				path = filepath.Join(env.ProjectDir(), "server.yaml")
			}
			data, err := os.ReadFile(path)
			if err != nil {
				if errors.Is(err, os.ErrNotExist) && !c.IsSet("config") {
					return diag.Usagef("no server config: create server.yaml in the project (see examples/server/server.yaml) or pass --config FILE")
				}
				return diag.Invalidf("%v", err)
			}
			cfg, diags := server.LoadConfig(env.Rel(path), data, env.Getenv)
			if diags.HasErrors() {
				return diag.Invalid(diags)
			}
			cfg.Dir = filepath.Dir(path) // otlp: paths are relative to server.yaml
			if u := c.String("events"); u != "" {
				if err := eventstream.CheckURL(u); err != nil {
					return diag.Usagef("--events: %v", err)
				}
				cfg.EventOptions.URL = u
			}
			addr := c.String("addr")
			if addr == "" {
				addr = cfg.Addr
			}
			if addr == "" {
				addr = "127.0.0.1:8080"
			}
			// The verdict path allocates a little per request and its p99 is
			// dominated by GC pauses at the default GOGC=100 (1.4-3.9 ms at
			// 5,000 req/s on 2 cores, 1.1-1.5 ms at 400). The heap is small
			// (cached agent states and configs), so trade memory for latency
			// unless the operator set GOGC.
			if env.Getenv("GOGC") == "" {
				debug.SetGCPercent(400)
			}
			ctx, stop := signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM)
			defer stop()
			st, err := env.OpenStore(ctx)
			if err != nil {
				return err
			}
			defer st.Close()
			srv, err := server.New(ctx, cfg, st, env.Stderr)
			if err != nil {
				return diag.Internal(err)
			}
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				srv.Close(ctx)
				return diag.Usagef("cannot listen on %s: %v", addr, err)
			}
			if err := srv.ListenOTLPGRPC(); err != nil { // otlp.grpc.listen
				ln.Close()
				srv.Close(ctx)
				return diag.Usagef("%v", err)
			}
			return diag.Internal(srv.Serve(ctx, ln, c.Duration("grace")))
		},
	}
}

// Package cli builds the lf command line. Each command lives in its own file
// and turns flags into options, calls one library function and reports the
// result; nothing here holds domain logic.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/project"
	"github.com/lfcli/lf/pkg/store"
	ucli "github.com/urfave/cli/v2"
)

// Env is the environment a command runs in: its streams and the global flags.
// Tests build one per invocation so that the whole CLI runs in-process.
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string

	projectFlag string
	storeFlag   string
	appFlag     string
	hintDir     string // where to look for a project when the cwd has none (e.g. a run file's folder)

	unknownCommand bool   // set by the app's CommandNotFound handler
	openedStore    string // the store a command opened, for messages (storeErrors)
}

// ProjectDir returns the absolute project root: --project / LF_PROJECT, else
// the nearest ancestor of the current directory holding lf.yaml, else the
// nearest ancestor of the hint directory holding lf.yaml, else the current
// directory.
func (e *Env) ProjectDir() string {
	if e.projectFlag != "" {
		abs, err := filepath.Abs(e.projectFlag)
		if err != nil {
			return e.projectFlag
		}
		return abs
	}
	cwd, _ := os.Getwd()
	if root, ok := project.FindRoot(cwd); ok {
		return root
	}
	if e.hintDir != "" {
		if root, ok := project.FindRoot(e.hintDir); ok {
			return root
		}
	}
	return cwd
}

// SetHint names a folder to search for lf.yaml when the current directory
// has no project above it (used by commands that take a file in a project).
func (e *Env) SetHint(dir string) { e.hintDir = dir }

// StoreURL returns --store / LF_STORE, else .lf/lf.db inside the project.
func (e *Env) StoreURL() string {
	if e.storeFlag != "" {
		return e.storeFlag
	}
	return filepath.Join(e.ProjectDir(), project.StoreRel)
}

// inProject tells whether lf runs for a project: --project / LF_PROJECT,
// or an lf.yaml above the current directory or the hint directory.
func (e *Env) inProject() bool {
	if e.projectFlag != "" {
		return true
	}
	cwd, _ := os.Getwd()
	if _, ok := project.FindRoot(cwd); ok {
		return true
	}
	if e.hintDir != "" {
		if _, ok := project.FindRoot(e.hintDir); ok {
			return true
		}
	}
	return false
}

// App returns the app key a command reads and writes in st (see `lf apps`):
// --app / LF_APP; inside a project, lf.yaml's app: or else the project
// folder's name; outside one, the store's only app, or the current folder's
// name when the store holds none. Outside a project, a store of several
// apps needs --app.
func (e *Env) App(ctx context.Context, st *store.Store) (string, error) {
	if e.appFlag != "" {
		if err := project.CheckApp(e.appFlag); err != nil {
			return "", diag.Usagef("--app / LF_APP: %v", err)
		}
		return e.appFlag, nil
	}
	if e.inProject() {
		return project.App(e.ProjectDir())
	}
	infos, err := st.Apps(ctx)
	if err != nil {
		return "", diag.Internal(err)
	}
	var apps []string
	for _, a := range infos {
		if a.App != store.NoApp {
			apps = append(apps, a.App)
		}
	}
	switch len(apps) {
	case 0:
		return project.App(e.ProjectDir())
	case 1:
		return apps[0], nil
	}
	return "", diag.Usagef("no lf.yaml here and the store %s holds %d apps (%s): pass --app or set LF_APP, or run inside a project", st.Location(), len(apps), strings.Join(apps, ", "))
}

// OpenStore opens the store for the app (App), creating it if needed; the
// caller closes it. Commands that write use it.
func (e *Env) OpenStore(ctx context.Context) (*store.Store, error) {
	if err := e.checkProject(); err != nil {
		return nil, err
	}
	s, err := store.Open(ctx, e.StoreURL())
	if err != nil {
		return nil, storeError(err)
	}
	e.openedStore = e.storeShown(s)
	return e.useApp(ctx, s)
}

// OpenExistingStore opens the store for the app (App) for a command that
// only reads: it never creates one, and a store or an app that does not
// exist is a usage error (exists.go), never an empty view.
func (e *Env) OpenExistingStore(ctx context.Context) (*store.Store, error) {
	s, err := e.openForReading(ctx)
	if err != nil {
		return nil, err
	}
	scoped, err := e.useApp(ctx, s)
	if err != nil {
		return nil, err
	}
	if err := e.requireApp(ctx, scoped, scoped.App()); err != nil {
		scoped.Close()
		return nil, err
	}
	return scoped, nil
}

// OpenExistingAllApps opens the existing store with no app (store.NoApp)
// for a command that reads every app (`lf apps`) or data no app owns
// (agents, alerts, risk configs); it never creates a store.
func (e *Env) OpenExistingAllApps(ctx context.Context) (*store.Store, error) {
	return e.openForReading(ctx)
}

// useApp scopes s to the app, closing s on failure.
func (e *Env) useApp(ctx context.Context, s *store.Store) (*store.Store, error) {
	app, err := e.App(ctx, s)
	if err != nil {
		s.Close()
		return nil, err
	}
	scoped, err := s.UseApp(ctx, app)
	if err != nil {
		s.Close()
		return nil, storeError(err)
	}
	return scoped, nil
}

// checkProject refuses a --project / LF_PROJECT folder that does not exist.
func (e *Env) checkProject() error {
	if e.projectFlag == "" {
		return nil
	}
	fi, err := os.Stat(e.projectFlag)
	if err != nil {
		return diag.Usagef("project folder %s does not exist (--project names a folder holding lf.yaml)", e.projectFlag)
	}
	if !fi.IsDir() {
		return diag.Usagef("project %s is not a folder (--project names a folder holding lf.yaml)", e.projectFlag)
	}
	return nil
}

// storeError maps a store opening error to its exit code: a malformed or
// unavailable store URL is a usage error, anything else internal.
func storeError(err error) error {
	if errors.Is(err, store.ErrUsage) || errors.Is(err, store.ErrNotAvailable) {
		return diag.Usagef("%v", err)
	}
	return diag.Internal(err)
}

// Rel makes path relative to the project for messages.
func (e *Env) Rel(path string) string { return diag.Rel(e.ProjectDir(), path) }

// KindHandler lets a domain plug an extra kind (e.g. risk-config) into the
// generic `lf set KIND -f` and `lf export KIND` commands; storeKinds
// (filetypes.go) lists them.
type KindHandler struct {
	Names  []string // accepted spellings, singular and plural
	Set    func(ctx context.Context, env *Env, path string) error
	Export func(ctx context.Context, env *Env, w io.Writer) error
}

func lookupKind(name string) (KindHandler, bool) {
	for _, h := range storeKinds() {
		for _, n := range h.Names {
			if n == name {
				return h, true
			}
		}
	}
	return KindHandler{}, false
}

func extraKindNames() []string {
	var out []string
	for _, h := range storeKinds() {
		out = append(out, h.Names...)
	}
	sort.Strings(out)
	return out
}

const exitCodesHelp = `EXIT CODES:
   0  success
   1  a gate tripped (--fail-on, a blocked trace, ...)
   2  usage error (unknown command, flag or argument; a store or app that does not exist)
   3  invalid input (YAML, JSON, events, config; a filter matching nothing): located messages on stderr
   4  internal, store or I/O error (a file or folder that cannot be read or written)`

// NewApp builds the lf application bound to env.
func NewApp(env *Env) *ucli.App {
	app := &ucli.App{
		Name:                 "lf",
		Usage:                "AI risk evaluation from YAML in git: risk scorers, AgentLeak scans, per-agent risk",
		Description:          "lf keeps risk scoring methodologies, risk scorers and evaluation runs in a local store\n(SQLite by default) and turns evaluation results into risk levels.\n\n" + exitCodesHelp,
		Reader:               env.Stdin,
		Writer:               env.Stdout,
		ErrWriter:            env.Stderr,
		EnableBashCompletion: true,
		Version:              version(),
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "project", Usage: "project `DIR` (default: nearest ancestor holding lf.yaml, else the current directory)", EnvVars: []string{"LF_PROJECT"}, Destination: &env.projectFlag},
			&ucli.StringFlag{Name: "store", Usage: "store `URL`: a SQLite file path, sqlite:PATH or postgres://USER:PASSWORD@HOST:PORT/DB (default: .lf/lf.db in the project)", EnvVars: []string{"LF_STORE"}, Destination: &env.storeFlag},
			&ucli.StringFlag{Name: "app", Usage: "the AI `APP` whose entities, runs and scores to use in the store (default: app: in lf.yaml, else the project folder's name); see 'lf apps'", EnvVars: []string{"LF_APP"}, Destination: &env.appFlag},
		},
		ExitErrHandler: func(*ucli.Context, error) {}, // exit codes are ours; see Run
		OnUsageError: func(_ *ucli.Context, err error, _ bool) error {
			return diag.Usagef("%v", err)
		},
		CommandNotFound: func(c *ucli.Context, name string) {
			fmt.Fprintf(env.Stderr, "lf: unknown command %q; see 'lf --help'\n", name)
			env.unknownCommand = true
		},
	}
	for _, fn := range topCommands {
		app.Commands = append(app.Commands, fn(env))
	}
	sort.Slice(app.Commands, func(i, j int) bool { return app.Commands[i].Name < app.Commands[j].Name })
	for _, c := range app.Commands {
		setUsageErrors(c)
	}
	return app
}

func setUsageErrors(c *ucli.Command) {
	c.OnUsageError = func(_ *ucli.Context, err error, _ bool) error { return diag.Usagef("%v", err) }
	refuseExtraArgs(c)
	for _, s := range c.Subcommands {
		setUsageErrors(s)
	}
}

// Run runs lf with args (args[0] is the program name) and returns the exit code.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	env := &Env{Stdin: stdin, Stdout: stdout, Stderr: stderr, Getenv: os.Getenv}
	return RunEnv(env, args)
}

// RunEnv runs lf in env and returns the exit code, printing any error.
func RunEnv(env *Env, args []string) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(env.Stderr, "lf: internal error: %v\n", r)
			code = diag.ExitInternal
		}
	}()
	app := NewApp(env)
	err := app.Run(interspersed(app, args))
	if err == nil {
		if env.unknownCommand {
			return diag.ExitUsage
		}
		return diag.ExitOK
	}
	return reportError(env.Stderr, env.locateStoreError(err))
}

func reportError(w io.Writer, err error) int {
	var de *diag.Error
	if errors.As(err, &de) {
		if len(de.Diags) > 0 {
			for _, d := range de.Diags {
				fmt.Fprintln(w, d.String())
			}
			n := len(de.Diags.Errors())
			fmt.Fprintf(w, "%d problem%s found\n", n, plural(n))
		}
		if de.Err != nil {
			fmt.Fprintf(w, "lf: %v\n", de.Err)
		}
		return de.Code
	}
	msg := err.Error()
	// urfave/cli reports unknown flags and missing arguments as plain errors.
	if strings.Contains(msg, "flag provided but not defined") || strings.Contains(msg, "Required flag") || strings.Contains(msg, "flag needs an argument") || strings.Contains(msg, "invalid value") {
		fmt.Fprintf(w, "lf: %v\n", err)
		return diag.ExitUsage
	}
	fmt.Fprintf(w, "lf: %v\n", err)
	return diag.ExitInternal
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// overviewSubcommands builds the overviewCommands (filetypes.go) for env.
func overviewSubcommands(env *Env) []*ucli.Command {
	var out []*ucli.Command
	for _, fn := range overviewCommands {
		out = append(out, fn(env))
	}
	return out
}

package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/project"
	"github.com/lfcli/lf/pkg/store"
)

// A command that only reads never creates a store, and never answers from
// one that is not there: a store or an app that does not exist is an error
// (exit 2) saying what to do, never an empty view, so that a gate never
// passes on a mistyped --store, LF_STORE or --app, or on a copied project
// reading an app of its new folder's name.

// openForReading opens the existing store, unscoped (store.NoApp), for a
// command that only reads; it never creates the store or its folder.
func (e *Env) openForReading(ctx context.Context) (*store.Store, error) {
	if err := e.checkProject(); err != nil {
		return nil, err
	}
	s, err := store.OpenExisting(ctx, e.StoreURL())
	if errors.Is(err, store.ErrNotExist) {
		return nil, e.noStore()
	}
	if err != nil {
		return nil, storeError(err)
	}
	e.openedStore = e.storeShown(s)
	return s, nil
}

// storeShown is the store's location for messages and captions: a file
// relative to the project, a PostgreSQL URL without its password.
func (e *Env) storeShown(st *store.Store) string {
	if st != nil {
		loc := st.Location()
		if filepath.IsAbs(loc) {
			return e.Rel(loc)
		}
		return loc
	}
	url := e.StoreURL()
	if l, err := store.ParseURL(url); err == nil && l.Engine == store.EngineSQLite {
		return e.Rel(l.Path)
	}
	return "the store"
}

// noStore is the error of a reading command without a store.
func (e *Env) noStore() error {
	where := e.storeShown(nil)
	if e.storeFlag != "" {
		return diag.Usagef("no store at %s: --store / LF_STORE names a store that does not exist (check the path; a command that writes, such as lf add, creates it)", where)
	}
	return diag.Usagef("no store at %s: nothing was written for this project yet; lf add -f FILE or lf run -f run.yaml creates it (or name another with --store / LF_STORE)", where)
}

// requireApp fails when app holds nothing in st (an app exists once an
// entity or a run was written for it), naming the apps st holds and where
// the app name came from.
func (e *Env) requireApp(ctx context.Context, st *store.Store, app string) error {
	if ok, err := st.HasApp(ctx, app); err == nil && ok {
		return nil
	}
	// Missing (or the check failed): list what the store holds to say so.
	infos, err := st.Apps(ctx)
	if err != nil {
		return diag.Internal(err)
	}
	var others []string
	for _, a := range infos {
		if a.App == app {
			return nil
		}
		if a.App != store.NoApp {
			others = append(others, a.App)
		}
	}
	held := "it holds no app yet"
	if len(others) > 0 {
		held = "it holds " + strings.Join(others, ", ")
	}
	return diag.Usagef("app %q does not exist in store %s (%s): %s", app, e.storeShown(st), held, e.appHint(others))
}

// appHint says where the app name came from and what to do about it.
func (e *Env) appHint(others []string) string {
	name := "APP"
	if len(others) == 1 {
		name = others[0]
	}
	switch {
	case e.appFlag != "":
		return fmt.Sprintf("--app / LF_APP names it; pass --app %s to read an app the store holds, or write to this one first (lf add -f FILE)", name)
	case e.inProject():
		root := e.ProjectDir()
		if hasAppKey(root) {
			return fmt.Sprintf("it is app: in %s; write to it first (lf add -f FILE or lf run -f run.yaml), or read another with --app %s", e.Rel(filepath.Join(root, project.MarkerFile)), name)
		}
		return fmt.Sprintf("%s has no app:, so the app is the project folder's name; if this project was copied or renamed, set app: %s in it (lf init writes app:), or pass --app %s", e.Rel(filepath.Join(root, project.MarkerFile)), name, name)
	}
	return fmt.Sprintf("no lf.yaml here, so the app is the current folder's name; pass --app %s, or run inside the project", name)
}

// hasAppKey tells whether the lf.yaml of root sets app:.
func hasAppKey(root string) bool {
	b, err := os.ReadFile(filepath.Join(root, project.MarkerFile))
	if err != nil {
		return false
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(strings.TrimPrefix(l, "\ufeff"), "app:") {
			return true
		}
	}
	return false
}

// shows is the caption of a table or report: which app of which store it
// shows.
func (e *Env) shows(st *store.Store) string {
	return fmt.Sprintf("app %s, store %s", st.App(), e.storeShown(st))
}

// locateStoreError names the store in an error the store reported without
// its location ("store: ..."), and says what a read-only store needs.
func (e *Env) locateStoreError(err error) error {
	var de *diag.Error
	if !errors.As(err, &de) || de.Err == nil {
		if err == nil || de != nil {
			return err
		}
		de = &diag.Error{Code: diag.ExitCode(err), Err: err}
	}
	msg := de.Err.Error()
	changed := false
	if rest, ok := strings.CutPrefix(msg, "store: "); ok && e.openedStore != "" {
		msg, changed = "store "+e.openedStore+": "+rest, true
	}
	if strings.Contains(msg, "readonly database") || strings.Contains(msg, "read-only database") {
		where := e.openedStore
		if where == "" {
			where = "the store"
		}
		if !strings.Contains(msg, where) {
			msg = "store " + where + ": " + msg
		}
		msg += " (the store file or its folder is read-only: lf writes the file and its -wal and -shm files beside it; give it write access, or name a writable copy with --store)"
		changed = true
	}
	if !changed {
		return err
	}
	return &diag.Error{Code: de.Code, Err: errors.New(msg), Diags: de.Diags}
}

// Package runfile describes `lf run` files: the entity files to upsert and the
// evaluations to run before the risk-scorer overview is shown. Evaluations
// (AgentLeak, agent risk, ...) register themselves here by the name they take
// in a run file's `evaluations:` list.
package runfile

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/lfcli/lf/pkg/store"
)

// Env is what an evaluation gets from `lf run`.
type Env struct {
	ProjectDir string       // absolute project root
	BaseDir    string       // absolute folder of the run file; spec paths are relative to it
	RunFile    string       // run file path relative to the project, for diagnostics
	Pointer    string       // JSON pointer of this evaluation's spec in the run file
	Store      *store.Store // the open store
	Now        time.Time    // the time lf run started
}

// Report is what an evaluation tells `lf run` to show.
type Report struct {
	Title   string   // e.g. "agentleak privacy_agentleak: 10 traces"
	Lines   []string // short summary lines, printed under the title
	Blocked bool     // the evaluation's own gate tripped (printed, not an error)
}

// Evaluation runs one evaluation of a run file from its spec (the JSON form of
// the YAML mapping under the evaluation's name) and records its results in the
// store as evaluation runs. Invalid specs or inputs return a diag error.
type Evaluation func(ctx context.Context, env Env, spec json.RawMessage) (Report, error)

var (
	mu          sync.RWMutex
	evaluations = map[string]Evaluation{}
)

// Register makes an evaluation available under name in run files. It panics
// on a duplicate name, which is a programming error.
func Register(name string, fn Evaluation) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := evaluations[name]; dup {
		panic(fmt.Sprintf("runfile: evaluation %q registered twice", name))
	}
	evaluations[name] = fn
}

// Lookup returns the evaluation registered under name.
func Lookup(name string) (Evaluation, bool) {
	mu.RLock()
	defer mu.RUnlock()
	fn, ok := evaluations[name]
	return fn, ok
}

// Names lists the registered evaluation names, sorted.
func Names() []string {
	mu.RLock()
	defer mu.RUnlock()
	out := make([]string, 0, len(evaluations))
	for n := range evaluations {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

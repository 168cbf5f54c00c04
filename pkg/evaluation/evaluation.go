// Package evaluation is the shape every evaluation of lf shares (AgentLeak
// scan, agent risk, and the importers to come): one library value whose Run
// is called by its CLI command, by `lf run` and, where it applies, by the
// server. Evaluations never print; they return a Report that a face writes.
package evaluation

import (
	"context"
	"encoding/json"
	"time"

	"github.com/lfcli/lf/pkg/store"
)

// Env is where an evaluation runs: the project, the file that asked for it
// and the time the run started.
type Env struct {
	ProjectDir string    // absolute project root
	BaseDir    string    // absolute folder that relative paths of the spec start from
	RunFile    string    // the asking file relative to the project, for diagnostics
	Pointer    string    // JSON pointer of the evaluation's spec in RunFile
	Now        time.Time // the time the run started
}

// Report is what an evaluation tells its caller: a title and a few summary
// lines for people, whether its own gate trips, and a machine-readable
// document with everything (for -o json).
type Report struct {
	Name    string   `json:"evaluation"`        // the evaluation's name in run files
	Title   string   `json:"title"`             // e.g. "agentleak demo: 10 traces scanned"
	Lines   []string `json:"lines,omitempty"`   // short summary lines, printed under the title
	Gate    bool     `json:"gate"`              // the spec turned the evaluation's gate on
	Failed  bool     `json:"failed"`            // the evaluation's gate condition holds (blocked traces, no input)
	Reason  string   `json:"reason,omitempty"`  // why Failed, in one line
	Skipped bool     `json:"skipped,omitempty"` // inputs unchanged since the recorded run; nothing was redone
	RunID   string   `json:"run_id,omitempty"`  // the evaluation run recorded (or kept, when Skipped)
	Data    any      `json:"data,omitempty"`    // the evaluation's own details
}

// GateFails reports whether the report fails its caller: the gate is on and
// its condition holds.
func (r Report) GateFails() bool { return r.Gate && r.Failed }

// Evaluation is one evaluation as a run file names it. Run decodes its spec
// (the JSON form of the YAML mapping under its name), runs it against st and
// records the result as evaluation runs. Bad specs or inputs return a diag
// error, located in env.RunFile at env.Pointer.
type Evaluation struct {
	Name string
	Run  func(ctx context.Context, env Env, spec json.RawMessage, st *store.Store) (Report, error)
}

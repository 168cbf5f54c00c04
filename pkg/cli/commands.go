package cli

import (
	"runtime/debug"

	ucli "github.com/urfave/cli/v2"
)

// topCommands lists every top-level lf command in one place (issue 8.5).
// File kinds (set/export) and evaluations plug in through their own tables.
var topCommands = []func(*Env) *ucli.Command{
	addCommand,
	agentleakCommand,
	agentsCommand,
	appsCommand,
	alertsCommand,
	deleteCommand,
	explainCommand,
	exportCommand,
	gcCommand,
	historyCommand,
	importCommand,
	initCommand,
	listCommand,
	overviewCommand,
	reportCommand,
	runCommand,
	schemaCommand,
	serveCommand,
	setCommand,
	storeCommand,
	validateCommand,
}

// version is the module version lf was built from ("(devel)" in a checkout),
// with the VCS revision when the build recorded one.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := bi.Main.Version
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			v += " " + s.Value[:12]
		}
	}
	return v
}

package cli

import (
	ucli "github.com/urfave/cli/v2"

	"github.com/lfcli/lf/pkg/agentleak"
	"github.com/lfcli/lf/pkg/agentrisk"
	"github.com/lfcli/lf/pkg/alerts"
	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/kind"
	"github.com/lfcli/lf/pkg/project"
	"github.com/lfcli/lf/pkg/runfile"
	"github.com/lfcli/lf/pkg/server"
)

// fileKinds lists, in one place, every file kind beyond the entity files
// (methodologies, scorers, runs: pkg/project checks those itself), each
// declared once as a kind.Kind in the package that owns its Go type. `lf
// validate` runs each file through its kind's pipeline, the one the command
// that reads the file runs, so that what validate accepts the command
// accepts. TestEveryFileTypeHasAKind keeps this list and project's file
// types together.
var fileKinds = []kind.File{
	project.Marker.File(struct{}{}),
	runfile.File.File(struct{}{}),
	agentleak.ConfigFile.File(struct{}{}),
	{Name: agentleak.VaultsFile.Name, Check: func(file string, data []byte) diag.List {
		// The fast path for common vault files first, as scans read them.
		_, ds := agentleak.ParseVaults(file, data)
		return ds
	}},
	agentrisk.ConfigFile.File(struct{}{}),
	agentrisk.CasesFile.File(struct{}{}),
	alerts.RulesFile.File(alerts.RuleCheck{}),
	server.ConfigFile.File(ValidateEnv),
}

// FileCheckers is fileKinds as the map project.ValidateWith takes.
func FileCheckers() map[string]project.Checker {
	m := make(map[string]project.Checker, len(fileKinds))
	for _, k := range fileKinds {
		m[k.Name] = k.Check
	}
	return m
}

// storeKinds lists the kinds beyond the entity kinds that `lf set KIND -f`
// and `lf export KIND` handle. A function, not a var: the handlers reach
// the list again through `lf export all`.
func storeKinds() []KindHandler {
	return []KindHandler{
		{Names: []string{"alert-rules", "alert-rule"}, Set: setAlertRules, Export: exportAlertRules},
		{Names: []string{"risk-config", "risk-configs"}, Set: setRiskConfigs, Export: exportRiskConfigs},
	}
}

// overviewCommands lists the domain subcommands of `lf overview` beyond the
// entity overviews.
var overviewCommands = []func(*Env) *ucli.Command{
	overviewAgentsCommand,
	overviewDomainsCommand,
}

// ValidateEnv stands in for the environment when a server config is
// validated (server.LoadConfig with every variable it names taken as set:
// the file is valid when serve accepts it in an environment that provides
// its keys): each variable has a distinct value long enough for a key.
func ValidateEnv(name string) string { return "lf-validate-placeholder-" + name }

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
// (methodologies, scorers, runs: pkg/project reads those as a batch). Each
// is declared once, as a kind.Kind in the package that owns its Go type:
// its name, description, the keys (or file name) that tell its files apart,
// its schema and checks; this list is what every project command derives
// from. `lf validate` runs each file through its kind's pipeline, the one
// the command that reads the file runs, so what validate accepts the
// command accepts; `lf add`, `lf run` name the kind of a file given where
// entity files are expected. Order matters: a file with the keys of two
// kinds is of the first. TestEveryFileKindListed fails on a kind declared
// with identifying keys but missing here.
var fileKinds = []kind.File{
	project.Marker.File(struct{}{}),
	runfile.File.File(struct{}{}),
	vaultsKind(),
	agentleak.ConfigFile.File(struct{}{}),
	agentrisk.ConfigFile.File(struct{}{}),
	alerts.RulesFile.File(alerts.RuleCheck{}),
	server.ConfigFile.File(ValidateEnv),
	agentrisk.CasesFile.File(struct{}{}),
}

// vaultsKind is the vaults kind with the fast path for common vault files
// first, as scans read them.
func vaultsKind() kind.File {
	k := agentleak.VaultsFile.File(struct{}{})
	k.Check = func(file string, data []byte) diag.List {
		_, ds := agentleak.ParseVaults(file, data)
		return ds
	}
	return k
}

// FileKinds returns fileKinds, for project.ValidateOptions.
func FileKinds() []kind.File { return fileKinds }

// storeKinds lists the kinds beyond the entity kinds that `lf set KIND -f`
// and `lf export KIND` handle. A function, not a var: the handlers reach
// the list again through `lf export all`.
func storeKinds() []KindHandler {
	return []KindHandler{
		{Names: []string{alerts.RulesFile.Name, "alert-rule"}, Set: setAlertRules, Export: exportAlertRules},
		{Names: []string{agentrisk.ConfigFile.Name, "risk-configs"}, Set: setRiskConfigs, Export: exportRiskConfigs},
	}
}

// overviewCommands lists the domain subcommands of `lf overview` beyond the
// entity overviews.
var overviewCommands = []func(*Env) *ucli.Command{
	overviewAgentsCommand,
	overviewDomainsCommand,
	overviewComplianceCommand,
}

// ValidateEnv stands in for the environment when a server config is
// validated (server.LoadConfig with every variable it names taken as set:
// the file is valid when serve accepts it in an environment that provides
// its keys): each variable has a distinct value long enough for a key.
func ValidateEnv(name string) string { return "lf-validate-placeholder-" + name }

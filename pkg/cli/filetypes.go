package cli

import (
	ucli "github.com/urfave/cli/v2"

	"github.com/lfcli/lf/pkg/agentleak"
	"github.com/lfcli/lf/pkg/agentrisk"
	"github.com/lfcli/lf/pkg/alerts"
	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/project"
	"github.com/lfcli/lf/pkg/server"
)

// fileKinds lists, in one place, every file kind whose whole-file check is
// its domain's parser (the way the command that reads the file does it):
// `lf validate` runs these instead of the bare schema check. Entity files
// (methodologies, scorers, runs) are checked by pkg/project itself.
// A new file kind: a schema in schemas/, a FileType in pkg/project/kinds.go,
// and a line here.
var fileKinds = []struct {
	Name  string // project.FileType.Name
	Check project.Checker
}{
	{"agentleak-config", func(file string, data []byte) diag.List {
		_, ds, _ := agentleak.ParseConfig(file, data)
		return ds
	}},
	{"vaults", func(file string, data []byte) diag.List {
		_, ds := agentleak.ParseVaults(file, data)
		return ds
	}},
	{"risk-config", func(file string, data []byte) diag.List {
		_, ds := agentrisk.ParseRiskConfigFile(file, data)
		return ds
	}},
	{"agent-risk-cases", func(file string, data []byte) diag.List {
		_, ds := agentrisk.ParseDecideCases(file, data)
		return ds
	}},
	{"alert-rules", func(file string, data []byte) diag.List {
		_, ds := alerts.ParseRulesFile(file, data, nil)
		return ds
	}},
	{"server-config", CheckServerConfig},
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
}

// CheckServerConfig checks a server config the way `lf serve -c` reads it
// (server.LoadConfig), with every environment variable it names taken as
// set: the file is valid when serve accepts it in an environment that
// provides its keys.
func CheckServerConfig(file string, data []byte) diag.List {
	_, ds := server.LoadConfig(file, data, ValidateEnv)
	return ds
}

// ValidateEnv stands in for the environment when a server config is
// validated: each variable has a distinct value long enough for a key.
func ValidateEnv(name string) string { return "lf-validate-placeholder-" + name }

package cli

import (
	"github.com/lfcli/lf/pkg/agentrisk"
	"github.com/lfcli/lf/pkg/alerts"
	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/project"
	"github.com/lfcli/lf/pkg/server"
)

// lf validate checks every file of a project the way the command that reads
// it does. The agentleak package registers its own file types; the agent
// risk and alert file types are wired here.
func init() {
	project.RegisterChecker("risk-config", func(file string, data []byte) diag.List {
		_, ds := agentrisk.ParseRiskConfigFile(file, data)
		return ds
	})
	project.RegisterChecker("agent-risk-cases", func(file string, data []byte) diag.List {
		_, ds := agentrisk.ParseDecideCases(file, data)
		return ds
	})
	project.RegisterChecker("alert-rules", func(file string, data []byte) diag.List {
		_, ds := alerts.ParseRulesFile(file, data, nil)
		return ds
	})
	project.RegisterChecker("server-config", CheckServerConfig)
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

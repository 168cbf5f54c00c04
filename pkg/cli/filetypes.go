package cli

import (
	"github.com/lfcli/lf/pkg/agentrisk"
	"github.com/lfcli/lf/pkg/alerts"
	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/project"
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
}

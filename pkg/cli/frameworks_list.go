package cli

import (
	"context"
	"fmt"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/output"
	"github.com/lfcli/lf/pkg/project"
	"github.com/lfcli/lf/pkg/store"
)

// listFrameworks is `lf list frameworks`: one row per stored framework.
func listFrameworks(ctx context.Context, env *Env, st *store.Store, format string) error {
	fws, err := project.StoredFrameworks(ctx, st)
	if err != nil {
		return diag.Internal(err)
	}
	if format == "json" {
		return output.JSON(env.Stdout, fws)
	}
	table := [][]string{}
	for _, f := range fws {
		table = append(table, []string{f.Key, f.Name, fmt.Sprint(len(f.Requirements)), f.Source})
	}
	return output.Table(env.Stdout, []string{"KEY", "NAME", "REQUIREMENTS", "SOURCE"}, table)
}

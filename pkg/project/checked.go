package project

import (
	"context"
	"io"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/kind"
	"github.com/lfcli/lf/pkg/store"
)

// LoadChecked loads the entity files at paths (relative to root; "-" reads
// stdin) and checks them, against the methodologies already in st too. It
// returns the batch and its warnings, or a diag.Invalid error with every
// problem found. `lf add`, `lf set` and `lf run` share it. kinds are the
// other file kinds, to tell a file of one of them named by mistake.
func LoadChecked(ctx context.Context, root string, paths []string, stdin io.Reader, st *store.Store, kinds []kind.File) (*Batch, diag.List, error) {
	b, diags, err := LoadEntities(root, paths, stdin, kinds)
	if err != nil {
		return nil, nil, err
	}
	if b != nil {
		stored, err := st.Methodologies(ctx)
		if err != nil {
			return nil, nil, diag.Internal(err)
		}
		diags = append(diags, b.Check(stored)...)
		diags = append(diags, b.CheckAIAppKeys(st.App())...)
	}
	if diags.HasErrors() {
		return nil, nil, diag.Invalid(diags)
	}
	return b, diags.Warnings(), nil
}

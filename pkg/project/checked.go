package project

import (
	"context"
	"io"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/store"
)

// LoadChecked loads the entity files at paths (relative to root; "-" reads
// stdin) and checks them, against the methodologies already in st too. It
// returns the batch and its warnings, or a diag.Invalid error with every
// problem found. `lf add`, `lf set` and `lf run` share it.
func LoadChecked(ctx context.Context, root string, paths []string, stdin io.Reader, st *store.Store) (*Batch, diag.List, error) {
	b, diags, err := LoadEntities(root, paths, stdin)
	if err != nil {
		return nil, nil, err
	}
	if b != nil {
		stored, err := st.Methodologies(ctx)
		if err != nil {
			return nil, nil, diag.Internal(err)
		}
		diags = append(diags, b.Check(stored)...)
	}
	if diags.HasErrors() {
		return nil, nil, diag.Invalid(diags)
	}
	return b, diags.Warnings(), nil
}

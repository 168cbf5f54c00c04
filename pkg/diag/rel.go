package diag

import "path/filepath"

// Rel returns path relative to the project root when it lies inside it, and
// path unchanged otherwise. Diagnostics use it so messages stay short.
func Rel(root, path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	r, err := filepath.Rel(root, abs)
	if err != nil || r == ".." || (len(r) > 2 && r[:3] == "../") {
		return path
	}
	return filepath.ToSlash(r)
}

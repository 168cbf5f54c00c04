package cli

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/lfcli/lf/pkg/diag"
)

// Files a command writes (--out, lf init) fail with one exit code, 4 (I/O,
// as store errors), whatever the cause: a folder where the file should be,
// a folder that does not exist or cannot be written.

// checkOut refuses, before any work, an output path that cannot be a file:
// a folder, or a file in a folder that does not exist. "-" (standard
// output) is always fine.
func checkOut(path string) error {
	if path == "" || path == "-" {
		return nil
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return diag.IOf("cannot write %s: it is a folder; name the file to write", path)
	}
	dir := filepath.Dir(path)
	fi, err := os.Stat(dir)
	switch {
	case err != nil:
		return diag.IOf("cannot write %s: folder %s: %v", path, dir, pathErr(err))
	case !fi.IsDir():
		return diag.IOf("cannot write %s: %s is not a folder", path, dir)
	}
	return nil
}

// writeFileAtomic writes through a temporary file beside path and a
// rename, so a crash never leaves half a file and a reader never sees one.
func writeFileAtomic(path string, data []byte) error {
	if err := checkOut(path); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".lf-*.tmp")
	if err != nil {
		return diag.IOf("cannot write %s: %v", path, pathErr(err))
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return diag.IOf("cannot write %s: %v", path, pathErr(err))
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		os.Remove(tmp.Name())
		return diag.IOf("cannot write %s: %v", path, pathErr(err))
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return diag.IOf("cannot write %s: %v", path, pathErr(err))
	}
	return nil
}

// pathErr drops the operation and the (temporary) path of an fs error:
// messages name the user's path, not lf's temporary file.
func pathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

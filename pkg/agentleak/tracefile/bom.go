package tracefile

import "io"

// skipBOM drops a UTF-8 byte-order mark at the start of r, as every lf
// reader does (YAML, events, imported results): editors on Windows write
// one, and it is not part of the JSON.
func skipBOM(r io.Reader) io.Reader { return &bomSkipper{r: r} }

type bomSkipper struct {
	r    io.Reader
	done bool
}

func (b *bomSkipper) Read(p []byte) (int, error) {
	if b.done {
		return b.r.Read(p)
	}
	b.done = true
	n, err := io.ReadAtLeast(b.r, p, min(3, len(p)))
	if err == io.ErrUnexpectedEOF {
		err = nil
	}
	if n >= 3 && p[0] == 0xef && p[1] == 0xbb && p[2] == 0xbf {
		n = copy(p, p[3:n])
	}
	if n == 0 && err == nil {
		return b.r.Read(p)
	}
	return n, err
}

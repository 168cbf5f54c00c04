//go:build !(amd64 || arm64)

package detect

// loadString64 is load64 for a caller that checked i+8 <= len(s).
func loadString64(s string, i int) uint64 { return load64(s, i) }

// loadString8 is s[i] for a caller that checked i < len(s).
func loadString8(s string, i int) byte { return s[i] }

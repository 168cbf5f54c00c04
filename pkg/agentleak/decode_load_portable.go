//go:build !(amd64 || arm64)

package agentleak

import "encoding/binary"

// loadBytes64 is binary.LittleEndian.Uint64(b[i:]) for a caller that checked
// i+8 <= len(b).
func loadBytes64(b []byte, i int) uint64 {
	return binary.LittleEndian.Uint64(b[i:])
}

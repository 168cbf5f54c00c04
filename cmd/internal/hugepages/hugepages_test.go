//go:build linux

package hugepages

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// TestHeapMarkedHuge: after start-up the heap's mapping carries the
// kernel's huge-page advice flag ("hg" in /proc/self/smaps VmFlags).
func TestHeapMarkedHuge(t *testing.T) {
	if !applied {
		t.Skip("madvise(MADV_HUGEPAGE) was refused here (no transparent huge page support)")
	}
	obj := make([]byte, 1<<20) // a large object: straight from the heap's pages
	addr := uint64(uintptr(unsafe.Pointer(unsafe.SliceData(obj))))
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skip("no /proc/self/smaps:", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	inside := false
	for sc.Scan() {
		line := sc.Text()
		if lo, hi, ok := vmaRange(line); ok {
			inside = lo <= addr && addr < hi
			continue
		}
		if inside && strings.HasPrefix(line, "VmFlags:") {
			if !strings.Contains(" "+line[len("VmFlags:"):]+" ", " hg ") {
				t.Fatalf("the heap mapping holding %#x lacks the huge-page flag: %s", addr, line)
			}
			return
		}
	}
	t.Fatalf("no mapping holds the heap object at %#x", addr)
}

func vmaRange(line string) (lo, hi uint64, ok bool) {
	f := strings.Fields(line)
	if len(f) < 5 {
		return 0, 0, false
	}
	a, b, found := strings.Cut(f[0], "-")
	if !found {
		return 0, 0, false
	}
	lo, err1 := strconv.ParseUint(a, 16, 64)
	hi, err2 := strconv.ParseUint(b, 16, 64)
	return lo, hi, err1 == nil && err2 == nil
}

func TestWanted(t *testing.T) {
	for _, c := range []struct {
		args []string
		env  string
		want bool
	}{
		{[]string{"lf", "agentleak", "scan", "x.jsonl"}, "", true},
		{[]string{"lf", "--store", "s.db", "serve"}, "", false},
		{[]string{"lf", "agentleak", "scan"}, "0", false},
		{[]string{"lf"}, "1", true},
		{nil, "", true},
	} {
		if got := wanted(c.args, c.env); got != c.want {
			t.Errorf("wanted(%q, %q) = %v, want %v", c.args, c.env, got, c.want)
		}
	}
}

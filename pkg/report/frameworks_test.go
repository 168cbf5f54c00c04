package report

import (
	"regexp"
	"strings"
	"testing"
)

// checkMatrix checks the compliance matrix of the page as the browser
// built it: a cell per requirement, coloured by its status, each linking
// to a row of the evidence table that exists, whose risk scorers link to
// rows of the risk scorers' table that exist; and the digest shown.
func checkMatrix(t *testing.T, dom string) {
	t.Helper()
	want := map[string]string{ // requirement: status colour
		"LLM01": StatusColor["gap"], "LLM02": StatusColor["partial"], "LLM09": StatusColor["met"], "LLM10": StatusColor["no_data"],
	}
	cells := regexp.MustCompile(`<a class="req" href="#([^"]+)" style="background:\s*([^";]+);?"[^>]*>([^<]+)</a>`).FindAllStringSubmatch(dom, -1)
	if len(cells) != len(want) {
		t.Fatalf("matrix cells = %d, want %d:\n%s", len(cells), len(want), dom)
	}
	for _, c := range cells {
		target, color, key := c[1], c[2], c[3]
		if !strings.EqualFold(colorHex(color), want[key]) {
			t.Errorf("cell %s coloured %s, want %s", key, color, want[key])
		}
		if !strings.Contains(dom, `<tr id="`+target+`">`) {
			t.Errorf("cell %s links to #%s, which is not on the page", key, target)
		}
	}
	for _, m := range regexp.MustCompile(`<a href="#(scorer-[^"]+)">`).FindAllStringSubmatch(dom, -1) {
		if !strings.Contains(dom, `<tr id="`+m[1]+`">`) {
			t.Errorf("evidence links to #%s, which is not on the page", m[1])
		}
	}
	if !regexp.MustCompile(`Evidence digest \(sha256\) <code class="digest">[0-9a-f]{64}</code>, report time 2026-12-01T12:00:00(\+|&#43;)00:00, over 3 risk scorers`).MatchString(dom) {
		t.Error("the matrix has no evidence digest")
	}
}

// colorHex turns the rgb(r, g, b) a browser may write back into #rrggbb.
func colorHex(c string) string {
	m := regexp.MustCompile(`rgb\((\d+),\s*(\d+),\s*(\d+)\)`).FindStringSubmatch(c)
	if m == nil {
		return strings.TrimSpace(c)
	}
	out := "#"
	for _, v := range m[1:] {
		n := 0
		for _, d := range v {
			n = n*10 + int(d-'0')
		}
		out += string("0123456789abcdef"[n>>4]) + string("0123456789abcdef"[n&15])
	}
	return out
}

// TestMatrixInPage: the rendered template (no browser) holds the matrix.
func TestMatrixInPage(t *testing.T) {
	checkMatrix(t, string(render(t)))
}

package report

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// layoutProbe measures the page as laid out, from a test copy of it (the
// report itself has no script, and its CSP would refuse one): every key,
// score and level badge of the scorer table on one line, and nothing wider
// than the window. It writes what it finds into <pre id="layout">.
const layoutProbe = `<pre id="layout"></pre><script>
(function () {
  var out = [];
  function lines(el) {
    var r = document.createRange();
    r.selectNodeContents(el);
    var tops = {};
    Array.prototype.forEach.call(r.getClientRects(), function (c) { if (c.width > 0) tops[Math.round(c.top)] = 1; });
    return Object.keys(tops).length;
  }
  [["key", "td.key code"], ["score", "td.num"], ["badge", "td .pill"]].forEach(function (s) {
    document.querySelectorAll(s[1]).forEach(function (el) {
      if (lines(el) > 1) out.push("BROKEN " + s[0] + " " + el.textContent);
    });
  });
  var w = document.documentElement.scrollWidth;
  if (w > window.innerWidth) out.push("OVERFLOW " + w + " > " + window.innerWidth);
  out.push("WIDTH " + window.innerWidth);
  document.getElementById("layout").textContent = out.join("\n");
})();
</script>`

var cspMeta = regexp.MustCompile(`<meta http-equiv="Content-Security-Policy"[^>]*>`)

// TestLayoutAtCommonWidths opens the report in headless Chromium at 1280
// px and other common widths (a laptop, a tablet, the narrowest headless Chromium lays out): scores, level
// badges and keys never break across lines, and the page never scrolls
// sideways (wide tables scroll in their own box, charts shrink to fit). A
// screenshot per width is kept with the browser test's.
func TestLayoutAtCommonWidths(t *testing.T) {
	bin := chromium(t)
	dir := t.TempDir()
	d := fixture()
	d.Scorers[1].Key = "quality_external_customer_facing_assistant" // a long key
	var buf bytes.Buffer
	if err := WriteHTML(&buf, d); err != nil {
		t.Fatal(err)
	}
	probe := cspMeta.ReplaceAll(buf.Bytes(), nil)
	probe = bytes.Replace(probe, []byte("</body>"), []byte(layoutProbe+"</body>"), 1)
	page := filepath.Join(dir, "probe.html")
	if err := os.WriteFile(page, probe, 0o644); err != nil {
		t.Fatal(err)
	}
	shots := os.Getenv("LF_ARTIFACTS")
	if shots == "" {
		shots = dir
	}
	if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}
	// 500 px is the narrowest window headless Chromium lays out.
	for _, width := range []string{"1280", "1024", "768", "500"} {
		dom, _ := browser(t, bin, page, "--dump-dom", "--window-size="+width+",900")
		m := regexp.MustCompile(`(?s)<pre id="layout">(.*?)</pre>`).FindStringSubmatch(dom)
		if m == nil || !strings.Contains(m[1], "WIDTH "+width) {
			t.Fatalf("at %s px the probe did not run (or saw another width): %q", width, m)
		}
		for _, line := range strings.Split(m[1], "\n") {
			if strings.HasPrefix(line, "BROKEN") || strings.HasPrefix(line, "OVERFLOW") {
				t.Errorf("at %s px: %s", width, line)
			}
		}
		if width == "1280" || width == "500" {
			shot := filepath.Join(shots, "report-"+width+".png")
			browser(t, bin, page, "--screenshot="+shot, "--window-size="+width+",1600", "--hide-scrollbars")
			if st, err := os.Stat(shot); err != nil || st.Size() < 10_000 {
				t.Fatalf("screenshot %s missing or blank (%v)", shot, err)
			}
		}
	}
}

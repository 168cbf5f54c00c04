package report

import (
	"bytes"
	"fmt"
	"html"
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

// framesPage is a page of one iframe per width, each showing probe (a
// srcdoc frame: same origin as the page, so that the page can read what the
// probe found once every frame has loaded). It copies each frame's result
// into <pre id="layout-WIDTH">. The frames are stacked, so one screenshot
// shows every width. A last frame shows control.
func framesPage(probe, control []byte, widths []string) []byte {
	var b bytes.Buffer
	b.WriteString("<!doctype html><html><head><meta charset=\"utf-8\"></head><body style=\"margin:0\">\n")
	fmt.Fprintf(&b, "<iframe id=\"control\" width=\"400\" height=\"100\" srcdoc=\"%s\"></iframe>\n", html.EscapeString(string(control)))
	for _, w := range widths {
		fmt.Fprintf(&b, "<p>%s px</p><iframe id=\"frame-%s\" width=\"%s\" height=\"900\" srcdoc=\"%s\"></iframe>\n", w, w, w, html.EscapeString(string(probe)))
		fmt.Fprintf(&b, "<pre id=\"layout-%s\"></pre>\n", w)
	}
	b.WriteString(`<script>
window.addEventListener("load", function () {
  document.querySelectorAll("iframe[id^=frame-]").forEach(function (f) {
    var w = f.id.slice("frame-".length), r = f.contentDocument.getElementById("layout");
    document.getElementById("layout-" + w).textContent = r ? r.textContent : "NO PROBE";
  });
});
</script></body></html>
`)
	return b.Bytes()
}

// TestLayoutAtCommonWidths lays the report out in headless Chromium at
// 1280 px and other common widths (a laptop, a tablet, 500 px, the narrowest
// window headless Chromium lays out): scores, level badges and keys never
// break across lines, and the page never scrolls sideways (wide tables
// scroll in their own box, charts shrink to fit). Each width is a frame of
// one page, so one Chromium run checks them all (an iframe of width W lays
// its page out as a window W wide: innerWidth and media queries are the
// frame's); a screenshot of every width is kept with the browser test's.
// The same run holds the control of the browser test's console check.
func TestLayoutAtCommonWidths(t *testing.T) {
	t.Parallel() // Chromium mostly waits: runs beside TestBrowser
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
	// The control of TestBrowser's console check: the report as it is,
	// with an inline script its CSP refuses, must leave a console message.
	control := bytes.Replace(buf.Bytes(), []byte("</main>"), []byte("<script>console.log(1)</script></main>"), 1)
	widths := []string{"1280", "1024", "768", "500"}
	page := filepath.Join(dir, "widths.html")
	if err := os.WriteFile(page, framesPage(probe, control, widths), 0o644); err != nil {
		t.Fatal(err)
	}
	shots := os.Getenv("LF_ARTIFACTS")
	if shots == "" {
		shots = dir
	}
	if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(shots, "report-widths.png")
	run := waitRun(t, startBrowser(t, bin, page, "--dump-dom", "--screenshot="+shot, "--window-size=1300,3900", "--hide-scrollbars"))
	dom := run.stdout
	if !consoleLine.MatchString(run.stderr) {
		t.Error("a script blocked by the CSP left no console message: TestBrowser's console check cannot fail")
	}
	for _, width := range widths {
		m := regexp.MustCompile(`(?s)<pre id="layout-` + width + `">(.*?)</pre>`).FindStringSubmatch(dom)
		if m == nil || !strings.Contains(m[1], "WIDTH "+width) {
			t.Fatalf("at %s px the probe did not run (or saw another width): %q", width, m)
		}
		for _, line := range strings.Split(html.UnescapeString(m[1]), "\n") {
			if strings.HasPrefix(line, "BROKEN") || strings.HasPrefix(line, "OVERFLOW") {
				t.Errorf("at %s px: %s", width, line)
			}
		}
	}
	if st, err := os.Stat(shot); err != nil || st.Size() < 10_000 {
		t.Fatalf("screenshot %s missing or blank (%v)", shot, err)
	}
}

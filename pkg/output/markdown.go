package output

import (
	"fmt"
	"io"
	"strings"
)

// MarkdownWriter collects the checks of every value written and, on Close,
// writes a compact summary for a pull-request comment or a CI step summary:
// per suite a line of counts by level, the failing checks first as a list,
// then a table of the others.
type MarkdownWriter struct {
	w      io.Writer
	suites []Suite
	views  []any // the terminal views of values that are not checks (markdown_view.go)
	// Order lists levels in the order to count them (worst first); levels
	// not listed follow in order of appearance.
	Order []string
}

// NewMarkdown returns a Markdown writer on w.
func NewMarkdown(w io.Writer) *MarkdownWriter { return &MarkdownWriter{w: w} }

// Write adds v's checks; v must be a Checker.
func (m *MarkdownWriter) Write(v any) error {
	c, ok := v.(Checker)
	if !ok {
		if vw, ok := v.(Viewer); ok {
			m.views = append(m.views, vw.View())
			return nil
		}
		return notSupported("markdown", v)
	}
	s := c.Checks()
	for i := range m.suites {
		if m.suites[i].Name == s.Name {
			m.suites[i].Checks = append(m.suites[i].Checks, s.Checks...)
			return nil
		}
	}
	m.suites = append(m.suites, s)
	return nil
}

// Close writes the summary.
func (m *MarkdownWriter) Close() error {
	var b strings.Builder
	for i, s := range m.suites {
		if i > 0 {
			b.WriteString("\n")
		}
		m.suite(&b, s)
	}
	if len(m.suites) > 0 && len(m.views) > 0 {
		b.WriteString("\n") // a paragraph after a suite's table
	}
	for _, v := range m.views {
		writeMarkdownView(&b, v)
	}
	_, err := io.WriteString(m.w, b.String())
	return err
}

func (m *MarkdownWriter) suite(b *strings.Builder, s Suite) {
	failed := 0
	counts := map[string]int{}
	var levels []string
	for _, l := range m.Order {
		levels = append(levels, l)
	}
	for _, c := range s.Checks {
		if c.Failed {
			failed++
		}
		if _, seen := counts[c.Level]; !seen && !contains(levels, c.Level) {
			levels = append(levels, c.Level)
		}
		counts[c.Level]++
	}
	status := "passed"
	if failed > 0 {
		status = fmt.Sprintf("**%d of %d failed**", failed, len(s.Checks))
	}
	fmt.Fprintf(b, "### %s: %s\n\n", mdText(s.Name), status)
	var parts []string
	for _, l := range levels {
		if counts[l] > 0 {
			parts = append(parts, fmt.Sprintf("%s **%d**", mdText(l), counts[l]))
		}
	}
	if len(parts) == 0 {
		b.WriteString("nothing to report\n")
		return
	}
	b.WriteString(strings.Join(parts, " · ") + "\n\n")
	if failed > 0 {
		b.WriteString("Failing:\n\n")
		for _, c := range s.Checks {
			if c.Failed {
				fmt.Fprintf(b, "- `%s` (%s): %s\n", mdCode(c.Name), mdText(c.Level), mdText(c.Message))
			}
		}
		b.WriteString("\n")
	}
	var rest []Check
	for _, c := range s.Checks {
		if !c.Failed {
			rest = append(rest, c)
		}
	}
	if len(rest) == 0 {
		return
	}
	if failed > 0 {
		b.WriteString("<details><summary>Passing</summary>\n\n")
	}
	header := []string{"name", "level"}
	for _, col := range rest[0].Columns {
		header = append(header, col.Name)
	}
	b.WriteString("| " + strings.Join(header, " | ") + " |\n")
	b.WriteString("|" + strings.Repeat(" --- |", len(header)) + "\n")
	for _, c := range rest {
		row := []string{"`" + mdCode(c.Name) + "`", mdCell(c.Level)}
		for _, col := range c.Columns {
			row = append(row, mdCell(col.Value))
		}
		b.WriteString("| " + strings.Join(row, " | ") + " |\n")
	}
	if failed > 0 {
		b.WriteString("\n</details>\n")
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// mdText escapes the characters that would start Markdown or HTML markup.
func mdText(s string) string {
	r := strings.NewReplacer("\\", "\\\\", "*", "\\*", "_", "\\_", "`", "\\`", "<", "&lt;", ">", "&gt;", "[", "\\[", "]", "\\]", "\n", " ")
	return r.Replace(s)
}

// mdCell escapes text for a table cell (a pipe would end the cell).
func mdCell(s string) string { return strings.ReplaceAll(mdText(s), "|", "\\|") }

// mdCode keeps text inside a code span (backticks cannot be escaped there).
func mdCode(s string) string { return strings.NewReplacer("`", "'", "\n", " ", "|", "\\|").Replace(s) }

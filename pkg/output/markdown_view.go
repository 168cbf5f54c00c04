package output

import (
	"strings"
)

// writeMarkdownView writes a terminal view (*TableView, *Document or
// Sections) as Markdown: tables as pipe tables, document lines as
// paragraphs (a line starting with "# " as a heading, one indented by two
// spaces or more as code).
func writeMarkdownView(b *strings.Builder, v any) {
	switch x := v.(type) {
	case Sections:
		for _, part := range x {
			writeMarkdownView(b, part)
		}
	case *TableView:
		if len(x.Rows) == 0 {
			return
		}
		b.WriteString("| " + strings.Join(mapCells(x.Header), " | ") + " |\n")
		b.WriteString("|" + strings.Repeat(" --- |", len(x.Header)) + "\n")
		for _, row := range x.Rows {
			b.WriteString("| " + strings.Join(mapCells(row), " | ") + " |\n")
		}
		b.WriteString("\n")
	case *Document:
		for _, l := range x.Lines {
			switch {
			case strings.HasPrefix(l, "# "):
				b.WriteString("### " + mdText(strings.TrimPrefix(l, "# ")) + "\n\n")
			case strings.HasPrefix(l, "  "):
				b.WriteString("    " + strings.TrimSpace(l) + "\n\n")
			case l == "":
			default:
				b.WriteString(mdText(l) + "\n\n")
			}
		}
	}
}

func mapCells(cells []string) []string {
	out := make([]string, len(cells))
	for i, c := range cells {
		out[i] = mdCell(c)
	}
	return out
}

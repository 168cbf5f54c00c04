package report

// The output formats, one line each; each format lives in its own file.
func init() {
	register("table", newTableWriter)
	register("json", newJSONWriter)
	register("yaml", newYAMLWriter)
}

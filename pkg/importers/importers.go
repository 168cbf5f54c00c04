// Package importers turns the result files of other evaluation tools
// (promptfoo, Inspect AI, lm-evaluation-harness, garak, HELM, DeepEval,
// RAGAS) into lf evaluation runs, so that risk scorers can score the
// evaluations people already run.
//
// Every importer maps tool names onto lf keys by one rule (see KeyOf), keeps
// the original names and the provenance of the run in the run's Metadata, and
// derives the run id from the file's content or the tool's own run id, never
// from the time of the import: importing the same file twice gives the same
// run. A file that is not the format it claims, or that is cut short, yields a
// located error and no run; values that cannot be stored (NaN, "N/A", a rate
// over a total of 0) are dropped with a warning, and a file whose completed
// run keeps no value at all is refused (NoValuesError).
package importers

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/internal/jsonlex"
	"github.com/lfcli/lf/pkg/kind"
	"github.com/lfcli/lf/pkg/model"
)

// Format names a result-file format lf can import.
type Format string

// The formats lf imports.
const (
	Promptfoo Format = "promptfoo"
	Inspect   Format = "inspect"
	LMEval    Format = "lm-eval"
	Garak     Format = "garak"
	HELM      Format = "helm"
	DeepEval  Format = "deepeval"
	RAGAS     Format = "ragas"
)

// Formats lists every importable format, in the order they are documented.
var Formats = []Format{Promptfoo, Inspect, LMEval, Garak, HELM, DeepEval, RAGAS}

// ParseFormat reads a format name as given on the command line or in a run file.
func ParseFormat(s string) (Format, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "promptfoo":
		return Promptfoo, nil
	case "inspect", "inspect-ai", "inspect_ai":
		return Inspect, nil
	case "lm-eval", "lm_eval", "lm-evaluation-harness":
		return LMEval, nil
	case "garak":
		return Garak, nil
	case "helm":
		return HELM, nil
	case "deepeval":
		return DeepEval, nil
	case "ragas":
		return RAGAS, nil
	}
	names := make([]string, len(Formats))
	for i, f := range Formats {
		names[i] = string(f)
	}
	return "", fmt.Errorf("unknown import format %q: use one of %s", s, strings.Join(names, ", "))
}

// Options tune an import.
type Options struct {
	// EvaluationKey, when set, replaces the evaluation key every importer
	// derives; the derived one is kept in the run's metadata.
	EvaluationKey string
	// Stdin is read for the path "-".
	Stdin io.Reader
	// OnFile, when set, is called with each path once it is imported (or
	// has failed): the command shows progress with it.
	OnFile func(path string)
}

// RunSummary names one run an import produced.
type RunSummary struct {
	EvaluationKey string
	ID            string
	Status        string
	Results       int
	Metrics       int
}

// FileReport says what one input file gave: the runs, the values skipped and
// why, and, when the file could not be imported, the error (then no run of it
// was emitted).
type FileReport struct {
	Path        string
	Format      Format
	Detected    bool // the format was detected from the content
	Runs        []RunSummary
	Skipped     int // metric values dropped (see the warnings)
	Diagnostics diag.List
	Err         error
}

// Report gathers the reports of every file of an import.
type Report struct {
	Files []FileReport
}

// Failed counts the files that could not be imported.
func (r Report) Failed() int {
	n := 0
	for _, f := range r.Files {
		if f.Err != nil {
			n++
		}
	}
	return n
}

// Runs counts the runs emitted.
func (r Report) Runs() int {
	n := 0
	for _, f := range r.Files {
		n += len(f.Runs)
	}
	return n
}

// Import reads every path (a file, a HELM run folder, or "-" for opts.Stdin)
// in the given format, or the format detected from each file's content when
// format is "", and hands each run to emit once its whole file has been read.
// A file that fails is reported in its FileReport and emits nothing; Import
// itself fails only when ctx is done or emit fails.
func Import(ctx context.Context, format Format, paths []string, opts Options, emit func(model.EvaluationRun) error) (Report, error) {
	if opts.EvaluationKey != "" {
		if err := kind.CheckKey("evaluation key", opts.EvaluationKey); err != nil {
			return Report{}, err
		}
	}
	var rep Report
	for _, p := range expandSuites(format, paths) {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		fr := FileReport{Path: p, Format: format}
		runs, err := importOne(ctx, &fr, p, opts)
		if err != nil {
			fr.Err = err
			rep.Files = append(rep.Files, fr)
			if opts.OnFile != nil {
				opts.OnFile(p)
			}
			continue
		}
		for _, r := range runs {
			if err := emit(r); err != nil {
				fr.Err = err
				rep.Files = append(rep.Files, fr)
				return rep, fmt.Errorf("%s: storing run %s/%s: %w", p, r.EvaluationKey, r.ID, err)
			}
			fr.Runs = append(fr.Runs, summarize(r))
		}
		rep.Files = append(rep.Files, fr)
		if opts.OnFile != nil {
			opts.OnFile(p)
		}
	}
	return rep, nil
}

func summarize(r model.EvaluationRun) RunSummary {
	s := RunSummary{EvaluationKey: r.EvaluationKey, ID: r.ID, Status: r.Status, Results: len(r.Results)}
	for _, res := range r.Results {
		s.Metrics += len(res.Metrics)
	}
	return s
}

// source is one input: its name for messages, its base name for metadata, and
// a way to read it.
type source struct {
	path    string // as given, for messages
	name    string // base name, recorded in metadata (stable across working folders)
	isDir   bool
	r       io.Reader // set for stdin
	fr      *FileReport
	skipped int
}

func (s *source) warnf(line, col int, pointer, format string, args ...any) {
	s.fr.Diagnostics = append(s.fr.Diagnostics, diag.Diagnostic{
		File: s.path, Line: line, Col: col, Pointer: pointer,
		Msg: fmt.Sprintf(format, args...), Severity: diag.SevWarning,
	})
}

// skip records a dropped metric value.
func (s *source) skip(line, col int, pointer, format string, args ...any) {
	s.skipped++
	s.warnf(line, col, pointer, format, args...)
}

// errorf is a located error that ends the import of the file.
func (s *source) errorf(line, col int, pointer, format string, args ...any) error {
	d := diag.Diagnostic{File: s.path, Line: line, Col: col, Pointer: pointer, Msg: fmt.Sprintf(format, args...)}
	s.fr.Diagnostics = append(s.fr.Diagnostics, d)
	return errors.New(d.String())
}

func importOne(ctx context.Context, fr *FileReport, p string, opts Options) ([]model.EvaluationRun, error) {
	src := &source{path: p, name: filepath.Base(p), fr: fr}
	if p == "-" {
		if opts.Stdin == nil {
			return nil, src.errorf(0, 0, "", "no standard input to read")
		}
		src.name = "stdin"
		src.r = opts.Stdin
	} else {
		st, err := os.Stat(p)
		if err != nil {
			return nil, src.errorf(0, 0, "", "%v", unwrapPathError(err))
		}
		src.isDir = st.IsDir()
	}
	format := fr.Format
	var head []byte
	if format == "" {
		f, h, err := detectSource(src)
		if err != nil {
			return nil, err
		}
		format, head = f, h
		fr.Format, fr.Detected = f, true
	}
	if src.r != nil && head != nil {
		src.r = io.MultiReader(bytes.NewReader(head), src.r)
	}
	var runs []*runBuilder
	var err error
	switch format {
	case Promptfoo:
		runs, err = withBytes(src, importPromptfoo)
	case Inspect:
		runs, err = importInspect(src)
	case LMEval:
		runs, err = withBytes(src, importLMEval)
	case Garak:
		runs, err = importGarak(ctx, src)
	case HELM:
		runs, err = importHELM(src)
	case DeepEval:
		runs, err = withBytes(src, importDeepEval)
	case RAGAS:
		runs, err = withBytes(src, importRAGAS)
	default:
		return nil, src.errorf(0, 0, "", "unknown format %q", format)
	}
	fr.Skipped = src.skipped
	if err != nil {
		return nil, err
	}
	out := make([]model.EvaluationRun, 0, len(runs))
	for _, b := range runs {
		r, err := b.build(src, opts.EvaluationKey)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	fr.Skipped = src.skipped
	if err := checkValues(src, out); err != nil {
		return nil, err
	}
	return out, nil
}

func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// readAll reads a whole (JSON) input; JSON files of these tools are documents,
// not streams, and a few MB at most. Its errors are recorded diagnostics.
func (s *source) readAll() ([]byte, error) {
	var b []byte
	var err error
	switch {
	case s.r != nil:
		b, err = io.ReadAll(s.r)
	case s.isDir:
		return nil, s.errorf(0, 0, "", "is a folder: give a result file")
	default:
		b, err = os.ReadFile(s.path)
	}
	if err != nil {
		return nil, s.errorf(0, 0, "", "%v", unwrapPathError(err))
	}
	// A byte-order mark is skipped, as every lf reader does.
	return bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")), nil
}

func withBytes(src *source, f func(*source, []byte, string) ([]*runBuilder, error)) ([]*runBuilder, error) {
	b, err := src.readAll()
	if err != nil {
		return nil, err
	}
	return f(src, b, digest(b))
}

func digest(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// Detect names the format of a result file from its content: the whole file,
// or its first bytes when they already tell (a ZIP, a garak row, keys that only
// one tool writes). It returns "" when it cannot tell.
func Detect(content []byte) Format {
	b := bytes.TrimLeft(content, " \t\r\n\ufeff")
	if bytes.HasPrefix(b, []byte("PK\x03\x04")) {
		return Inspect
	}
	if len(b) == 0 {
		return ""
	}
	if b[0] != '{' && b[0] != '[' {
		if detectRAGASCSV(b) {
			return RAGAS
		}
		return ""
	}
	if b[0] == '[' {
		if first := bytes.TrimLeft(b[1:], " \t\r\n"); len(first) > 0 && first[0] == '{' {
			if keys, _ := topLevelKeys(first); looksRAGAS(slices.Collect(maps.Keys(keys))) {
				return RAGAS // records: [{column: value}, ...]
			}
		}
		if bytes.Contains(b, []byte(`"split"`)) && bytes.Contains(b, []byte(`"count"`)) {
			return HELM // a stats.json; the importer asks for the run folder
		}
		return ""
	}
	keys, complete := topLevelKeys(b)
	has := func(k string) bool { _, ok := keys[k]; return ok }
	switch {
	case has("testRunData") || has("testRunLink") ||
		has("testCases") && (has("metricsScores") || has("testPassed") || has("conversationalTestCases") || has("testFile")):
		return DeepEval
	case has("entry_type"), has("attempt_id") && has("probe") && has("detector"): // a report, a hit log
		return Garak
	case has("evalId") || (has("results") && has("shareableUrl")):
		return Promptfoo
	case has("eval") && has("status"):
		return Inspect
	case has("scenario_spec") || has("adapter_spec"):
		return HELM
	case has("results") && (has("versions") || has("configs") || has("group_subtasks") || has("lm_eval_version") || has("n-shot")):
		return LMEval
	case complete && has("results") && len(keys) <= 2:
		return LMEval
	case looksRAGAS(slices.Collect(maps.Keys(keys))):
		return RAGAS // columns ({column: {index: value}}) or the means
	}
	return ""
}

// DetectPath detects the format of a file or a HELM run folder.
func DetectPath(path string) (Format, error) {
	var fr FileReport
	src := &source{path: path, name: filepath.Base(path), fr: &fr}
	st, err := os.Stat(path)
	if err != nil {
		return "", unwrapPathError(err)
	}
	src.isDir = st.IsDir()
	f, _, err := detectSource(src)
	return f, err
}

// detectLimit bounds how much of a file detection reads when its first 64 KB
// do not tell (lm-eval writes its telling keys after the results).
const detectLimit = 256 << 20

// detectSource detects the format of src; for standard input it returns the
// bytes it consumed so the importer can read them again.
func detectSource(src *source) (Format, []byte, error) {
	if src.isDir {
		if _, err := os.Stat(filepath.Join(src.path, "run_spec.json")); err == nil {
			return HELM, nil, nil
		}
		return "", nil, src.errorf(0, 0, "", "a folder is a HELM run (with run_spec.json) or a HELM suite (with run folders); this one is neither: give a result file or the format (%s)", formatList())
	}
	var r io.Reader = src.r
	if r == nil {
		f, err := os.Open(src.path)
		if err != nil {
			return "", nil, src.errorf(0, 0, "", "%v", unwrapPathError(err))
		}
		defer f.Close()
		r = f
	}
	head := make([]byte, 1<<16)
	n, err := io.ReadFull(r, head)
	head = head[:n]
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return "", nil, src.errorf(0, 0, "", "%v", err)
	}
	consumed := head
	fm := Detect(head)
	if fm == "" && n == len(head) && n > 0 {
		rest, err := io.ReadAll(io.LimitReader(r, detectLimit))
		if err != nil {
			return "", nil, src.errorf(0, 0, "", "%v", err)
		}
		consumed = append(head, rest...)
		fm = Detect(consumed)
	}
	if src.r == nil {
		consumed = nil
	}
	if fm == "" {
		return "", consumed, src.errorf(1, 1, "", "cannot tell which tool wrote this file: give the format (%s)", formatList())
	}
	return fm, consumed, nil
}

// topLevelKeys lists the keys of the JSON object b starts with, as far as b
// goes; complete says whether the object ended within b.
func topLevelKeys(b []byte) (map[string]struct{}, bool) {
	keys := map[string]struct{}{}
	depth := 0
	expectKey := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch c {
		case '"':
			e := jsonlex.QuoteEnd(b, i)
			if e < 0 {
				return keys, false
			}
			if depth == 1 && expectKey {
				keys[string(b[i+1:e-1])] = struct{}{}
				expectKey = false
			}
			i = e - 1
		case '{', '[':
			depth++
			if depth == 1 && c == '{' {
				expectKey = true
			}
		case '}', ']':
			depth--
			if depth == 0 {
				return keys, true
			}
		case ',':
			if depth == 1 {
				expectKey = true
			}
		}
	}
	return keys, false
}

func formatList() string {
	names := make([]string, len(Formats))
	for i, f := range Formats {
		names[i] = string(f)
	}
	return strings.Join(names, ", ")
}

package risk

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math"
	"math/big"
	"strings"

	"github.com/lfcli/lf/pkg/model"
)

// PartialStore keeps what one run gives a scorer (a partial: the count,
// exact sum, minimum and maximum of the function's values for the run's
// values in scope, or the function's first error), so that a history adds
// up whole runs instead of reading and evaluating every value again. A
// partial is filed under its signature (Signature), which names everything
// it depends on besides the run's values: a scorer or methodology edited
// gets a new signature, and so new partials, by construction. The store
// drops a run's partials when its values change or go.
type PartialStore interface {
	// RiskPartials returns the partials kept under signature, by run: of
	// the runs of the evaluation keys in keys, or of every run when keys
	// is nil.
	RiskPartials(ctx context.Context, signature string, keys []string) (map[RunRef][]byte, error)
	// PutRiskPartials keeps partials under signature (one kept already
	// for a run stays: it is the same).
	PutRiskPartials(ctx context.Context, signature string, partials map[RunRef][]byte) error
}

// partialsVersion is part of every signature: change it when what a
// function gives for a value, or the encoding of a partial, changes, so
// that partials kept by an earlier lf are not used.
const partialsVersion = "lf-risk-partials/1"

// Signature names what a run's partial for scorer s depends on besides the
// run's values: the methodology's function, variable and parameter types,
// the bound parameters, the metric and the scope's task and scorer filters
// (the evaluation keys and metric_keys choose runs, not values, and the
// aggregation is applied to the partials).
func Signature(m *model.Methodology, params map[string]any, s *model.RiskScorer) string {
	h := sha256.New()
	spec, _ := json.Marshal(m.ConfigSpec)
	for _, part := range []string{
		partialsVersion, m.Function, m.MetricVar(), string(spec), bindKey(m.Key, params), s.Metric,
		filterKey(s.Scope.TaskSpecificationKeys), filterKey(s.Scope.ScorerKeys),
	} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// filterKey tells an absent filter (every value) from an empty one (none).
func filterKey(keys []string) string {
	if keys == nil {
		return "*"
	}
	return "=" + strings.Join(keys, "\x01")
}

// partial is what one run gives a scorer.
type partial struct {
	n        int
	sum      exactSum
	min, max float64
	err      string // the function's first error on the run's values
}

// partialOf evaluates a scorer's function on the values of one run.
func partialOf(s *model.RiskScorer, ev *Evaluator, run RunRef, vals []Value) *partial {
	p := &partial{}
	var scratch aggregator
	if _, err := evalValues(s, ev, run, vals, &scratch, partialTap{p}); err != nil {
		return &partial{err: err.Error()}
	}
	return p
}

// partialTap gathers a partial from evalValues.
type partialTap struct{ p *partial }

func (t partialTap) scored(_ RunRef, _ *Value, x float64) {
	p := t.p
	if p.n == 0 {
		p.min, p.max = x, x
	} else {
		p.min, p.max = math.Min(p.min, x), math.Max(p.max, x)
	}
	p.sum.add(x)
	p.n++
}

func (partialTap) excluded(RunRef, *Value, string) {}

// merge adds a run's partial to the aggregate, as adding each of its
// values would.
func (a *aggregator) merge(p *partial) {
	if p.n == 0 {
		return
	}
	switch {
	case a.mean():
		a.sum.addSum(&p.sum)
	case a.n == 0 && a.kind == "max":
		a.acc = p.max
	case a.n == 0:
		a.acc = p.min
	case a.kind == "max":
		a.acc = math.Max(a.acc, p.max)
	default:
		a.acc = math.Min(a.acc, p.min)
	}
	a.n += p.n
}

// Encoding of a partial: a format byte, then either the error (format 2:
// its length and text) or the count; with a count above zero, the minimum
// and maximum (IEEE 754 bits) and the sum: its parts (format 0) or its
// wide form (format 1, big.Float's gob encoding).
const (
	partialParts = 0
	partialWide  = 1
	partialError = 2
)

func (p *partial) encode() []byte {
	b := make([]byte, 0, 40)
	if p.err != "" {
		b = append(b, partialError)
		b = binary.AppendUvarint(b, uint64(len(p.err)))
		return append(b, p.err...)
	}
	if p.sum.wide != nil {
		b = append(b, partialWide)
	} else {
		b = append(b, partialParts)
	}
	b = binary.AppendUvarint(b, uint64(p.n))
	if p.n == 0 {
		return b
	}
	b = binary.BigEndian.AppendUint64(b, math.Float64bits(p.min))
	b = binary.BigEndian.AppendUint64(b, math.Float64bits(p.max))
	if p.sum.wide != nil {
		w, _ := p.sum.wide.GobEncode()
		return append(b, w...)
	}
	b = binary.AppendUvarint(b, uint64(len(p.sum.parts)))
	for _, x := range p.sum.parts {
		b = binary.BigEndian.AppendUint64(b, math.Float64bits(x))
	}
	return b
}

var errPartial = errors.New("malformed risk partial")

func decodePartial(b []byte) (*partial, error) {
	p := &partial{}
	if err := decodePartialInto(p, b); err != nil {
		return nil, err
	}
	return p, nil
}

// decodePartialInto is decodePartial into p (a zero partial).
func decodePartialInto(p *partial, b []byte) error {
	if len(b) < 2 {
		return errPartial
	}
	format, b := b[0], b[1:]
	u, k := binary.Uvarint(b)
	if k <= 0 {
		return errPartial
	}
	b = b[k:]
	switch format {
	case partialError:
		if uint64(len(b)) != u {
			return errPartial
		}
		p.err = string(b)
		return nil
	case partialParts, partialWide:
	default:
		return errPartial
	}
	if u > math.MaxInt32 {
		return errPartial
	}
	if p.n = int(u); p.n == 0 {
		return nil
	}
	if len(b) < 16 {
		return errPartial
	}
	p.min = math.Float64frombits(binary.BigEndian.Uint64(b))
	p.max = math.Float64frombits(binary.BigEndian.Uint64(b[8:]))
	b = b[16:]
	if format == partialWide {
		p.sum.wide = new(big.Float)
		if err := p.sum.wide.GobDecode(b); err != nil {
			return errPartial
		}
		return nil
	}
	parts, k := binary.Uvarint(b)
	if k <= 0 || uint64(len(b)-k) != parts*8 {
		return errPartial
	}
	b = b[k:]
	p.sum.parts = make([]float64, parts)
	for i := range p.sum.parts {
		p.sum.parts[i] = math.Float64frombits(binary.BigEndian.Uint64(b[8*i:]))
	}
	return nil
}

// RunPartials computes the partials that runs give the scorers whose
// scope takes them, by signature, so that a store can keep them when the
// runs are written (a history then reads them). Scorers that cannot be
// scored (their methodology) and runs that are not completed are skipped:
// a history computes what it misses. Values are read once per run and
// metric, and held for one run at a time.
func RunPartials(ctx context.Context, src Source, methodologies map[string]*model.Methodology, scorers []*model.RiskScorer, runs []RunRef) (map[string]map[RunRef][]byte, error) {
	sc := newScoring(src, methodologies)
	type admitted struct {
		s   *model.RiskScorer
		ev  *Evaluator
		sig string
	}
	var use []admitted
	for _, s := range scorers {
		if s.Scope.MetricKeys != nil && !contains(s.Scope.MetricKeys, s.Metric) {
			continue
		}
		ev, err := sc.admit(s)
		if err != nil {
			continue
		}
		m := methodologies[s.RiskScoringMethodologyKey]
		params, _ := Params(m, s.Config)
		use = append(use, admitted{s, ev, Signature(m, params, s)})
	}
	out := map[string]map[RunRef][]byte{}
	for _, run := range runs {
		sc.values = map[valuesKey][]Value{}
		for _, a := range use {
			every := a.s.Scope.AllLatest || a.s.Scope.EvaluationKeys == nil
			if !every && !contains(a.s.Scope.EvaluationKeys, run.EvaluationKey) {
				continue
			}
			if out[a.sig] == nil {
				out[a.sig] = map[RunRef][]byte{}
			}
			if out[a.sig][run] != nil {
				continue
			}
			vals, err := sc.valuesOf(ctx, run, a.s.Metric)
			if err != nil {
				return nil, err
			}
			out[a.sig][run] = partialOf(a.s, a.ev, run, vals).encode()
		}
	}
	return out, nil
}

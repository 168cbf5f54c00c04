package risk

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/expr-lang/expr/parser"

	"github.com/lfcli/lf/pkg/model"
)

// Problem is a semantic problem in an entity, at a JSON pointer relative to
// the entity.
type Problem struct {
	Pointer string
	Msg     string
}

func problem(ptr, format string, args ...any) Problem {
	return Problem{Pointer: ptr, Msg: fmt.Sprintf(format, args...)}
}

// CheckMethodology checks what the schema cannot: the function compiles and
// uses only declared variables, parameters are consistent.
func CheckMethodology(m *model.Methodology) []Problem {
	var out []Problem
	declared := map[string]bool{m.MetricVar(): true}
	for i, p := range m.ConfigSpec {
		ptr := fmt.Sprintf("/config_spec/%d", i)
		if declared[p.Key] {
			if p.Key == m.MetricVar() {
				out = append(out, problem(ptr+"/key", "parameter %q has the name of the metric variable", p.Key))
			} else {
				out = append(out, problem(ptr+"/key", "parameter %q is declared twice", p.Key))
			}
		}
		declared[p.Key] = true
		out = append(out, checkParam(ptr, &p)...)
	}
	vars, err := Variables(m.Function)
	var ce *CommentError
	if errors.As(err, &ce) {
		return append(out, problem("/function", "%v", ce))
	}
	if err != nil {
		return append(out, problem("/function", "function does not parse: %s", firstLine(err.Error())))
	}
	// A call outside the allowed functions is reported with undeclared
	// variables, not hidden by them; the function cannot compile then.
	callErr := error(nil)
	if src, _, err := prepare(m.Function); err == nil {
		if tree, err := parser.Parse(src); err == nil {
			callErr = checkCalls(tree)
		}
	}
	if callErr != nil {
		out = append(out, problem("/function", "%v", callErr))
	}
	var undeclared []string
	for _, v := range vars {
		if !declared[v] {
			undeclared = append(undeclared, v)
		}
	}
	if len(undeclared) > 0 {
		names := make([]string, len(undeclared))
		for i, u := range undeclared {
			names[i] = fmt.Sprintf("%q", u)
		}
		out = append(out, problem("/function", "function uses undeclared variable%s %s: declare %s in config_spec, or name the metric variable with metric_key (it is %q)",
			pluralS(len(names)), strings.Join(names, ", "), them(len(names)), m.MetricVar()))
		return out
	}
	if callErr != nil {
		return out
	}
	if _, err := Compile(m); err != nil {
		out = append(out, problem("/function", "function does not compile: %v", err))
	}
	return out
}

func pluralS(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func them(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

func checkParam(ptr string, p *model.Param) []Problem {
	var out []Problem
	if p.Min != nil && p.Max != nil && *p.Min > *p.Max {
		out = append(out, problem(ptr+"/min", "min %v is greater than max %v", *p.Min, *p.Max))
	}
	switch p.Type {
	case model.ParamCategorical:
		if len(p.AllowedValues) == 0 {
			out = append(out, problem(ptr, "a categorical parameter needs allowed_values"))
		}
		allowed := map[string]bool{}
		for _, a := range p.AllowedValues {
			allowed[a] = true
		}
		for _, a := range p.AllowedValues {
			if _, ok := p.ValuesMapping[a]; !ok {
				out = append(out, problem(ptr+"/values_mapping", "allowed value %q has no number in values_mapping", a))
			}
		}
		for _, k := range sortedKeys(p.ValuesMapping) {
			if !allowed[k] {
				out = append(out, problem(ptr+"/values_mapping/"+k, "%q is not one of allowed_values", k))
			}
		}
	default:
		if len(p.AllowedValues) > 0 && p.Type != model.ParamString {
			out = append(out, problem(ptr+"/allowed_values", "allowed_values applies to categorical and string parameters"))
		}
		if len(p.ValuesMapping) > 0 {
			out = append(out, problem(ptr+"/values_mapping", "values_mapping applies to categorical parameters"))
		}
	}
	if (p.Min != nil || p.Max != nil) && p.Type != model.ParamFloat && p.Type != model.ParamInt {
		out = append(out, problem(ptr, "min and max apply to float and int parameters"))
	}
	if p.DefaultValue != nil {
		if msg := checkValue(p, p.DefaultValue); msg != "" {
			out = append(out, problem(ptr+"/default_value", "default %s", msg))
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// checkValue returns "" when v is a valid value of p, else what is wrong.
func checkValue(p *model.Param, v any) string {
	switch p.Type {
	case model.ParamFloat, model.ParamInt:
		f, ok := v.(float64)
		if !ok {
			return fmt.Sprintf("must be a number, not %s", describe(v))
		}
		if p.Type == model.ParamInt && f != math.Trunc(f) {
			return fmt.Sprintf("must be a whole number, not %v", f)
		}
		if p.Min != nil && f < *p.Min {
			return fmt.Sprintf("%v is below the minimum %v", f, *p.Min)
		}
		if p.Max != nil && f > *p.Max {
			return fmt.Sprintf("%v is above the maximum %v", f, *p.Max)
		}
	case model.ParamBoolean:
		if _, ok := v.(bool); !ok {
			return fmt.Sprintf("must be true or false, not %s", describe(v))
		}
	case model.ParamString:
		s, ok := v.(string)
		if !ok {
			return fmt.Sprintf("must be a string, not %s", describe(v))
		}
		if len(p.AllowedValues) > 0 && !contains(p.AllowedValues, s) {
			return fmt.Sprintf("%q is not one of %s", s, quoteList(p.AllowedValues))
		}
	case model.ParamCategorical:
		s, ok := v.(string)
		if !ok {
			return fmt.Sprintf("must be one of %s, not %s", quoteList(p.AllowedValues), describe(v))
		}
		if !contains(p.AllowedValues, s) {
			return fmt.Sprintf("%q is not one of %s", s, quoteList(p.AllowedValues))
		}
	}
	return ""
}

func describe(v any) string {
	switch x := v.(type) {
	case string:
		return fmt.Sprintf("the string %q", x)
	case bool:
		return fmt.Sprintf("%v", x)
	case float64:
		return fmt.Sprintf("the number %v", x)
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func quoteList(list []string) string {
	q := make([]string, len(list))
	for i, s := range list {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}

// CheckScorer checks a risk scorer's config against its methodology.
func CheckScorer(s *model.RiskScorer, m *model.Methodology) []Problem {
	_, probs := Params(m, s.Config)
	return probs
}

// Params resolves the parameter values a scorer passes to its methodology's
// function: the scorer's config, defaults for what it leaves out, categorical
// values through values_mapping. Problems point into the scorer.
func Params(m *model.Methodology, config map[string]any) (map[string]any, []Problem) {
	var probs []Problem
	spec := map[string]*model.Param{}
	for i := range m.ConfigSpec {
		spec[m.ConfigSpec[i].Key] = &m.ConfigSpec[i]
	}
	for _, k := range sortedKeys(config) {
		if spec[k] == nil {
			declared := sortedKeys(spec)
			hint := "it declares no parameters"
			if len(declared) > 0 {
				hint = "it declares " + quoteList(declared)
			}
			probs = append(probs, problem("/config/"+k, "unknown parameter %q for methodology %q: %s", k, m.Key, hint))
		}
	}
	params := make(map[string]any, len(spec))
	for _, p := range m.ConfigSpec {
		v, ok := config[p.Key]
		ptr := "/config/" + p.Key
		if !ok || v == nil {
			v = p.DefaultValue
			ptr = ""
			if v == nil {
				probs = append(probs, problem("/config", "missing parameter %q: methodology %q gives it no default_value", p.Key, m.Key))
				continue
			}
		}
		v = normalise(v)
		if msg := checkValue(&p, v); msg != "" {
			if ptr == "" {
				probs = append(probs, problem("/config", "default of %q in methodology %q %s", p.Key, m.Key, msg))
			} else {
				probs = append(probs, problem(ptr, "%s", msg))
			}
			continue
		}
		if p.Type == model.ParamCategorical {
			v = p.ValuesMapping[v.(string)]
		}
		params[p.Key] = v
	}
	return params, probs
}

// normalise turns the integer types a YAML or JSON decoder produces into
// float64, the one number type formulas see.
func normalise(v any) any {
	switch x := v.(type) {
	case int:
		return float64(x)
	case int64:
		return float64(x)
	}
	return v
}

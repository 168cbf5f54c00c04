// Package risk turns metric values into risk scores: it compiles a
// methodology's function, checks methodologies and risk scorers against each
// other, and computes each risk scorer's score and level from the latest
// evaluation runs in its scope.
package risk

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/parser"
	"github.com/expr-lang/expr/vm"

	"github.com/lfcli/lf/pkg/model"
)

// Functions a methodology's function may call besides expr's builtins
// (abs, ceil, floor, round, min, max, ...). Arguments are numbers.
var mathFuncs = map[string]func(float64) float64{
	"sqrt":  math.Sqrt,
	"log":   math.Log,
	"log10": math.Log10,
	"exp":   math.Exp,
}

func numArg(p any) (float64, error) {
	switch x := p.(type) {
	case float64:
		return x, nil
	case int:
		return float64(x), nil
	case int64:
		return float64(x), nil
	}
	return 0, fmt.Errorf("expected a number, got %T", p)
}

func twoNums(params []any) (float64, float64, error) {
	x, err := numArg(params[0])
	if err != nil {
		return 0, 0, err
	}
	y, err := numArg(params[1])
	return x, y, err
}

func funcOptions() []expr.Option {
	var opts []expr.Option
	names := make([]string, 0, len(mathFuncs))
	for n := range mathFuncs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fn := mathFuncs[n]
		opts = append(opts, expr.Function(n, func(params ...any) (any, error) {
			x, err := numArg(params[0])
			if err != nil {
				return nil, err
			}
			return fn(x), nil
		}, new(func(float64) float64)))
	}
	opts = append(opts,
		expr.Function("pow", func(params ...any) (any, error) {
			x, y, err := twoNums(params)
			if err != nil {
				return nil, err
			}
			return math.Pow(x, y), nil
		}, new(func(float64, float64) float64)),
		// Python's % and // on floats (expr's % takes only integers, and
		// its lexer reads // as a comment: prepare marks it).
		expr.Function("fmod", func(params ...any) (any, error) {
			x, y, err := twoNums(params)
			if err != nil {
				return nil, err
			}
			_, mod, err := pyDivmod(x, y)
			if err != nil {
				return nil, fmt.Errorf("%% by zero: %w", err)
			}
			return mod, nil
		}, new(func(float64, float64) float64)),
		expr.Function("floordiv", func(params ...any) (any, error) {
			x, y, err := twoNums(params)
			if err != nil {
				return nil, err
			}
			div, _, err := pyDivmod(x, y)
			if err != nil {
				return nil, fmt.Errorf("// by zero: %w", err)
			}
			return div, nil
		}, new(func(float64, float64) float64)),
		// Python's round: ties to even, with optional ndigits.
		expr.Function("round", func(params ...any) (any, error) {
			x, err := numArg(params[0])
			if err != nil {
				return nil, err
			}
			if len(params) == 1 {
				return pyRound(x)
			}
			n, err := numArg(params[1])
			if err != nil {
				return nil, err
			}
			return pyRound(x, n)
		}, new(func(float64) float64), new(func(float64, float64) float64)),
		expr.Operator("%", "fmod"),
		expr.Function("clamp", func(params ...any) (any, error) {
			var v [3]float64
			for i := range v {
				x, err := numArg(params[i])
				if err != nil {
					return nil, err
				}
				v[i] = x
			}
			return math.Min(math.Max(v[0], v[1]), v[2]), nil
		}, new(func(float64, float64, float64) float64)),
	)
	return opts
}

// AllowedFunctions are the functions a methodology's function may call, as
// docs/projects.md documents them: expr's abs, ceil, floor, round, min and max, and
// the ones funcOptions adds. Anything else (now, len, upper, a method call)
// would make a score depend on more than the metric and the config.
var AllowedFunctions = []string{"abs", "ceil", "clamp", "exp", "floor", "log", "log10", "max", "min", "pow", "round", "sqrt"}

// checkCalls returns an error naming the first call in tree of a function
// outside AllowedFunctions.
func checkCalls(tree *parser.Tree) error {
	c := &callChecker{}
	ast.Walk(&tree.Node, c)
	return c.err
}

type callChecker struct{ err error }

func (c *callChecker) Visit(n *ast.Node) {
	if c.err != nil {
		return
	}
	var name string
	switch x := (*n).(type) {
	case *ast.BuiltinNode:
		name = x.Name
	case *ast.CallNode:
		id, ok := x.Callee.(*ast.IdentifierNode)
		if !ok {
			c.err = fmt.Errorf("function calls a method, which is not allowed: use only %s", strings.Join(AllowedFunctions, ", "))
			return
		}
		name = id.Value
	default:
		return
	}
	for _, a := range AllowedFunctions {
		if a == name {
			return
		}
	}
	c.err = fmt.Errorf("function calls %q, which is not allowed: use only %s", name, strings.Join(AllowedFunctions, ", "))
}

// floatLiterals turns integer literals into float literals: numbers in a
// function are floats, so 7 % 2 and value % 2 both take Python's float %.
type floatLiterals struct{}

func (floatLiterals) Visit(n *ast.Node) {
	if i, ok := (*n).(*ast.IntegerNode); ok {
		ast.Patch(n, &ast.FloatNode{Value: float64(i.Value)})
	}
}

// Variables returns the variable names a function uses (not the functions it
// calls), sorted, or the parse error.
func Variables(function string) ([]string, error) {
	src, _, err := prepare(function)
	if err != nil {
		return nil, err
	}
	tree, err := parser.Parse(src)
	if err != nil {
		return nil, err
	}
	c := &identCollector{vars: map[string]bool{}, callees: map[ast.Node]bool{}}
	ast.Walk(&tree.Node, c)
	var out []string
	for v := range c.vars {
		out = append(out, v)
	}
	sort.Strings(out)
	return out, nil
}

type identCollector struct {
	vars    map[string]bool
	callees map[ast.Node]bool
}

func (c *identCollector) Visit(n *ast.Node) {
	switch x := (*n).(type) {
	case *ast.CallNode:
		c.callees[x.Callee] = true
		if id, ok := x.Callee.(*ast.IdentifierNode); ok {
			delete(c.vars, id.Value)
		}
	case *ast.IdentifierNode:
		if !c.callees[x] && x.Value != "True" && x.Value != "False" {
			c.vars[x.Value] = true
		}
	}
}

// Formula is a compiled methodology function.
type Formula struct {
	source    string // the function in expr's spelling
	floorAt   map[int]bool
	metricVar string
}

// Compile compiles m.Function for the types its config_spec declares. All
// config_spec parameters are numbers except boolean (bool) and string
// (string); categorical parameters reach the function through values_mapping,
// as numbers.
func Compile(m *model.Methodology) (*Formula, error) {
	env := map[string]any{m.MetricVar(): 0.0}
	for _, p := range m.ConfigSpec {
		switch p.Type {
		case model.ParamBoolean:
			env[p.Key] = false
		case model.ParamString:
			env[p.Key] = ""
		default:
			env[p.Key] = 0.0
		}
	}
	src, floorAt, err := prepare(m.Function)
	if err != nil {
		return nil, err
	}
	tree, err := parser.Parse(src)
	if err != nil {
		return nil, errors.New(firstLine(err.Error()))
	}
	if err := checkCalls(tree); err != nil {
		return nil, err
	}
	opts := append([]expr.Option{expr.Env(env), expr.AsFloat64(), expr.Patch(floorDivPatch{floorAt}), expr.Patch(floatLiterals{})}, funcOptions()...)
	if _, err := expr.Compile(src, opts...); err != nil {
		return nil, errors.New(firstLine(err.Error()))
	}
	return &Formula{source: src, floorAt: floorAt, metricVar: m.MetricVar()}, nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// Evaluator evaluates a formula repeatedly with fixed parameters; it is not
// safe for concurrent use.
type Evaluator struct {
	program *vm.Program
	env     *metricEnv
	vm      vm.VM
}

// metricEnv is the whole environment of a bound formula: the parameters are
// compiled in as constants, so only the metric value changes per call and no
// map is built or hashed per value.
type metricEnv struct {
	V float64
}

// constParams replaces parameter identifiers with their values and the metric
// variable with the V field of metricEnv.
type constParams struct {
	params    map[string]any
	metricVar string
}

func (c *constParams) Visit(n *ast.Node) {
	id, ok := (*n).(*ast.IdentifierNode)
	if !ok {
		return
	}
	if id.Value == c.metricVar {
		ast.Patch(n, &ast.IdentifierNode{Value: "V"})
		return
	}
	switch v := c.params[id.Value].(type) {
	case float64:
		ast.Patch(n, &ast.FloatNode{Value: v})
	case bool:
		ast.Patch(n, &ast.BoolNode{Value: v})
	case string:
		ast.Patch(n, &ast.StringNode{Value: v})
	}
}

// Bind fixes the parameter values (as resolved by Params) and compiles the
// function for them.
func (f *Formula) Bind(params map[string]any) (*Evaluator, error) {
	opts := append([]expr.Option{
		expr.Env(metricEnv{}),
		expr.AsFloat64(),
		expr.Patch(floorDivPatch{f.floorAt}),
		expr.Patch(&constParams{params: params, metricVar: f.metricVar}),
		expr.Patch(floatLiterals{}),
	}, funcOptions()...)
	prog, err := expr.Compile(f.source, opts...)
	if err != nil {
		return nil, errors.New(firstLine(err.Error()))
	}
	return &Evaluator{program: prog, env: &metricEnv{}}, nil
}

// Eval returns the function's value for one metric value.
func (e *Evaluator) Eval(metric float64) (float64, error) {
	e.env.V = metric
	out, err := e.vm.Run(e.program, e.env)
	if err != nil {
		return 0, errors.New(firstLine(err.Error()))
	}
	v, ok := out.(float64)
	if !ok {
		return 0, fmt.Errorf("function returned %T, not a number", out)
	}
	return v, nil
}

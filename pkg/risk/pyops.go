package risk

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"unicode/utf8"

	"github.com/expr-lang/expr/ast"
)

// expr's lexer reads `//` and `/* */` as comments, so `value // 2 + 100`
// would silently lose its right-hand side. A methodology function is
// Python-like arithmetic: `//` is Python's floor division and a comment of
// either language is an error. The scan below runs before expr's parser and
// skips string literals as expr's lexer does ('...', "..." with backslash
// escapes, `...` raw).

// CommentError is a comment found in a function, at a 1-based line and
// column (in characters) of the function text.
type CommentError struct {
	Line, Column int
	Text         string // "/*" or "#"
}

func (e *CommentError) Error() string {
	at := fmt.Sprintf("column %d", e.Column)
	if e.Line > 1 {
		at = fmt.Sprintf("line %d, column %d", e.Line, e.Column)
	}
	return fmt.Sprintf("function has a comment (%q at %s of the function): comments are not allowed in a function", e.Text, at)
}

// scanOps walks s outside string literals. It returns the character (rune)
// offsets of every `//` operator, or a *CommentError for the first `/*` or
// `#` found.
func scanOps(s string) ([]int, error) {
	var floorAt []int
	line, col := 1, 0
	for i, r := 0, 0; i < len(s); {
		c := s[i]
		_, size := utf8.DecodeRuneInString(s[i:])
		col++
		switch {
		case c == '\n':
			line, col = line+1, 0
		case c == '"' || c == '\'' || c == '`':
			j := skipLiteral(s, i)
			for k := i + size; k < j; {
				rr, sz := utf8.DecodeRuneInString(s[k:])
				if rr == '\n' {
					line, col = line+1, 0
				} else {
					col++
				}
				k += sz
				r++
			}
			r++
			i = j
			continue
		case c == '#':
			return nil, &CommentError{Line: line, Column: col, Text: "#"}
		case c == '/' && i+1 < len(s) && s[i+1] == '*':
			return nil, &CommentError{Line: line, Column: col, Text: "/*"}
		case c == '/' && i+1 < len(s) && s[i+1] == '/':
			floorAt = append(floorAt, r)
			i, r, col = i+2, r+2, col+1
			continue
		}
		i += size
		r++
	}
	return floorAt, nil
}

// skipLiteral returns the byte index just after the string literal opening
// at i (the end of s if it is not closed; the parser reports that).
func skipLiteral(s string, i int) int {
	q := s[i]
	for j := i + 1; j < len(s); j++ {
		if s[j] == '\\' && q != '`' {
			j++
			continue
		}
		if s[j] == q {
			return j + 1
		}
	}
	return len(s)
}

// prepare turns a methodology function into expr's spelling: Python's
// conditional expressions and True/False (pythonish), and every `//` into
// `/ ` (same length, so offsets hold) whose position is returned, for
// floorDivPatch to turn into a call of floordiv.
func prepare(function string) (string, map[int]bool, error) {
	if _, err := scanOps(function); err != nil {
		return "", nil, err
	}
	src := pythonish(function)
	offs, err := scanOps(src)
	if err != nil {
		return "", nil, err
	}
	if len(offs) == 0 {
		return src, nil, nil
	}
	at := make(map[int]bool, len(offs))
	runes := []rune(src)
	for _, o := range offs {
		at[o] = true
		runes[o+1] = ' '
	}
	return string(runes), at, nil
}

// floorDivPatch replaces the `/` nodes prepare marked with floordiv calls.
type floorDivPatch struct{ at map[int]bool }

func (p floorDivPatch) Visit(n *ast.Node) {
	b, ok := (*n).(*ast.BinaryNode)
	if !ok || b.Operator != "/" || !p.at[b.Location().From] {
		return
	}
	ast.Patch(n, &ast.CallNode{
		Callee:    &ast.IdentifierNode{Value: "floordiv"},
		Arguments: []ast.Node{b.Left, b.Right},
	})
}

var errZeroDivision = errors.New("division by zero")

// pyDivmod is Python's divmod on floats (CPython's float floor division and
// remainder): the remainder has the sign of the divisor, and the quotient is
// floored, corrected where the floating-point division rounded across an
// integer (1 // 0.1 is 9.0 in Python, while floor(1 / 0.1) is 10).
func pyDivmod(x, y float64) (div, mod float64, err error) {
	if y == 0 {
		return 0, 0, errZeroDivision
	}
	mod = math.Mod(x, y)
	div = (x - mod) / y
	if mod != 0 {
		if (y < 0) != (mod < 0) {
			mod += y
			div--
		}
	} else {
		mod = math.Copysign(0, y)
	}
	if div != 0 {
		f := math.Floor(div)
		if div-f > 0.5 {
			f++
		}
		div = f
	} else {
		div = math.Copysign(0, x/y)
	}
	return div, mod, nil
}

// pyRound is Python's round(x, ndigits) on a float: x rounded to ndigits
// decimal places (negative: tens, hundreds, ...) with ties to even, exactly
// on the binary value (round(2.675, 2) is 2.67, as 2.675 is stored a little
// below it). Without ndigits it is round-half-to-even to a whole number.
func pyRound(x float64, ndigits ...float64) (float64, error) {
	if len(ndigits) == 0 {
		return math.RoundToEven(x), nil
	}
	nd := ndigits[0]
	if nd != math.Trunc(nd) || math.IsInf(nd, 0) {
		return 0, fmt.Errorf("round: ndigits must be a whole number, not %v", nd)
	}
	if math.IsNaN(x) || math.IsInf(x, 0) || x == 0 {
		return x, nil
	}
	// CPython's bounds: beyond them the result is x itself, or a signed zero.
	switch {
	case nd > 323:
		return x, nil
	case nd < -308:
		return math.Copysign(0, x), nil
	}
	n := int64(nd)
	pow := new(big.Int).Exp(big.NewInt(10), big.NewInt(abs64(n)), nil)
	r := new(big.Rat).SetFloat64(x)
	if n >= 0 {
		r.Mul(r, new(big.Rat).SetInt(pow))
	} else {
		r.Quo(r, new(big.Rat).SetInt(pow))
	}
	q := roundHalfEven(r)
	out := new(big.Rat).SetInt(q)
	if n >= 0 {
		out.Quo(out, new(big.Rat).SetInt(pow))
	} else {
		out.Mul(out, new(big.Rat).SetInt(pow))
	}
	f, _ := out.Float64()
	if f == 0 {
		f = math.Copysign(0, x)
	}
	if math.IsInf(f, 0) {
		return 0, errors.New("round: result too large")
	}
	return f, nil
}

func abs64(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

// roundHalfEven rounds r to the nearest integer, ties to the even one.
func roundHalfEven(r *big.Rat) *big.Int {
	num, den := r.Num(), r.Denom()
	q, m := new(big.Int).QuoRem(num, den, new(big.Int)) // truncated toward zero
	twice := new(big.Int).Mul(new(big.Int).Abs(m), big.NewInt(2))
	switch twice.Cmp(den) {
	case 1:
		q.Add(q, big.NewInt(int64(num.Sign())))
	case 0:
		if q.Bit(0) == 1 {
			q.Add(q, big.NewInt(int64(num.Sign())))
		}
	}
	return q
}

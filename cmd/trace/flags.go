package main

import (
	"errors"
	"fmt"
	"io"
	"math/big"
	"runtime"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
)

// parseFlags parses a command's args: --help prints the command's usage
// and gives errHelp; a mistake gives one usage error line that names the
// flag, suggests the flag that was probably meant and points to --help,
// without the whole usage text.
func parseFlags(fs *pflag.FlagSet, args []string) error {
	out, usage := fs.Output(), fs.Usage
	fs.SetOutput(io.Discard) // pflag would print the error and the usage
	fs.Usage = func() {}
	err := fs.Parse(args)
	fs.SetOutput(out)
	fs.Usage = usage
	switch {
	case err == nil:
		return nil
	case errors.Is(err, pflag.ErrHelp):
		if usage != nil {
			usage()
		}
		return errHelp
	}
	return usageError{flagError(fs, err)}
}

// flagError rewrites one of pflag's parse errors for a person.
func flagError(fs *pflag.FlagSet, err error) error {
	help := fmt.Sprintf("'trace %s --help' lists the flags", fs.Name())
	if e, ok := errors.AsType[*pflag.NotExistError](err); ok {
		name := e.GetSpecifiedName()
		if name == "" {
			return fmt.Errorf("unknown flag -%s (%s)", e.GetSpecifiedShortnames(), help)
		}
		var names []string
		fs.VisitAll(func(f *pflag.Flag) {
			if !f.Hidden {
				names = append(names, f.Name)
			}
		})
		if s := suggest(name, names); s != "" {
			return fmt.Errorf("unknown flag --%s: did you mean --%s? (%s)", name, s, help)
		}
		return fmt.Errorf("unknown flag --%s (%s)", name, help)
	}
	if e, ok := errors.AsType[*pflag.InvalidValueError](err); ok {
		f := e.GetFlag()
		want := map[string]string{
			"int": "a whole number", "int64": "a whole number", "uint64": "a whole number",
			"float64": "a number", "bool": "true or false", "duration": "a duration such as 30s or 5m",
			"bytes": "a number of bytes such as 1073741824, 2GiB, 1.5GB or 500 MB, the unit one of " + byteUnitsHelp,
		}[f.Value.Type()]
		if want == "" {
			want = "a " + f.Value.Type()
		}
		return fmt.Errorf("--%s %q: want %s", f.Name, e.GetValue(), want)
	}
	if e, ok := errors.AsType[*pflag.ValueRequiredError](err); ok {
		f := e.GetFlag()
		return fmt.Errorf("--%s needs a value (%s)", f.Name, help)
	}
	return fmt.Errorf("%v (%s)", err, help)
}

// suggest returns the candidate nearest to word, when it is near enough
// to be a typo of it (an edit distance of at most a third of its length,
// and at most 3), or "".
func suggest(word string, candidates []string) string {
	best, bestD := "", 0
	for _, c := range candidates {
		d := editDistance(strings.ToLower(word), strings.ToLower(c))
		if best == "" || d < bestD {
			best, bestD = c, d
		}
	}
	if best == "" || bestD > min(3, max(1, len(word)/3)) {
		return ""
	}
	return best
}

// editDistance is the Damerau–Levenshtein distance (optimal string
// alignment) between a and b: insertions, deletions, substitutions and
// swaps of neighbours each count one.
func editDistance(a, b string) int {
	x, y := []rune(a), []rune(b)
	d := make([][]int, len(x)+1)
	for i := range d {
		d[i] = make([]int, len(y)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(x); i++ {
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(x)][len(y)]
}

// maxThreads bounds --threads: threads past the machine's cores only cost
// memory and start-up (a typo of 100000000 took 49 s for a 64×48 frame),
// and no machine has this many.
const maxThreads = 4096

// checkThreads refuses a --threads past maxThreads.
func checkThreads(n int) error {
	if n > maxThreads {
		return usagef("--threads %d: at most %d (this machine has %d CPUs)", n, maxThreads, runtime.NumCPU())
	}
	return nil
}

// byteSize is a flag's number of bytes: a whole number, or a number with
// a unit (byteUnits), as in 2GiB, "500 MB" or 1.5gib. Units are read in
// any case: kB, KB and kb are all 1000 bytes, a flag of bytes having no
// use for bits. A bare K, M or G is refused, as it could be either kind.
// A decimal is rounded to the nearest byte (0.1KiB is 102 bytes).
type byteSize int64

// byteUnits are byteSize's units, the binary ones first, the largest of
// each kind first; names are as written in messages.
var byteUnits = []struct {
	name string
	n    int64
}{
	{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10},
	{"TB", 1e12}, {"GB", 1e9}, {"MB", 1e6}, {"kB", 1e3}, {"B", 1},
}

// byteUnitsHelp lists byteSize's units for messages.
const byteUnitsHelp = "B, kB, MB, GB, TB (powers of 1000) or KiB, MiB, GiB, TiB (powers of 1024), in any case"

// bytesFlag defines a flag of bytes (byteSize) on fs.
func bytesFlag(fs *pflag.FlagSet, name string, value int64, usage string) *int64 {
	b := byteSize(value)
	fs.Var(&b, name, usage)
	return (*int64)(&b)
}

func (b *byteSize) Type() string { return "bytes" }

// String is the size in the largest binary unit it is a whole number of
// (2GiB), else in bytes.
func (b *byteSize) String() string {
	for _, u := range byteUnits[:4] {
		if *b != 0 && int64(*b)%u.n == 0 {
			return strconv.FormatInt(int64(*b)/u.n, 10) + u.name
		}
	}
	return strconv.FormatInt(int64(*b), 10)
}

func (b *byteSize) Set(s string) error {
	num, unit := strings.TrimSpace(s), int64(1)
	if i := strings.LastIndexFunc(num, func(r rune) bool { return r >= '0' && r <= '9' || r == '.' || r == ' ' }); i+1 < len(num) {
		name := num[i+1:]
		num, unit = strings.TrimSpace(num[:i+1]), 0
		for _, u := range byteUnits {
			if strings.EqualFold(name, u.name) {
				unit = u.n
			}
		}
		if unit == 0 {
			return fmt.Errorf("%q: unknown unit %q: want %s", s, name, byteUnitsHelp)
		}
	}
	n, ok := decimalBytes(num, unit)
	if !ok {
		return fmt.Errorf("%q: not a number of bytes", s)
	}
	*b = byteSize(n)
	return nil
}

// decimalBytes returns num (digits, a sign and a decimal point allowed)
// times unit, rounded to the nearest whole number (halves away from zero);
// false when num is not such a number or the product overflows int64.
func decimalBytes(num string, unit int64) (int64, bool) {
	digits := strings.TrimPrefix(num, "-")
	whole, frac, _ := strings.Cut(digits, ".")
	if whole+frac == "" || strings.Trim(whole+frac, "0123456789") != "" {
		return 0, false
	}
	r, ok := new(big.Rat).SetString(num)
	if !ok {
		return 0, false
	}
	r.Mul(r, new(big.Rat).SetInt64(unit))
	// Round half away from zero: (2·num + den) / (2·den), truncated, for
	// a positive value.
	n, d := new(big.Int).Abs(r.Num()), r.Denom()
	n.Add(n.Lsh(n, 1), d)
	n.Quo(n, new(big.Int).Lsh(d, 1))
	if r.Sign() < 0 {
		n.Neg(n)
	}
	if !n.IsInt64() {
		return 0, false
	}
	return n.Int64(), true
}

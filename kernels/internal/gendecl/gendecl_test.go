package main

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// header is the committed header, beside the kernel source.
const header = "../../scene_gen.h"

// TestHeaderIsFresh: the committed scene_gen.h is what gendecl writes
// from the Go types today, so a Go struct, kind or limit changed without
// `go generate ./kernels/...` fails here (and in make check-gen).
func TestHeaderIsFresh(t *testing.T) {
	want, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(header)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
		i := 0
		for i < min(len(g), len(w)) && g[i] == w[i] {
			i++
		}
		line := func(l []string) string {
			if i < len(l) {
				return l[i]
			}
			return "(end of file)"
		}
		t.Fatalf("kernels/scene_gen.h is stale: run 'go generate ./kernels/...' (make gen) and commit it.\n"+
			"line %d: committed %q, generated %q", i+1, line(g), line(w))
	}
}

// TestStaticAssertsCatchDrift: the header's static assertions turn a C
// struct that no longer has the Go layout into a compile error that names
// the field, and the header as generated compiles. The mutations are what
// a hand edit of the header (or a C compiler with other ideas about
// layout) would do.
func TestStaticAssertsCatchDrift(t *testing.T) {
	h, err := os.ReadFile(header)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, old, new string
		want           string // in the compiler's message; "" for a clean compile
	}{
		{"as generated", "", "", ""},
		{"a field retyped", "    u16 Count;\n", "    u32 Count;\n", "BVHNode.Count: 2 bytes at 28"},
		{"two fields swapped", "    float Intensity;\n    float IOR;\n", "    float IOR;\n    float Intensity;\n", "Material.Intensity: 4 bytes at 20"},
		{"a field dropped", "    float LightPDF;\n", "", "LightPDF"},
		{"a field added", "    float Area;\n", "    float Area;\n    u32 Extra;\n", "Shape.P0: 12 bytes at 12"},
		{"a narrower field before padding", "    u64 Seed;\n", "    u32 Seed;\n", "TraceScene.Seed: 8 bytes at 80"},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := string(h)
			if c.old != "" {
				if strings.Count(src, c.old) != 1 {
					t.Fatalf("%q is not once in the header", c.old)
				}
				src = strings.Replace(src, c.old, c.new, 1)
			}
			out, err := compileHeader(t, src)
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("the generated header does not compile: %v\n%s", err, out)
			case c.want != "" && err == nil:
				t.Fatalf("compiled; want an error naming %q", c.want)
			case !strings.Contains(out, c.want):
				t.Fatalf("the compiler's message does not name %q:\n%s", c.want, out)
			}
		})
	}
}

// compileHeader compiles scene.h, as the emulator does (C11), with src
// as its scene_gen.h, and returns the compiler's output.
func compileHeader(t *testing.T, src string) (string, error) {
	t.Helper()
	dir := t.TempDir()
	for _, f := range []string{"port.h", "scene.h"} {
		b, err := os.ReadFile(filepath.Join("../..", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "scene_gen.h"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cc := "cc"
	if b, err := exec.Command("go", "env", "CC").Output(); err == nil && strings.TrimSpace(string(b)) != "" {
		cc = strings.TrimSpace(string(b))
	}
	out, err := exec.Command(cc, "-std=c11", "-fsyntax-only", "-Wall", "-x", "c", filepath.Join(dir, "scene.h")).CombinedOutput()
	return string(out), err
}

// checkSource type-checks one file of package p written to a temporary
// folder (declGroup reads the file again).
func checkSource(t *testing.T, src string) (*token.FileSet, *types.Package) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "p.go")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	pkg, err := (&types.Config{}).Check("p", fset, []*ast.File{f}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return fset, pkg
}

// TestEnumGroup: an enumeration is every constant of its type in order
// and its count sentinel, declared in Go or made here; a sentinel that
// is not the last kind is refused, so that a kind added after it cannot
// pass a bound check unseen.
func TestEnumGroup(t *testing.T) {
	for _, c := range []struct {
		name, src string
		names     []string
		vals      []int64
		err       string
	}{
		{"declared sentinel", "type K uint32\nconst (\n\tA K = iota\n\tB\n\tC\n\tNumKs\n)\n",
			[]string{"A", "B", "C", "NumKs"}, []int64{0, 1, 2, 3}, ""},
		{"sentinel made here", "type K uint32\nconst (\n\tA K = iota\n\tB\n)\nconst Z K = 7\nconst hidden K = 9\n",
			[]string{"A", "B", "Z", "NumKs"}, []int64{0, 1, 7, 8}, ""},
		{"a kind after the sentinel", "type K uint32\nconst (\n\tA K = iota\n\tNumKs\n\tB\n)\n",
			nil, nil, "p.NumKs must be the last K"},
		{"no constants", "type K uint32\n", nil, nil, "has no constants"},
		{"a kind too large for C", "type K uint64\nconst (\n\tA K = iota\n\tB K = 1 << 40\n)\n", nil, nil, "p.B = 1099511627776 is not an integer of 32 bits"},
		{"not a type", "const K = 1\n", nil, nil, "is not a type"},
	} {
		t.Run(c.name, func(t *testing.T) {
			fset, pkg := checkSource(t, "package p\n\n"+c.src)
			g, err := enumGroup(fset, pkg, goName{"p", "K"})
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want one with %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(g.names, c.names) || !slices.Equal(g.vals, c.vals) {
				t.Errorf("got %v = %v, want %v = %v", g.names, g.vals, c.names, c.vals)
			}
		})
	}
}

// TestDeclGroup: a constant group is every constant of the Go declaration
// that holds the named one, whatever their types, and nothing else.
func TestDeclGroup(t *testing.T) {
	fset, pkg := checkSource(t, `package p

const Before = 9

const (
	LeafA uint16 = 0
	LeafB uint16 = 1
	_            = 5
	LeafC        = -1
)

const After = 3
`)
	g, err := declGroup(fset, pkg, goName{"p", "LeafB"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"LeafA", "LeafB", "LeafC"}; !slices.Equal(g.names, want) || !slices.Equal(g.vals, []int64{0, 1, -1}) {
		t.Errorf("got %v = %v, want %v = [0 1 -1]", g.names, g.vals, want)
	}
	if _, err := declGroup(fset, pkg, goName{"p", "Missing"}); err == nil {
		t.Error("a missing constant gave no error")
	}
}

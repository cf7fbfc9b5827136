package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/constant"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"slices"

	"github.com/tracerender/trace/kernels"
	"github.com/tracerender/trace/tracer"
)

// The import paths of the packages whose declarations the header mirrors.
var (
	tracerPath  = reflect.TypeOf(tracer.Scene{}).PkgPath()
	kernelsPath = reflect.TypeOf(kernels.TraceScene{}).PkgPath()
)

// goName names a declaration of package tracer or package kernels.
type goName struct {
	pkg  string // an import path: tracerPath or kernelsPath
	name string
}

func (n goName) String() string { return path.Base(n.pkg) + "." + n.name }

// enumTypes are the Go types of the kinds and modes the kernel tells
// apart. Each becomes one C enumeration: every exported constant of the
// type, in the order of declaration, then its count sentinel, Num<Type>s, above
// every kind. A type may declare the sentinel itself as its last
// constant (the bound checks in Go use it); the others get it here.
var enumTypes = []goName{
	{tracerPath, "Integrator"},
	{tracerPath, "BackgroundKind"},
	{tracerPath, "Falloff"},
	{tracerPath, "MaterialKind"},
	{tracerPath, "TextureKind"},
	{tracerPath, "ShapeKind"},
	{tracerPath, "HitKind"},
	{tracerPath, "Wrap"},
	{tracerPath, "Filter"},
	{tracerPath, "AlphaMode"},
}

// constGroups are the kernel's other constants, each named by one member
// of its Go const declaration: every constant of that declaration is
// written, so that a constant added to it needs no edit here.
var constGroups = []goName{
	{tracerPath, "LeafTriangles"},  // BVHNode.Info of a leaf
	{tracerPath, "TriangleSmooth"}, // TriangleAttr.Flags bits
	{tracerPath, "LightLeaf"},      // LightNode.Flags bits
	{tracerPath, "NoTexture"},
	{tracerPath, "MaxAlphaPasses"},
	{kernelsPath, "MaxDepth"}, // and BVHStackSize
}

// constGroup is one C enumeration of the header.
type constGroup struct {
	from  string // where its Go declaration is, for the comment
	names []string
	vals  []int64
	note  string // a comment on the last constant, or ""
}

func (g *constGroup) writeC(b *bytes.Buffer) {
	fmt.Fprintf(b, "/* %s */\nenum {\n", g.from)
	for i, n := range g.names {
		sep := ","
		if i == len(g.names)-1 {
			sep = ""
		}
		fmt.Fprintf(b, "    %s = %d%s", n, g.vals[i], sep)
		if i == len(g.names)-1 && g.note != "" {
			fmt.Fprintf(b, " /* %s */", g.note)
		}
		b.WriteString("\n")
	}
	b.WriteString("};\n\n")
}

// loadPackages type-checks package tracer and package kernels from
// source, for their constants and the files of their declarations.
func loadPackages() (*token.FileSet, map[string]*types.Package, error) {
	fset := token.NewFileSet()
	imp, ok := importer.ForCompiler(fset, "source", nil).(types.ImporterFrom)
	if !ok {
		return nil, nil, fmt.Errorf("the source importer cannot import from a directory")
	}
	dir, err := os.Getwd()
	if err != nil {
		return nil, nil, err
	}
	pkgs := map[string]*types.Package{}
	for _, p := range []string{tracerPath, kernelsPath} {
		if pkgs[p], err = imp.ImportFrom(p, dir, 0); err != nil {
			return nil, nil, fmt.Errorf("type-checking %s: %w", p, err)
		}
	}
	return fset, pkgs, nil
}

// loadConsts returns the header's enumerations: enumTypes, then
// constGroups.
func loadConsts(fset *token.FileSet, pkgs map[string]*types.Package) ([]constGroup, error) {
	var groups []constGroup
	for _, e := range enumTypes {
		g, err := enumGroup(fset, pkgs[e.pkg], e)
		if err != nil {
			return nil, err
		}
		groups = append(groups, g)
	}
	for _, c := range constGroups {
		g, err := declGroup(fset, pkgs[c.pkg], c)
		if err != nil {
			return nil, err
		}
		groups = append(groups, g)
	}
	return groups, nil
}

// enumGroup returns the constants of the enum type e, closed by its count
// sentinel.
func enumGroup(fset *token.FileSet, pkg *types.Package, e goName) (constGroup, error) {
	tn, ok := pkg.Scope().Lookup(e.name).(*types.TypeName)
	if !ok {
		return constGroup{}, fmt.Errorf("%s is not a type", e)
	}
	var cs []*types.Const
	for _, n := range pkg.Scope().Names() {
		if c, ok := pkg.Scope().Lookup(n).(*types.Const); ok && c.Exported() && types.Identical(c.Type(), tn.Type()) {
			cs = append(cs, c)
		}
	}
	slices.SortFunc(cs, func(a, b *types.Const) int { return int(a.Pos() - b.Pos()) })
	if len(cs) == 0 {
		return constGroup{}, fmt.Errorf("%s has no constants", e)
	}
	g := constGroup{from: fmt.Sprintf("%s (%s)", e, sourceFile(fset, tn.Pos()))}
	for _, c := range cs {
		v, err := intValue(c)
		if err != nil {
			return constGroup{}, err
		}
		g.names = append(g.names, c.Name())
		g.vals = append(g.vals, v)
	}
	sentinel := "Num" + e.name + "s"
	last := len(g.names) - 1
	if i := slices.Index(g.names, sentinel); i >= 0 {
		if i != last || slices.Max(g.vals[:last]) >= g.vals[last] {
			return constGroup{}, fmt.Errorf("%s.%s must be the last %s and above every other (declare new kinds before it)",
				path.Base(e.pkg), sentinel, e.name)
		}
		return g, nil
	}
	g.names = append(g.names, sentinel)
	g.vals = append(g.vals, slices.Max(g.vals)+1)
	g.note = "one more than every " + e.name
	return g, nil
}

// declGroup returns every constant of the const declaration that declares
// c.
func declGroup(fset *token.FileSet, pkg *types.Package, c goName) (constGroup, error) {
	obj, ok := pkg.Scope().Lookup(c.name).(*types.Const)
	if !ok {
		return constGroup{}, fmt.Errorf("%s is not a constant", c)
	}
	pos := fset.Position(obj.Pos())
	// The importer keeps no syntax: parse the file again to find the
	// declaration.
	f, err := parser.ParseFile(token.NewFileSet(), pos.Filename, nil, parser.SkipObjectResolution)
	if err != nil {
		return constGroup{}, err
	}
	g := constGroup{from: fmt.Sprintf("%s and the constants declared with it (%s)", c, sourceFile(fset, obj.Pos()))}
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST || !declares(gd, c.name) {
			continue
		}
		for _, s := range gd.Specs {
			for _, id := range s.(*ast.ValueSpec).Names {
				if id.Name == "_" {
					continue
				}
				k, ok := pkg.Scope().Lookup(id.Name).(*types.Const)
				if !ok {
					return constGroup{}, fmt.Errorf("%s: %s is not a package constant", c, id.Name)
				}
				v, err := intValue(k)
				if err != nil {
					return constGroup{}, err
				}
				g.names = append(g.names, id.Name)
				g.vals = append(g.vals, v)
			}
		}
		return g, nil
	}
	return constGroup{}, fmt.Errorf("%s: no const declaration of it in %s", c, pos.Filename)
}

// declares reports whether the declaration d declares name.
func declares(d *ast.GenDecl, name string) bool {
	for _, s := range d.Specs {
		for _, id := range s.(*ast.ValueSpec).Names {
			if id.Name == name {
				return true
			}
		}
	}
	return false
}

// intValue returns the value of an integer constant that fits in a C int,
// the type of a C enumeration constant.
func intValue(c *types.Const) (int64, error) {
	v, exact := constant.Int64Val(constant.ToInt(c.Val()))
	if !exact || v < -1<<31 || v >= 1<<31 {
		return 0, fmt.Errorf("%s.%s = %s is not an integer of 32 bits", c.Pkg().Name(), c.Name(), c.Val())
	}
	return v, nil
}

// sourceFile returns the module-relative path of the file that holds pos,
// "tracer/desc.go".
func sourceFile(fset *token.FileSet, pos token.Pos) string {
	file := fset.Position(pos).Filename
	return filepath.Base(filepath.Dir(file)) + "/" + filepath.Base(file)
}

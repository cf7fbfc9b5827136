package main

import (
	"bytes"
	"fmt"
	"go/token"
	"go/types"
	"path"
	"reflect"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/tracerender/trace/kernels"
)

// vec3Type is mgl32.Vec3, the kernel's vec3 (scene.h declares it, with
// members x, y and z).
var vec3Type = reflect.TypeOf(mgl32.Vec3{})

// cstruct is one C struct of the header: the Go struct of the same name,
// field for field.
type cstruct struct {
	goType reflect.Type
	from   string // the Go file that declares it
	fields []cfield
}

// cfield is one field of a cstruct, with its place in the Go struct.
type cfield struct {
	decl         string // the C declaration: "vec3 Min", "float UV[2]", "const BVHNode* Nodes"
	name         string
	offset, size uintptr
}

func (s *cstruct) writeC(b *bytes.Buffer) {
	t := s.goType
	fmt.Fprintf(b, "/* %s.%s (%s), %d bytes. */\ntypedef struct {\n", path.Base(t.PkgPath()), t.Name(), s.from, t.Size())
	for _, f := range s.fields {
		fmt.Fprintf(b, "    %s;\n", f.decl)
	}
	fmt.Fprintf(b, "} %s;\n", t.Name())
	fmt.Fprintf(b, "PORT_STATIC_ASSERT(sizeof(%s) == %d, \"%s: %d bytes, as in Go\");\n", t.Name(), t.Size(), t.Name(), t.Size())
	for _, f := range s.fields {
		fmt.Fprintf(b, "SCENE_FIELD(%s, %s, %d, %d);\n", t.Name(), f.name, f.offset, f.size)
	}
	b.WriteString("\n")
}

// sceneStructs returns the structs that cross to the GPU: kernels.TraceScene
// and every struct it reaches, through its own fields and through the
// arrays its device addresses point to, each after the structs it uses.
// A uint64 field of TraceScene named as a slice of kernels.Packed is the
// device address of that array: a pointer to its elements in C.
func sceneStructs(fset *token.FileSet, pkgs map[string]*types.Package) ([]cstruct, error) {
	w := &structWalk{fset: fset, pkgs: pkgs, arrays: map[string]reflect.Type{}, names: map[string]reflect.Type{}}
	p := reflect.TypeOf(kernels.Packed{})
	for i := 0; i < p.NumField(); i++ {
		if f := p.Field(i); f.Type.Kind() == reflect.Slice {
			w.arrays[f.Name] = f.Type.Elem()
		}
	}
	if err := w.add(reflect.TypeOf(kernels.TraceScene{})); err != nil {
		return nil, err
	}
	return w.out, nil
}

// structWalk collects structs depth first, each after those it uses.
type structWalk struct {
	fset   *token.FileSet
	pkgs   map[string]*types.Package
	arrays map[string]reflect.Type // kernels.Packed's arrays: their element types, by name
	names  map[string]reflect.Type // the structs added, by C name
	out    []cstruct
}

func (w *structWalk) add(t reflect.Type) error {
	if prev, ok := w.names[t.Name()]; ok {
		if prev != t {
			return fmt.Errorf("two structs named %s: %v and %v", t.Name(), prev, t)
		}
		return nil
	}
	w.names[t.Name()] = t
	s := cstruct{goType: t}
	pkg := w.pkgs[t.PkgPath()]
	if pkg == nil {
		return fmt.Errorf("struct %v is outside package tracer and package kernels", t)
	}
	s.from = sourceFile(w.fset, pkg.Scope().Lookup(t.Name()).Pos())
	pointers := t == reflect.TypeOf(kernels.TraceScene{})
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		decl, err := w.decl(f, pointers)
		if err != nil {
			return fmt.Errorf("%s.%s: %w", t.Name(), f.Name, err)
		}
		s.fields = append(s.fields, cfield{decl: decl, name: f.Name, offset: f.Offset, size: f.Type.Size()})
	}
	w.out = append(w.out, s)
	return nil
}

// decl returns the C declaration of field f; with pointers, a uint64
// named as one of kernels.Packed's arrays is a pointer to its elements.
func (w *structWalk) decl(f reflect.StructField, pointers bool) (string, error) {
	t := f.Type
	if elem, ok := w.arrays[f.Name]; ok && pointers && t.Kind() == reflect.Uint64 {
		for elem.Kind() == reflect.Array && elem != vec3Type {
			elem = elem.Elem() // a [2]float32 array is a float pointer
		}
		c, err := w.elem(elem)
		if err != nil {
			return "", err
		}
		return "const " + c + "* " + f.Name, nil
	}
	switch {
	case t.Kind() == reflect.Array && t != vec3Type:
		c, err := w.elem(t.Elem())
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("%s %s[%d]", c, f.Name, t.Len()), nil
	case t.Kind() == reflect.Struct && t.Name() == f.Name:
		// C++ reads a member named as its type as the member, later
		// in the struct: name the type with PORT_GLOBAL_TYPE (scene.h).
		if err := w.add(t); err != nil {
			return "", err
		}
		return "PORT_GLOBAL_TYPE(" + t.Name() + ") " + f.Name, nil
	}
	c, err := w.elem(t)
	if err != nil {
		return "", err
	}
	return c + " " + f.Name, nil
}

// elem returns the C name of the type t: a scalar, vec3, or a struct
// (added to the walk).
func (w *structWalk) elem(t reflect.Type) (string, error) {
	if t == vec3Type {
		return "vec3", nil
	}
	switch t.Kind() {
	case reflect.Float32:
		return "float", nil
	case reflect.Uint16:
		return "u16", nil
	case reflect.Uint32:
		return "u32", nil
	case reflect.Int32:
		return "i32", nil
	case reflect.Uint64:
		return "u64", nil
	case reflect.Struct:
		if err := w.add(t); err != nil {
			return "", err
		}
		return t.Name(), nil
	}
	return "", fmt.Errorf("type %v has no C twin in the kernel", t)
}

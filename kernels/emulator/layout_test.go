package emulator

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/tracerender/trace/kernels"
	"github.com/tracerender/trace/tracer"
)

// goKind names a Go field's type the way the kernel's layout table does.
func goKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Float32, reflect.Uint16, reflect.Uint32, reflect.Int32, reflect.Uint64:
		return t.Kind().String()
	case reflect.Array:
		if t.Len() == 3 && t.Elem().Kind() == reflect.Float32 {
			return "[3]float32"
		}
		return "[]" + goKind(t.Elem())
	case reflect.Struct:
		return t.Name()
	}
	return "Go " + t.String()
}

// TestLayout: every Go struct that the kernel reads has the layout of its
// C twin in scene.h, field by field: same names in the same order, same
// offsets, sizes and types. The scene's arrays are uploaded as they are,
// so a field added, moved or retyped on one side only fails here.
func TestLayout(t *testing.T) {
	c := map[string][]Field{}
	for _, f := range Layout() {
		c[f.Type] = append(c[f.Type], f)
	}
	for _, v := range []any{
		tracer.BVHNode{}, tracer.Triangle{}, tracer.TriangleAttr{}, tracer.Vertex{}, tracer.Shape{},
		tracer.Material{}, tracer.Texture{}, tracer.PointLight{}, tracer.Emitter{}, tracer.Camera{},
		tracer.Background{}, kernels.TraceScene{}, tracer.Tangent{},
	} {
		gt := reflect.TypeOf(v)
		t.Run(gt.Name(), func(t *testing.T) {
			rows := c[gt.Name()]
			delete(c, gt.Name())
			if len(rows) == 0 || rows[0].Field != "" {
				t.Fatalf("no C struct %s in the layout table", gt.Name())
			}
			if rows[0].Size != gt.Size() {
				t.Errorf("size: Go %d, C %d", gt.Size(), rows[0].Size)
			}
			rows = rows[1:]
			if len(rows) != gt.NumField() {
				t.Errorf("Go has %d fields, C %d", gt.NumField(), len(rows))
			}
			for i := 0; i < min(len(rows), gt.NumField()); i++ {
				gf, cf := gt.Field(i), rows[i]
				g := fmt.Sprintf("%s %s at %d, %d bytes", gf.Name, goKind(gf.Type), gf.Offset, gf.Type.Size())
				k := fmt.Sprintf("%s %s at %d, %d bytes", cf.Field, cf.Kind, cf.Offset, cf.Size)
				if g != k {
					t.Errorf("field %d: Go %s; C %s", i, g, k)
				}
			}
		})
	}
	for name := range c {
		t.Errorf("C struct %s has no Go twin in this test", name)
	}
}

// TestConstants: the kernel's kinds, flags and limits equal the Go
// constants they mirror.
func TestConstants(t *testing.T) {
	want := map[string]int64{
		"IntegratorPath": int64(tracer.IntegratorPath), "IntegratorWhitted": int64(tracer.IntegratorWhitted),
		"BackgroundColor": int64(tracer.BackgroundColor), "BackgroundGradient": int64(tracer.BackgroundGradient),
		"BackgroundImage":      int64(tracer.BackgroundImage),
		"FalloffInverseSquare": int64(tracer.FalloffInverseSquare), "FalloffNone": int64(tracer.FalloffNone),
		"FalloffDirectional": int64(tracer.FalloffDirectional),
		"MaterialDiffuse":    int64(tracer.MaterialDiffuse), "MaterialMetal": int64(tracer.MaterialMetal),
		"MaterialDielectric": int64(tracer.MaterialDielectric), "MaterialEmissive": int64(tracer.MaterialEmissive),
		"MaterialPhong":  int64(tracer.MaterialPhong),
		"MaterialPBR":    int64(tracer.MaterialPBR),
		"TextureChecker": int64(tracer.TextureChecker), "TextureImage": int64(tracer.TextureImage),
		"ShapeSphere": int64(tracer.ShapeSphere), "ShapeQuad": int64(tracer.ShapeQuad), "ShapePlane": int64(tracer.ShapePlane),
		"HitNone": int64(tracer.HitNone), "HitTriangle": int64(tracer.HitTriangle), "HitShape": int64(tracer.HitShape),
		"LeafTriangles": int64(tracer.LeafTriangles), "LeafShapes": int64(tracer.LeafShapes),
		"TriangleSmooth": int64(tracer.TriangleSmooth), "TriangleUV": int64(tracer.TriangleUV),
		"TriangleTangent": int64(tracer.TriangleTangent),
		"TriangleUV1":     int64(tracer.TriangleUV1), "TriangleColor": int64(tracer.TriangleColor),
		"WrapRepeat": int64(tracer.WrapRepeat), "WrapClamp": int64(tracer.WrapClamp), "WrapMirror": int64(tracer.WrapMirror),
		"FilterLinear": int64(tracer.FilterLinear), "FilterNearest": int64(tracer.FilterNearest),
		"NoTexture": int64(tracer.NoTexture), "MaxDepth": kernels.MaxDepth, "BVHStackSize": kernels.BVHStackSize,
		"AlphaOpaque": int64(tracer.AlphaOpaque), "AlphaMask": int64(tracer.AlphaMask), "AlphaBlend": int64(tracer.AlphaBlend),
		"MaxAlphaPasses": tracer.MaxAlphaPasses,
	}
	got := Constants()
	for name, v := range want {
		if g, ok := got[name]; !ok || g != v {
			t.Errorf("%s: kernel %d (present %v), Go %d", name, g, ok, v)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("kernel constant %s is not checked against Go", name)
		}
	}
	if kernels.MaxDepth < tracer.MaxDepth {
		t.Errorf("kernel MaxDepth %d < tracer.MaxDepth %d: scenes the CPU renders would be refused", kernels.MaxDepth, tracer.MaxDepth)
	}
}

package scenes

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/tracerender/trace/tracer"
)

// TestMTLGlass: illum 6 or 7 with Ni in (1, 4], and Blender's PBR
// transmission (Tf 1 1 1 beside Pr, Ni), make a dielectric; what
// Blender, Maya and 3ds Max write for materials that are not glass
// stays as it was; the dropped glass values are named in the notes.
func TestMTLGlass(t *testing.T) {
	tests := []struct {
		name, mtl  string
		glass      bool
		ior, rough float32
		color      mgl32.Vec3
		alpha      tracer.AlphaMode
		notes      []string // substrings of Unsupported; nil: none
	}{
		// The specification's refracting glass, as Blender 2.7 wrote it
		// (d its alpha): tinted by Tf, sharp, opaque.
		{"spec7", "Kd 0.01 0.01 0.01\nKs 0.3 0.3 0.3\nNs 200\nTf 0.9 1 0.9\nNi 1.5\nd 0.1\nillum 7\n",
			true, 1.5, 0, mgl32.Vec3{0.9, 1, 0.9}, tracer.AlphaOpaque, []string{"Kd on glass", "dissolve (d or Tr or map_d) on glass"}},
		{"spec6", "Ni 1.33\nPr 0.2\nillum 6\n", true, 1.33, 0.2, white, tracer.AlphaOpaque, nil},
		// Blender 4 with PBR extensions, a Principled glass.
		{"blender-glass", "Ns 902.5\nKa 1 1 1\nKd 0.8 0.9 1\nKs 0.5 0.5 0.5\nKe 0 0 0\nNi 1.45\nd 1\nillum 2\nPr 0.05\nPm 0\nTf 1 1 1\n",
			true, 1.45, 0.05, mgl32.Vec3{0.8, 0.9, 1}, tracer.AlphaOpaque, nil},
		// Blender's alpha: illum 9, d < 1, Ni always written.
		{"blender-alpha", "Ns 250\nKd 1 0 0\nKs 0.5 0.5 0.5\nNi 1.45\nd 0.5\nillum 9\n",
			false, 0, 0, mgl32.Vec3{1, 0, 0}, tracer.AlphaBlend, nil},
		{"blender-partial", "Kd 1 1 1\nNi 1.45\nPr 0.1\nPm 0\nTf 0.5 0.5 0.5\nillum 2\n",
			false, 0, 0, white, tracer.AlphaOpaque, []string{"Tf 0.5 0.5 0.5 (partial transmission)"}},
		{"maya", "illum 4\nKd 0.5 0.5 0.5\nKa 0 0 0\nTf 1 1 1\nNi 1.00\n",
			false, 0, 0, mgl32.Vec3{0.5, 0.5, 0.5}, tracer.AlphaOpaque, nil},
		{"3dsmax", "Ns 10\nNi 1.5\nd 1\nTr 0\nTf 1 1 1\nillum 2\nKd 0.5 0.5 0.5\n",
			false, 0, 0, mgl32.Vec3{0.5, 0.5, 0.5}, tracer.AlphaOpaque, nil},
		{"no-ni", "Kd 0 0 1\nKs 1 1 1\nNs 50\nillum 7\n", false, 0, 0, mgl32.Vec3{0, 0, 1}, tracer.AlphaOpaque, nil},
		{"metal", "Kd 1 1 1\nNi 1.5\nPm 1\nd 0.5\nillum 6\n", false, 0, 0, white, tracer.AlphaBlend, nil},
		{"ni-5", "Ni 5\nillum 7\n", false, 0, 0, defaultAlbedo, tracer.AlphaOpaque, []string{"Ni 5 (glass takes 1 to 4)"}},
		{"tf-only", "Kd 1 1 1\nTf 0 1 0\nillum 2\n", false, 0, 0, white, tracer.AlphaOpaque, []string{"Tf (a transmission filter"}},
		{"bad-values", "Kd 1 1 1\nillum two\nNi -1\nTf spectral x.rfl\n", false, 0, 0, white, tracer.AlphaOpaque, nil},
	}
	var mtl strings.Builder
	var names []string
	for _, tt := range tests {
		mtl.WriteString("newmtl " + tt.name + "\n" + tt.mtl)
		names = append(names, tt.name)
	}
	mats, err := importMTL(t, mtl.String(), nil, names...)
	if err != nil {
		t.Fatal(err)
	}
	for i, tt := range tests {
		m := mats[i]
		if m.Glass != tt.glass || m.IOR != tt.ior || m.Roughness != tt.rough && tt.glass || m.Color != tt.color || m.AlphaMode != tt.alpha {
			t.Errorf("%s: glass %v ior %g roughness %g colour %v alpha %v; want %v %g %g %v %v",
				tt.name, m.Glass, m.IOR, m.Roughness, m.Color, m.AlphaMode, tt.glass, tt.ior, tt.rough, tt.color, tt.alpha)
		}
		if tt.glass && (m.PBR || m.Image != nil || m.Emission != (mgl32.Vec3{})) {
			t.Errorf("%s: glass with PBR %v image %v emission %v", tt.name, m.PBR, m.Image != nil, m.Emission)
		}
		if tt.notes == nil && len(m.Unsupported) > 0 {
			t.Errorf("%s: notes %q, want none", tt.name, m.Unsupported)
		}
		for _, n := range tt.notes {
			if !strings.Contains(strings.Join(m.Unsupported, ", "), n) {
				t.Errorf("%s: notes %q, want %q among them", tt.name, m.Unsupported, n)
			}
		}
	}
}

// TestMTLGlassScene: a glass MTL material becomes the scene's
// dielectric, and what it drops is one warning line for the file.
func TestMTLGlassScene(t *testing.T) {
	log := captureWarnings(t)
	dir := writeFiles(t, map[string]string{
		"m.mtl": "newmtl glass\nKd 0.2 0.2 0.2\nNi 1.5\nTf 1 0.9 0.8\nd 0.2\nillum 7\nnewmtl clear\nNi 1.33\nillum 6\n",
		"m.obj": "mtllib m.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl glass\nf 1 2 3\nusemtl clear\nf 1 3 2\n",
	})
	path := filepath.Join(dir, "scene.json")
	if err := os.WriteFile(path, []byte(meshScene("", `{"type": "mesh", "file": "m.obj"}`)), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []tracer.Material{
		{Kind: tracer.MaterialDielectric, Texture: tracer.NoTexture, Color: mgl32.Vec3{1, 0.9, 0.8}, IOR: 1.5},
		{Kind: tracer.MaterialDielectric, Texture: tracer.NoTexture, Color: white, IOR: 1.33},
	}
	if len(s.Materials) != 2 || s.Materials[0] != want[0] || s.Materials[1] != want[1] {
		t.Errorf("materials %+v, want %+v", s.Materials, want)
	}
	got := log.String()
	if strings.Count(got, "\n") != 1 || !strings.Contains(got, `material \"glass\" drawn without`) || !strings.Contains(got, "Kd on glass") {
		t.Errorf("log\n%s\nwant one line naming the material \"glass\" and its Kd", got)
	}
}

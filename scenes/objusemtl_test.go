package scenes

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOBJUndefinedMaterialWarning: usemtl names that no material library
// of the file nor the scene defines are one warning line per file, naming
// them with the line of the first usemtl of each, while the object's
// material stands in; names the library or the scene defines are not
// named, and a second object placing the file adds no line.
func TestOBJUndefinedMaterialWarning(t *testing.T) {
	log := captureWarnings(t)
	dir := writeFiles(t, map[string]string{
		"m/a.mtl": "newmtl red\nKd 1 0 0\n",
		"m/x.obj": "mtllib a.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\n" +
			"usemtl red\nf 1 2 3\n" + // line 5
			"usemtl ghost\nf 1 3 2\n" + // line 7
			"usemtl scened\nf 1 2 3\n" + // line 9
			"usemtl ghost\nf 1 2 3\n" + // line 11
			"usemtl unused\n" + // line 13: no face follows
			"usemtl other\nf 1 3 2\n", // line 14
	})
	path := filepath.Join(dir, "scene.json")
	scene := meshScene(`"grey": {"type": "diffuse"}, "scened": {"type": "diffuse"}`,
		`{"type": "mesh", "file": "m/x.obj", "material": "grey"}, {"type": "mesh", "file": "m/x.obj", "material": "grey"}`)
	if err := os.WriteFile(path, []byte(scene), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path); err != nil {
		t.Fatal(err)
	}
	want := `level=WARN msg="\"m/x.obj\": usemtl names materials \"ghost\" (line 7), \"other\" (line 14), which no material library of the file nor the scene's \"materials\" defines; the object's material stands in for them"` + "\n"
	if log.String() != want {
		t.Errorf("log\n%s\nwant\n%s", log.String(), want)
	}
	if strings.Contains(log.String(), "unused") {
		t.Errorf("log names a usemtl that no face uses")
	}
}

package scenes

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestOBJForeignMapPaths: a map named by a Windows absolute path, a UNC
// path or another machine's absolute path where no file is (what
// Blender and other exporters write) is read from the file of its base
// name beside the MTL file, else in the OBJ file's folder, with a
// one-line warning naming both; with no such file, the error names the
// map as written. An absolute path to a file outside the scene's folder
// stays refused, base name beside the MTL or not.
func TestOBJForeignMapPaths(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "wood.png")
	if err := os.WriteFile(outside, []byte(mtlPNG(t, 1, 1, 0, 0, 255)), 0o644); err != nil {
		t.Fatal(err)
	}
	red := mtlPNG(t, 1, 1, 255, 0, 0)
	for _, tc := range []struct {
		name     string
		mtl      string            // libs/m.mtl
		files    map[string]string // beside x.obj, the scene's folder
		warn     []string          // in the one warning line
		errMsg   string            // in the error, "" for none
		roughMap bool              // the map is map_Pr: the image is the rough one
	}{
		{
			name:  "windows path, beside the MTL file",
			mtl:   `map_Kd C:\Users\me\wood.png`,
			files: map[string]string{"libs/wood.png": red},
			warn:  []string{`libs/m.mtl:2: map_Kd "C:/Users/me/wood.png": no such file; using "libs/wood.png", the file of that name beside the MTL file`},
		},
		{
			name:  "unix path, in the OBJ file's folder",
			mtl:   `map_Kd /home/someone-else/tex/wood.png`,
			files: map[string]string{"wood.png": red},
			warn:  []string{`"/home/someone-else/tex/wood.png": no such file; using "wood.png", the file of that name in the OBJ file's folder`},
		},
		{
			name:  "UNC path, the MTL's folder first",
			mtl:   `map_Kd \\server\share\wood.png`,
			files: map[string]string{"libs/wood.png": red, "wood.png": mtlPNG(t, 1, 1, 0, 255, 0)},
			warn:  []string{`"//server/share/wood.png": no such file; using "libs/wood.png"`},
		},
		{
			name:     "map_Pr",
			mtl:      `map_Pr -imfchan r D:\maps\wood.png`,
			files:    map[string]string{"libs/wood.png": red},
			warn:     []string{`map_Pr "D:/maps/wood.png": no such file; using "libs/wood.png"`},
			roughMap: true,
		},
		{
			name:   "not found",
			mtl:    `map_Kd C:\Users\me\gone.png`,
			errMsg: `m.mtl:2: map_Kd "C:/Users/me/gone.png": no such file or directory (nor is there a file "gone.png" beside the MTL file or the OBJ file)`,
		},
		{
			name:   "outside the scene's folder",
			mtl:    "map_Kd " + outside,
			files:  map[string]string{"libs/wood.png": red},
			errMsg: "is outside the scene's folder",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{
				"libs/m.mtl": "newmtl wood\n" + tc.mtl + "\n",
				"x.obj":      "mtllib libs/m.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nusemtl wood\nf 1/1 2/1 3/1\n",
			}
			for k, v := range tc.files {
				files[k] = v
			}
			dir := writeFiles(t, files)
			log := captureWarnings(t)
			im, err := loadOBJ(testAssets(t, dir), filepath.Join(dir, "x.obj"))
			if tc.errMsg != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errMsg) {
					t.Fatalf("error %v, want one with %q", err, tc.errMsg)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			img := im.materials[0].Image
			if tc.roughMap {
				img = im.materials[0].RoughImage
			}
			want := []float32{1, 0, 0} // red
			if tc.roughMap {
				want = []float32{0, 1, 1} // its red as roughness, metallic 1
			}
			if img == nil || !slices.Equal(img.Pix, want) {
				t.Errorf("image %+v, want %v", img, want)
			}
			w := strings.ReplaceAll(strings.TrimSpace(log.String()), `\"`, `"`)
			if strings.Count(w, "\n") != 0 {
				t.Errorf("warnings %q, want one line", w)
			}
			for _, s := range tc.warn {
				if !strings.Contains(w, s) {
					t.Errorf("warning %q, want it to hold %q", w, s)
				}
			}
		})
	}
}

package scenes

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// objChunkInputs are OBJ files that are awkward to cut into chunks: line
// continuations (with CRLF, in comments, at the end of the file),
// comments, a byte order mark, relative indices, materials and smoothing
// groups that switch often, a line longer than a chunk, no final newline,
// and errors late in the file, after an error that must win, and in the
// middle of a face.
var objChunkInputs = map[string]string{
	"continuations": "v 0 0 0\r\nv 1 \\\r\n 0 0\nv 0 1 0 \\\n\nv 1 1 0\n# a comment \\\nv 9 9 9\nf 1 2 3\nf -1 -2 \\\n -3\r\nf 2 3 4\\",
	"bom":           "\ufeffv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n",
	"crlf":          "v 0 0 0\r\nv 1 0 0\r\nv 0 1 0\r\nvt 0 0\r\nvn 0 0 1\r\nf 1/1/1 2/1/1 3/1/1\r\n",
	"switching": "mtllib a.mtl b.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nusemtl red\ns 1\nf 1 2 3\nusemtl\nf 2 3 4\nusemtl blue\ns off\nf 1 2 4\n" +
		"usemtl red\ns 2\nf -1 -2 -3 -4\ng x\no y\nusemtl green\nf 1//  2// 3//\n",
	"long line":     "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nf" + strings.Repeat(" 1 2 3 4", 40) + "\n",
	"concave":       "v 0 0 0\nv 2 0 0\nv 2 2 0\nv 1 2 0\nv 1 1 0\nv 0 1 0\nf 1 2 3 4 5 6\n",
	"later vertex":  "v 0 0 0\nv 1 0 0\nf 1 2 3\nv 0 1 0\n",
	"bad late":      "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n" + strings.Repeat("v 0 0 1\n", 30) + "v 1 x 2\nf 1 2 3\n",
	"index first":   "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 9/x\nv x\n",
	"bad in face":   "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3/+/4\n",
	"slashes":       "v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nf 1/1/ 2/1/ 3/1/\nf 1/1/1/1 2 3\n",
	"odd indices":   "v 0 0 0\nv 1 0 0\nv 0 1 0\nf +1 002 -1\nf 1 2 99999999999999\n",
	"zero index":    "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 -0\n",
	"colours":       "v 0 0 0 1 0 0\nv 1 0 0\nv 0 1 0 0 0 1\nf 1 2 3\nv 0 0 0 2 0 0\n",
	"no final line": "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3",
	"lone slash":    "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n\\",
	"empty":         "",
	"comments only": "# nothing\n\n   \n# \\\n",
}

// TestOBJChunks: an OBJ file cut into chunks anywhere (down to a byte)
// and decoded on several cores, in memory or read from a file a chunk at
// a time, gives the mesh, materials and error of reading it whole on one
// core.
func TestOBJChunks(t *testing.T) {
	inputs := maps.Clone(objChunkInputs)
	inputs["random"] = randomOBJ(rand.New(rand.NewPCG(3, 4)), 3000)
	dir := writeFiles(t, map[string]string{"a.mtl": "newmtl red\nKd 1 0 0\n"})
	defer func(n int) { objChunkSize = n }(objChunkSize)
	for name, data := range inputs {
		path := filepath.Join(dir, "t.obj")
		objChunkSize = len(data) + 1
		procs := runtime.GOMAXPROCS(1)
		want, wantErr := parseOBJ(testAssets(t, dir), path, []byte(data))
		runtime.GOMAXPROCS(procs)
		if name == "random" && wantErr != nil {
			t.Fatalf("random: %v", wantErr)
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, size := range []int{1, 2, 3, 5, 8, 13, 64, 1000} {
			for _, procs := range []int{1, 4} {
				for _, file := range []bool{false, true} {
					objChunkSize = size
					old := runtime.GOMAXPROCS(procs)
					var got *importedMesh
					var err error
					if file {
						got, err = loadOBJ(testAssets(t, dir), path)
					} else {
						got, err = parseOBJ(testAssets(t, dir), path, []byte(data))
					}
					runtime.GOMAXPROCS(old)
					where := fmt.Sprintf("%s, chunks of %d bytes, %d cores, from a file %v", name, size, procs, file)
					if fmt.Sprint(err) != fmt.Sprint(wantErr) {
						t.Fatalf("%s: error %v, want %v", where, err, wantErr)
					}
					if !reflect.DeepEqual(got, want) {
						t.Fatalf("%s: the mesh differs from reading the file whole", where)
					}
				}
			}
		}
	}
}

// randomOBJ returns a valid OBJ file of about n statements: positions
// with and without colours, texture coordinates, normals, faces of 3 to 6
// vertices in every form with absolute and relative indices, materials,
// smoothing groups, comments and continuations.
func randomOBJ(rng *rand.Rand, n int) string {
	var b strings.Builder
	b.WriteString("v 0 0 0 1 1 1\nv 1 0 0\nv 0 1 0\nvt 0 0\nvn 0 0 1\n")
	nv, nvt, nvn := 3, 1, 1
	ix := func(count int) string {
		if rng.IntN(3) == 0 {
			return fmt.Sprint(-1 - rng.IntN(count))
		}
		return fmt.Sprint(1 + rng.IntN(count))
	}
	for range n {
		switch k := rng.IntN(12); {
		case k < 3:
			fmt.Fprintf(&b, "v %.4f %.6f %g", rng.Float64()*10, rng.NormFloat64(), float32(rng.Float64()))
			if rng.IntN(4) == 0 {
				fmt.Fprintf(&b, " %.3f %.3f %.3f", rng.Float64(), rng.Float64(), rng.Float64())
			}
			nv++
		case k == 3:
			fmt.Fprintf(&b, "vt %.5f %.5f", rng.Float64(), rng.Float64())
			nvt++
		case k == 4:
			fmt.Fprintf(&b, "vn %.5f %.5f %.5f", rng.NormFloat64(), rng.NormFloat64(), rng.Float64()+0.1)
			nvn++
		case k < 9:
			b.WriteString("f")
			form := rng.IntN(4)
			for range 3 + rng.IntN(4) {
				b.WriteString(" " + ix(nv))
				switch form {
				case 1:
					b.WriteString("/" + ix(nvt))
				case 2:
					b.WriteString("//" + ix(nvn))
				case 3:
					b.WriteString("/" + ix(nvt) + "/" + ix(nvn))
				}
				if rng.IntN(30) == 0 {
					b.WriteString(" \\\r\n")
				}
			}
		case k == 9:
			fmt.Fprintf(&b, "usemtl m%d", rng.IntN(5))
		case k == 10:
			fmt.Fprintf(&b, "s %d", rng.IntN(3))
		default:
			b.WriteString("# comment")
		}
		if rng.IntN(4) == 0 {
			b.WriteString("\r\n")
		} else {
			b.WriteString("\n")
		}
	}
	return b.String()
}

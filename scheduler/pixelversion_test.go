package scheduler

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/tracerender/trace/tracer"
)

// pixelsFile holds the PixelVersion the gallery's pixels were last
// hashed at, and the hashes.
var pixelsFile = filepath.Join("..", "testdata", "golden", "pixel-version.txt")

// TestPixelVersionGallery renders every gallery scene small and hashes
// its linear pixels, bit for bit: when a hash differs from the one in
// testdata/golden/pixel-version.txt while tracer.PixelVersion is still the
// one recorded there, a change altered pixels without bumping
// PixelVersion (docs/pixel-version.md), and the test fails. After bumping
// it, run go test ./scheduler -run PixelVersion -update to record the new
// hashes under the new version.
func TestPixelVersionGallery(t *testing.T) {
	files, _ := filepath.Glob("../scenes/examples/*.json")
	if len(files) == 0 {
		t.Fatal("no gallery scenes found")
	}
	got := map[string]string{}
	var names []string
	for _, f := range files {
		name := filepath.Base(strings.TrimSuffix(f, ".json"))
		s := loadScene(t, name, 32, 24, 4)
		res, err := Render(context.Background(), s, Options{TileSize: 16, Workers: []Worker{&CPUWorker{N: runtime.NumCPU()}}})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		h := sha256.New()
		for _, v := range res.Framebuffer.Pix {
			h.Write(binary.LittleEndian.AppendUint32(nil, math.Float32bits(v)))
		}
		got[name] = hex.EncodeToString(h.Sum(nil))
		names = append(names, name)
	}
	if *update {
		var b strings.Builder
		fmt.Fprintf(&b, "# The gallery's linear pixels (32×24, 4 samples) hashed at a pixel version: see\n# scheduler/pixelversion_test.go and docs/pixel-version.md. Regenerate with\n# go test ./scheduler -run PixelVersion -update\n")
		fmt.Fprintf(&b, "pixel-version %d\n", tracer.PixelVersion)
		for _, n := range names {
			fmt.Fprintf(&b, "%s %s\n", n, got[n])
		}
		if err := os.WriteFile(pixelsFile, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	version, want := readPixelHashes(t)
	if version != tracer.PixelVersion {
		t.Fatalf("tracer.PixelVersion is %d, but %s records the pixels of version %d: run go test ./scheduler -run PixelVersion -update",
			tracer.PixelVersion, pixelsFile, version)
	}
	for _, n := range names {
		switch w, ok := want[n]; {
		case !ok:
			t.Errorf("%s: a gallery scene %s has no hash of: run go test ./scheduler -run PixelVersion -update", n, pixelsFile)
		case w != got[n]:
			t.Errorf("%s: its pixels changed (sha256 %s…, recorded %s…) while tracer.PixelVersion stayed %d: a change that alters pixels bumps it (docs/pixel-version.md); then run go test ./scheduler -run PixelVersion -update",
				n, got[n][:12], w[:min(12, len(w))], tracer.PixelVersion)
		}
	}
}

// readPixelHashes reads pixelsFile: the version and the hash of each scene.
func readPixelHashes(t *testing.T) (uint32, map[string]string) {
	t.Helper()
	f, err := os.Open(pixelsFile)
	if err != nil {
		t.Fatalf("%v (run go test ./scheduler -run PixelVersion -update to create it)", err)
	}
	defer f.Close()
	var version uint32
	hashes := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, val, ok := strings.Cut(line, " ")
		if !ok {
			t.Fatalf("%s: bad line %q", pixelsFile, line)
		}
		if key == "pixel-version" {
			if _, err := fmt.Sscan(val, &version); err != nil {
				t.Fatalf("%s: bad line %q", pixelsFile, line)
			}
			continue
		}
		hashes[key] = val
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return version, hashes
}

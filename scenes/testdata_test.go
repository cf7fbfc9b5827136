package scenes

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"testing"
)

// readGzipFile returns the decompressed bytes of the gzip file at path
// (the Draco reference PLYs, the meshopt vectors).
func readGzipFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	b, err = io.ReadAll(zr)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return b
}

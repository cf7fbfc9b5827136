package remote

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/tracerender/trace/scenes"
	"github.com/tracerender/trace/scheduler/remote/pb"
	"google.golang.org/protobuf/proto"
)

// Hash is a bundle's SHA-256, its name in a worker's cache.
type Hash [sha256.Size]byte

func (h Hash) String() string { return hex.EncodeToString(h[:12]) }

// EncodedBundle is a scene bundle serialized for the wire.
type EncodedBundle struct {
	Data []byte
	Hash Hash
}

// EncodeBundle serializes b deterministically (files sorted by name), so
// that the same scene and files always give the same hash.
func EncodeBundle(b *scenes.Bundle) (*EncodedBundle, error) {
	m := &pb.Bundle{Name: b.Name, Dir: b.Dir, Scene: b.Scene, AllowOutsideAssets: b.AllowOutsideAssets}
	names := make([]string, 0, len(b.Files))
	for n := range b.Files {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		m.Files = append(m.Files, &pb.File{Name: n, Data: b.Files[n]})
	}
	data, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	if err != nil {
		return nil, err
	}
	return &EncodedBundle{Data: data, Hash: sha256.Sum256(data)}, nil
}

// DecodeBundle parses a serialized bundle, checking the names of its files:
// each one relative, clean and given once.
func DecodeBundle(data []byte) (*scenes.Bundle, error) {
	var m pb.Bundle
	if err := proto.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("scene bundle: %w", err)
	}
	if m.Name == "" || !path.IsAbs(m.Dir) {
		return nil, fmt.Errorf("scene bundle: no scene name or absolute folder")
	}
	b := &scenes.Bundle{Name: m.Name, Dir: m.Dir, Scene: m.Scene, Files: make(map[string][]byte, len(m.Files)), AllowOutsideAssets: m.AllowOutsideAssets}
	for _, f := range m.Files {
		if f.Name == "" || path.IsAbs(f.Name) || path.Clean(f.Name) != f.Name || strings.ContainsRune(f.Name, 0) {
			return nil, fmt.Errorf("scene bundle: bad file name %q", f.Name)
		}
		if _, dup := b.Files[f.Name]; dup {
			return nil, fmt.Errorf("scene bundle: file %q given twice", f.Name)
		}
		b.Files[f.Name] = f.Data
	}
	return b, nil
}

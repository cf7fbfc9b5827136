// Package checkpoint records the finished tiles of a render in a file as
// they land, so that a render that was stopped — killed, crashed, or cut
// off by a power loss — can be resumed, rendering only the tiles that are
// missing (see scheduler.Options.Finished). The determinism contract makes
// this exact: a tile rendered in one run equals the same tile rendered in
// another, so a resumed image is byte-identical to an uninterrupted one.
//
// # Format
//
// A checkpoint is an append-only log of checksummed records:
//
//	file    = magic version header tile*
//	magic   = "\x89TRCKPT\n" (8 bytes)
//	version = uint32, 2
//	record  = length uint32 | crc uint32 | payload (length bytes)
//	header  = record with payload 'H' scene[32] pixelVersion tileSize
//	          (uint32 each) settings (tracer.SettingsSize bytes)
//	tile    = record with payload 'T' id minX minY maxX maxY (uint32 each)
//	          pixels (3·area float32, linear RGB, row by row)
//
// Integers and floats are little-endian; crc is the CRC-32C (Castagnoli)
// of the length field and the payload. scene is SceneHash of the scene file
// and its assets; pixelVersion is the tracer.PixelVersion of the trace that
// wrote the file; the tile size fixes the tile grid that the tile IDs and
// rectangles refer to; settings are the render settings, after any
// command-line overrides, in their binary encoding
// (tracer.Settings.MarshalBinary). Version 1 had no pixel version and the
// settings as six uint32 and a uint64 before the tile size.
//
// # Durability
//
// Create writes and fsyncs the header, and the folder's entry for the new
// file, before it returns. Writer.Add writes each tile's record with a
// single write(2) and returns once the kernel has it, so a process that is
// killed (SIGKILL, out of memory, a crash) loses no tile whose Add returned:
// only the tiles still being rendered, and at worst the one record it was
// writing, which reading drops. The file is fsynced in the background at
// most every SyncInterval while records arrive, and on Close, so a power
// loss or kernel crash loses at most about SyncInterval of tiles; the
// unsynced end of the file may then hold garbage, which the checksums catch.
//
// # Reading
//
// Read refuses a file that is not a checkpoint, has another format
// version, has a header cut short or damaged, was written by a trace of
// another tracer.PixelVersion (whose tiles could differ from this one's),
// or was written for another scene or other settings — naming what
// differs. After the header, the
// first record that is cut short or fails its checksum ends the usable
// log: it and everything after it are discarded, with Checkpoint.Damage
// saying where and how many bytes (damage can only be at the end after a
// kill, but a power loss may leave several damaged records at the end, and
// a record past a damaged one cannot be found safely). Dropping records is
// always safe: their tiles are rendered again. A record whose checksum
// holds but which does not fit the tile grid is an error, as that is no
// accident of crashing. A record whose pixels no render produces (NaN,
// infinite or negative values) is refused, with Checkpoint.Refused and
// Warning saying so, and its tile is rendered again. When a tile appears
// twice the first record accepted wins.
//
// A Writer holds an advisory lock (flock(2)) on its file until Close:
// Create, Append and Read refuse a checkpoint that another render is
// writing (errInUse), whose tiles would otherwise be rendered twice, and
// whose records Append could cut mid-write.
//
// Read and Append refuse a path that is not a regular file (a named pipe,
// a device, a folder) before they open it for reading, so that a FIFO
// given to --resume cannot block the render forever.
// Append truncates the file to its intact part and continues the log, so
// a resumed render checkpoints into the same file and can itself be
// resumed.
package checkpoint

import (
	"bufio"
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unicode"

	"github.com/tracerender/trace/scenes"
	"github.com/tracerender/trace/scheduler"
	"github.com/tracerender/trace/tracer"
)

// Version is the format version this package writes and reads.
const Version = 2

// SyncInterval is the longest a Writer waits, while tiles arrive, before it
// fsyncs them: what a power loss may cost.
const SyncInterval = time.Second

const (
	magic         = "\x89TRCKPT\n"
	preambleSize  = 8 + 4 // magic and version
	frameSize     = 8     // length and crc
	headerPayload = 1 + 32 + 4 + 4 + tracer.SettingsSize
	// maxHeaderPayload bounds the header records read: long enough for
	// the settings of another trace, whose pixel version is then named.
	maxHeaderPayload = headerPayload + 4096
	tileFixed        = 1 + 5*4 // a tile payload before its pixels
	headerEnd        = preambleSize + frameSize + headerPayload
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// errInUse is the error of a checkpoint that another render is writing.
var errInUse = errors.New("another render is writing it (a lock is held on the file): let that render end, or stop it, and resume then")

// Header identifies the render a checkpoint belongs to. A checkpoint is
// only ever applied to a render whose Header is equal.
type Header struct {
	Scene    [32]byte        // SceneHash of the scene file and its assets
	Settings tracer.Settings // the render settings, after command-line overrides
	TileSize int             // tile side in pixels: the tile grid
}

// SceneHash is the SHA-256 of a scene file's contents and of every asset
// file it read, by their paths relative to the scene's folder. It does not
// depend on the path the scene was named by, so a checkpoint can be resumed
// from another working directory or after the scene's folder moved; any
// change to the scene file — even to settings that do not change linear
// pixels, such as the film's exposure — or to an asset gives another hash.
func SceneHash(b *scenes.Bundle) [32]byte {
	h := sha256.New()
	field := func(p []byte) {
		h.Write(binary.LittleEndian.AppendUint64(nil, uint64(len(p))))
		h.Write(p)
	}
	field([]byte("trace scene hash 1"))
	field(b.Scene)
	for _, name := range slices.Sorted(maps.Keys(b.Files)) {
		field([]byte(name))
		field(b.Files[name])
	}
	var sum [32]byte
	h.Sum(sum[:0])
	return sum
}

// Checkpoint is what Read found in a checkpoint file.
type Checkpoint struct {
	Path   string
	Header Header
	// Tiles holds the finished tiles' pixels by tile ID, as
	// scheduler.Options.Finished takes them.
	Tiles map[int][]float32
	// Size is the length in bytes of the file's intact part: the header
	// and the records of Tiles. Append continues from there.
	Size int64
	// Discarded is how many bytes after Size were dropped, and Damage
	// says why (empty when nothing was): the last record cut short, as a
	// crash while writing it leaves it, or a record that fails its
	// checksum.
	Discarded int64
	Damage    string
	// Duplicates counts tile records ignored because an earlier record
	// held the same tile.
	Duplicates int
	// Refused lists the tiles of records refused for their pixels (NaN,
	// infinite or negative values), by tile ID, in file order; Refusal
	// says why the first was. Their tiles are rendered again.
	Refused []int
	Refusal string

	// file is the file Read read, for Append to check that Path still
	// names it; nil for a Checkpoint made otherwise.
	file os.FileInfo
}

// Warning is a one-line account of what was discarded, for the user, or
// "" when the file was intact.
func (c *Checkpoint) Warning() string {
	var parts []string
	if len(c.Refused) > 0 {
		parts = append(parts, fmt.Sprintf("refused %d tile records with impossible pixels (%s); those tiles are rendered again",
			len(c.Refused), c.Refusal))
	}
	if c.Discarded > 0 {
		parts = append(parts, fmt.Sprintf("%s; discarded the last %d bytes and kept the %d tiles before them",
			c.Damage, c.Discarded, len(c.Tiles)))
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("checkpoint %s: %s", c.Path, strings.Join(parts, "; "))
}

// Read reads the checkpoint at path and checks that it was written for the
// render described by want. See the package documentation for what it
// refuses and what it recovers.
func Read(path string, want Header) (*Checkpoint, error) {
	f, err := openRegular(path, os.O_RDONLY)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if err := lock(f, false); err != nil {
		return nil, fmt.Errorf("checkpoint %s: %w", path, err)
	}
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	c, err := read(bufio.NewReaderSize(f, 1<<16), fi.Size(), want)
	if err != nil {
		return nil, fmt.Errorf("checkpoint %s: %w", path, err)
	}
	c.Path, c.file = path, fi
	return c, nil
}

// read parses a checkpoint of size bytes from r.
func read(r io.Reader, size int64, want Header) (*Checkpoint, error) {
	var pre [preambleSize]byte
	n, err := io.ReadFull(r, pre[:])
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, err
	}
	m := min(n, len(magic))
	if string(pre[:m]) != magic[:m] {
		return nil, errors.New("not a trace checkpoint (its first bytes are wrong)")
	}
	if n < preambleSize {
		return nil, fmt.Errorf("header cut short (the file has %d bytes, the header needs %d): the render that wrote it stopped as it began, and it holds no tiles: delete it to start again", size, headerEnd)
	}
	switch v := binary.LittleEndian.Uint32(pre[len(magic):]); {
	case v == 1:
		return nil, fmt.Errorf("format version 1, written by a trace from before pixel versions, whose tiles could differ from what this trace (pixel version %d) renders: render again without --resume (delete the file)", tracer.PixelVersion)
	case v != Version:
		return nil, fmt.Errorf("format version %d; this trace reads version %d", v, Version)
	}

	payload, st, err := readRecord(r, size-preambleSize, maxHeaderPayload)
	switch {
	case err != nil:
		return nil, err
	case st == recordCut && size < headerEnd:
		return nil, fmt.Errorf("header cut short (the file has %d bytes, the header needs %d): the render that wrote it stopped as it began, and it holds no tiles: delete it to start again", size, headerEnd)
	case st != recordOK || len(payload) < headerPayload-tracer.SettingsSize || payload[0] != 'H':
		return nil, errors.New("header damaged (it fails its checksum)")
	}
	got, pixelVersion, err := decodeHeader(payload)
	if pixelVersion != tracer.PixelVersion {
		return nil, fmt.Errorf("written by a trace of pixel version %d, whose tiles could differ from what this trace (pixel version %d) renders: resume it with that trace, or render again without --resume (delete the file)",
			pixelVersion, tracer.PixelVersion)
	}
	if err != nil {
		return nil, err
	}
	if err := got.Check(want); err != nil {
		return nil, err
	}

	c := &Checkpoint{Header: got, Tiles: map[int][]float32{}, Size: headerEnd}
	grid := scheduler.Tiles(want.Settings.Width, want.Settings.Height, want.TileSize)
	maxPayload := tileFixed + 12*want.TileSize*want.TileSize
	for c.Size < size {
		payload, st, err := readRecord(r, size-c.Size, maxPayload)
		if err != nil {
			return nil, err
		}
		if st != recordOK {
			c.Discarded = size - c.Size
			c.Damage = fmt.Sprintf("the record at byte %d fails its checksum", c.Size)
			if st == recordCut {
				c.Damage = fmt.Sprintf("the record at byte %d is cut short, as a crash while writing it leaves it", c.Size)
			}
			break
		}
		id, pix, err := decodeTile(payload, grid)
		if err != nil {
			return nil, fmt.Errorf("record at byte %d: %w", c.Size, err)
		}
		if err := checkPixels(pix); err != nil {
			if len(c.Refused) == 0 {
				c.Refusal = fmt.Sprintf("the first, of tile %d at byte %d: %v", id, c.Size, err)
			}
			c.Refused = append(c.Refused, id)
		} else if _, dup := c.Tiles[id]; dup {
			c.Duplicates++
		} else {
			c.Tiles[id] = pix
		}
		c.Size += int64(frameSize + len(payload))
	}
	return c, nil
}

// recordStatus is what readRecord found.
type recordStatus int

const (
	recordOK      recordStatus = iota
	recordCut                  // the record runs past the end of the file
	recordDamaged              // an impossible length, or a checksum mismatch
)

// readRecord reads one record from r, which has left bytes before the end
// of the file, and returns its payload when its status is recordOK.
// Payloads longer than maxPayload are damaged ones.
func readRecord(r io.Reader, left int64, maxPayload int) ([]byte, recordStatus, error) {
	if left < frameSize {
		return nil, recordCut, nil
	}
	var frame [frameSize]byte
	if _, err := io.ReadFull(r, frame[:]); err != nil {
		return nil, 0, err // the file shrank while being read
	}
	n := binary.LittleEndian.Uint32(frame[:4])
	if n > uint32(maxPayload) {
		return nil, recordDamaged, nil
	}
	if int64(n) > left-frameSize {
		return nil, recordCut, nil
	}
	payload := make([]byte, n)
	if _, err := io.ReadFull(r, payload); err != nil {
		return nil, 0, err
	}
	crc := crc32.Update(crc32.Checksum(frame[:4], castagnoli), castagnoli, payload)
	if crc != binary.LittleEndian.Uint32(frame[4:]) {
		return nil, recordDamaged, nil
	}
	return payload, recordOK, nil
}

// Check returns nil when h equals want, or an error naming what differs:
// the scene, or each setting that does.
func (h Header) Check(want Header) error {
	if h.Scene != want.Scene {
		return fmt.Errorf("written for another scene (scene hash %s…, this scene's is %s…): the scene file or one of its assets is not the one it was rendered from",
			hex.EncodeToString(h.Scene[:6]), hex.EncodeToString(want.Scene[:6]))
	}
	var diffs []string
	// Every field of the settings, by reflection, so that none added
	// later is missed.
	g, w := reflect.ValueOf(h.Settings), reflect.ValueOf(want.Settings)
	for i := range g.NumField() {
		if got, want := g.Field(i).Interface(), w.Field(i).Interface(); got != want {
			diffs = append(diffs, fmt.Sprintf("%s %v (this render: %v)", settingName(g.Type().Field(i).Name), settingValue(got), settingValue(want)))
		}
	}
	if h.TileSize != want.TileSize {
		diffs = append(diffs, fmt.Sprintf("tile size %d (this render: %d)", h.TileSize, want.TileSize))
	}
	if len(diffs) > 0 {
		return fmt.Errorf("written with other settings: %s; resume with the settings it was written with", strings.Join(diffs, ", "))
	}
	return nil
}

// settingName turns a field name of tracer.Settings into words:
// MaxDepth is "max depth".
func settingName(field string) string {
	var b strings.Builder
	for i, r := range field {
		if unicode.IsUpper(r) && i > 0 {
			b.WriteByte(' ')
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// settingValue is v as a person reads it: integrators by name.
func settingValue(v any) any {
	if i, ok := v.(tracer.Integrator); ok {
		return integratorName(i)
	}
	return v
}

func integratorName(i tracer.Integrator) string {
	switch i {
	case tracer.IntegratorPath:
		return "path"
	case tracer.IntegratorWhitted:
		return "whitted"
	}
	return fmt.Sprintf("integrator#%d", uint32(i))
}

// encodeHeader is the header payload of a checkpoint for h written by a
// trace of the given pixel version.
func encodeHeader(h Header, pixelVersion uint32) []byte {
	le := binary.LittleEndian
	p := append(make([]byte, 0, headerPayload), 'H')
	p = append(p, h.Scene[:]...)
	p = le.AppendUint32(p, pixelVersion)
	p = le.AppendUint32(p, uint32(h.TileSize))
	p, _ = h.Settings.AppendBinary(p) // never fails
	return p
}

// decodeHeader decodes a header payload of at least headerPayload −
// tracer.SettingsSize bytes. It returns the pixel version even when the
// settings do not decode (those of another trace).
func decodeHeader(p []byte) (h Header, pixelVersion uint32, err error) {
	le := binary.LittleEndian
	copy(h.Scene[:], p[1:33])
	pixelVersion = le.Uint32(p[33:])
	h.TileSize = int(le.Uint32(p[37:]))
	if err := h.Settings.UnmarshalBinary(p[41:]); err != nil {
		return h, pixelVersion, fmt.Errorf("header: %w", err)
	}
	return h, pixelVersion, nil
}

// decodeTile checks a tile payload against the tile grid and returns its
// tile ID and pixels.
func decodeTile(p []byte, grid []scheduler.Tile) (int, []float32, error) {
	le := binary.LittleEndian
	if len(p) < tileFixed || p[0] != 'T' {
		return 0, nil, errors.New("not a tile record")
	}
	id := int(le.Uint32(p[1:]))
	if id >= len(grid) {
		return 0, nil, fmt.Errorf("tile %d is not in the grid of %d tiles", id, len(grid))
	}
	r := grid[id].Rect
	if x0, y0, x1, y1 := le.Uint32(p[5:]), le.Uint32(p[9:]), le.Uint32(p[13:]), le.Uint32(p[17:]); int(x0) != r.Min.X || int(y0) != r.Min.Y || int(x1) != r.Max.X || int(y1) != r.Max.Y {
		return 0, nil, fmt.Errorf("tile %d has pixels (%d,%d)-(%d,%d), but the grid's tile %d is %v", id, x0, y0, x1, y1, id, r)
	}
	n := 3 * r.Dx() * r.Dy()
	if len(p) != tileFixed+4*n {
		return 0, nil, fmt.Errorf("tile %d has %d bytes of pixels, want %d", id, len(p)-tileFixed, 4*n)
	}
	pix := make([]float32, n)
	for i := range pix {
		pix[i] = math.Float32frombits(le.Uint32(p[tileFixed+4*i:]))
	}
	return id, pix, nil
}

// appendRecord appends payload to b as a record.
func appendRecord(b, payload []byte) []byte {
	var frame [frameSize]byte
	binary.LittleEndian.PutUint32(frame[:4], uint32(len(payload)))
	crc := crc32.Update(crc32.Checksum(frame[:4], castagnoli), castagnoli, payload)
	binary.LittleEndian.PutUint32(frame[4:], crc)
	return append(append(b, frame[:]...), payload...)
}

// Writer appends finished tiles to a checkpoint file. Add is meant to be
// called from scheduler.Options.Tile, one call at a time; it does not wait
// for the disk (see the package documentation).
type Writer struct {
	f       *os.File
	path    string // as given, for messages
	grid    []scheduler.Tile
	buf     []byte
	dirty   atomic.Bool // records written since the last fsync
	stop    chan struct{}
	stopped chan struct{}
	tiles   int

	mu  sync.Mutex
	err error // the first write or fsync error; the writer stops there
}

// Create starts a checkpoint at path for the render h describes. path must
// not exist: Create never overwrites a file. The header is on disk when
// Create returns.
func Create(path string, h Header) (*Writer, error) {
	return create(path, h, tracer.PixelVersion)
}

// create is Create for a trace of the given pixel version. The header is
// written and fsynced under a name of its own beside path, then linked to
// path, which fails if path exists: the checkpoint never appears without
// its whole header, so a render killed (or a machine that lost power) as
// it began leaves no file that --resume must refuse. Where links cannot be
// made, path is created in place.
func create(path string, h Header, pixelVersion uint32) (*Writer, error) {
	b := binary.LittleEndian.AppendUint32([]byte(magic), Version)
	b = appendRecord(b, encodeHeader(h, pixelVersion))
	dir, base := filepath.Split(path)
	removeStaleTemps(dir, base)
	tmp := filepath.Join(dir, tempPrefix(base)+strconv.Itoa(os.Getpid())+"-"+strconv.FormatUint(tempSeq.Add(1), 10))
	f, err := createHeader(tmp, b)
	if err != nil {
		return nil, fmt.Errorf("checkpoint %s: %w", path, err)
	}
	err = os.Link(tmp, path)
	os.Remove(tmp)
	if le, ok := errors.AsType[*os.LinkError](err); ok {
		err = le.Err
	}
	if errors.Is(err, fs.ErrExist) {
		f.Close()
		return nil, fmt.Errorf("checkpoint %s: %w", path, err)
	}
	if err != nil {
		// No links on this file system: create path itself.
		f.Close()
		if f, err = createHeader(path, b); err != nil {
			return nil, fmt.Errorf("checkpoint %s: %w", path, err)
		}
	}
	if err := syncDir(filepath.Dir(path)); err != nil {
		f.Close()
		os.Remove(path)
		return nil, fmt.Errorf("checkpoint %s: %w", path, err)
	}
	return newWriter(f, path, h), nil
}

// tempSeq numbers the files create writes headers into.
var tempSeq atomic.Uint64

// tempPrefix begins the name of the files create writes the header of a
// checkpoint named base into: .BASE.new-PID-N, hidden, with the creating
// process's ID and a number of that process's.
func tempPrefix(base string) string { return "." + base + ".new-" }

// tempPID returns the process ID in name when name is one of create's
// files for the checkpoint named base (.BASE.new-PID-N, both numbers
// decimal), and false for any other name.
func tempPID(name, base string) (int, bool) {
	rest, ok := strings.CutPrefix(name, tempPrefix(base))
	if !ok {
		return 0, false
	}
	pid, seq, ok := strings.Cut(rest, "-")
	digits := func(s string) bool { return s != "" && strings.Trim(s, "0123456789") == "" }
	if !ok || !digits(pid) || !digits(seq) {
		return 0, false
	}
	n, err := strconv.Atoi(pid)
	if err != nil || n <= 0 {
		return 0, false
	}
	return n, true
}

// removeStaleTemps removes from dir the files create left for the
// checkpoint named base when a process was killed between writing the
// header and linking it to its name. It removes only regular files named
// exactly as create names them (tempPID) whose process no longer runs on
// this machine and that no process holds locked, as create does while it
// writes one; a process ID used again since keeps its file, which is
// harmless. Where neither test can be made (no process IDs, or no locks
// on a network file system shared with another machine whose process ID
// is not running here), a file still being written could go, and its
// create then makes the checkpoint in place: nothing is lost. Errors are
// ignored: this is tidying only.
func removeStaleTemps(dir, base string) {
	entries, err := os.ReadDir(cmp.Or(dir, "."))
	if err != nil {
		return
	}
	for _, e := range entries {
		pid, ok := tempPID(e.Name(), base)
		if !ok || !e.Type().IsRegular() || pid == os.Getpid() || processRunning(pid) {
			continue
		}
		p := filepath.Join(dir, e.Name())
		f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK|openNoFollow, 0)
		if err != nil {
			continue
		}
		// Locked while the file is open, and still the file at p.
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && lock(f, true) == nil {
			if li, err := os.Lstat(p); err == nil && os.SameFile(fi, li) {
				os.Remove(p)
			}
		}
		f.Close()
	}
}

// beforeHeader is called as a file is about to get its header: where a
// process killed there would leave it empty (tests).
var beforeHeader = func() {}

// createHeader creates the new file at path, locked, and writes and
// fsyncs b, the checkpoint's beginning, into it. It removes the file it
// created when it fails after that.
func createHeader(path string, b []byte) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o666)
	if err != nil {
		return nil, pathErr(err)
	}
	err = lock(f, true)
	if err == nil {
		beforeHeader()
		_, err = f.Write(b)
	}
	if err == nil {
		err = f.Sync()
	}
	if err != nil {
		f.Close()
		os.Remove(path)
		return nil, err
	}
	return f, nil
}

// pathErr returns the error inside a *fs.PathError, for messages that
// name the path already.
func pathErr(err error) error {
	if pe, ok := errors.AsType[*fs.PathError](err); ok {
		return pe.Err
	}
	return err
}

// Append reopens the checkpoint c was read from (see Read) to add tiles
// after its intact part, truncating the damaged end that Read discarded.
func Append(c *Checkpoint) (*Writer, error) {
	f, err := openRegular(c.Path, os.O_RDWR|os.O_APPEND)
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*Writer, error) {
		f.Close()
		return nil, fmt.Errorf("checkpoint %s: %w", c.Path, err)
	}
	if err := lock(f, true); err != nil {
		return fail(err)
	}
	fi, err := f.Stat()
	if err != nil {
		return fail(err)
	}
	if c.file != nil && !os.SameFile(fi, c.file) {
		// Another file took the name since Read: cutting it to Size
		// would destroy its end.
		return fail(errors.New("another file took its name since it was read; nothing changed: resume again"))
	}
	if fi.Size() < c.Size {
		return fail(fmt.Errorf("shrank to %d bytes since it was read (%d)", fi.Size(), c.Size))
	}
	if fi.Size() > c.Size {
		if err := f.Truncate(c.Size); err != nil {
			return fail(err)
		}
		// The cut must be on disk before new records follow it, or a
		// power loss could bring the damaged bytes back between them.
		if err := f.Sync(); err != nil {
			return fail(err)
		}
	}
	return newWriter(f, c.Path, c.Header), nil
}

func newWriter(f *os.File, path string, h Header) *Writer {
	w := &Writer{
		f: f, path: path, grid: scheduler.Tiles(h.Settings.Width, h.Settings.Height, h.TileSize),
		stop: make(chan struct{}), stopped: make(chan struct{}),
	}
	go w.syncLoop()
	return w
}

// syncLoop fsyncs the file every SyncInterval while records arrive.
func (w *Writer) syncLoop() {
	defer close(w.stopped)
	t := time.NewTicker(SyncInterval)
	defer t.Stop()
	for {
		select {
		case <-w.stop:
			return
		case <-t.C:
			if w.dirty.Swap(false) {
				w.fail(w.f.Sync())
			}
		}
	}
}

// fail records err, if it is the first.
func (w *Writer) fail(err error) {
	if err == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == nil {
		w.err = fmt.Errorf("checkpoint %s: %w", w.path, err)
	}
}

// Err returns the first error that stopped the writer, if any.
func (w *Writer) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// Add appends a finished tile: its pixels in linear RGB, row by row, as
// scheduler.TileDone carries them. After an error — a full disk, say —
// the writer adds nothing more and Add returns that error; the file stays
// readable up to the last tile written.
func (w *Writer) Add(t scheduler.Tile, pix []float32) error {
	if err := w.Err(); err != nil {
		return err
	}
	if t.ID < 0 || t.ID >= len(w.grid) || w.grid[t.ID].Rect != t.Rect || len(pix) != 3*t.Rect.Dx()*t.Rect.Dy() {
		return fmt.Errorf("checkpoint: tile %d %v with %d values does not fit the tile grid", t.ID, t.Rect, len(pix))
	}
	le := binary.LittleEndian
	var frame [frameSize]byte
	p := append(w.buf[:0], frame[:]...)
	p = append(p, 'T')
	for _, v := range []int{t.ID, t.Rect.Min.X, t.Rect.Min.Y, t.Rect.Max.X, t.Rect.Max.Y} {
		p = le.AppendUint32(p, uint32(v))
	}
	for _, v := range pix {
		p = le.AppendUint32(p, math.Float32bits(v))
	}
	// The frame goes in front of the payload built after it, so that the
	// record leaves in one write.
	le.PutUint32(p, uint32(len(p)-frameSize))
	le.PutUint32(p[4:], crc32.Update(crc32.Checksum(p[:4], castagnoli), castagnoli, p[frameSize:]))
	w.buf = p
	if _, err := w.f.Write(p); err != nil {
		w.fail(err)
		return w.Err()
	}
	w.dirty.Store(true)
	w.tiles++
	return nil
}

// Tiles returns how many tiles Add has written.
func (w *Writer) Tiles() int { return w.tiles }

// Close fsyncs and closes the file, once Add is done; call it once. It
// returns the first error the writer met, if any.
func (w *Writer) Close() error {
	close(w.stop)
	<-w.stopped
	w.fail(w.f.Sync())
	w.fail(w.f.Close())
	return w.Err()
}

// syncDir fsyncs a folder, so that a file just created in it survives a
// power loss.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
		return err
	}
	return nil
}

// openRegular opens the existing regular file at path with flag. It
// refuses anything else — a named pipe, whose open would block until a
// writer came, a device, a folder — checking before it opens, and again
// on the open file (opened without blocking, which a regular file
// ignores) in case the path changed in between.
func openRegular(path string, flag int) (*os.File, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, notRegular(path, fi.Mode())
	}
	f, err := os.OpenFile(path, flag|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	if fi, err = f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("checkpoint: %w", err)
		}
		return nil, notRegular(path, fi.Mode())
	}
	return f, nil
}

func notRegular(path string, m os.FileMode) error {
	kind := "not a regular file"
	switch {
	case m&os.ModeNamedPipe != 0:
		kind = "a named pipe (FIFO), not a regular file"
	case m.IsDir():
		kind = "a folder, not a file"
	case m&(os.ModeDevice|os.ModeCharDevice) != 0:
		kind = "a device, not a regular file"
	case m&os.ModeSocket != 0:
		kind = "a socket, not a regular file"
	}
	return fmt.Errorf("checkpoint %s: %s: a checkpoint is a file that --checkpoint wrote", path, kind)
}

// checkPixels returns an error naming the first value of a tile's linear
// RGB pixels that no render produces: NaN, infinite or negative (the
// tracer drops non-finite samples, and radiance is never negative). It
// applies the check scheduler/remote applies to a worker's tiles.
func checkPixels(pix []float32) error {
	for i, v := range pix {
		if !(v >= 0) || math.IsInf(float64(v), 1) {
			return fmt.Errorf("pixel %d channel %d is %v", i/3, i%3, v)
		}
	}
	return nil
}

package imageio

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/tracerender/trace/tracer"
)

// Image file formats of an Output.
const (
	FormatPNG  = "png" // tone-mapped, 8 or 16 bits a channel
	FormatPFM  = "pfm" // linear radiance, a little-endian colour Portable Float Map
	FormatEXR  = "exr" // linear radiance, OpenEXR scanlines of half or float, ZIP or uncompressed
	FormatHDR  = "hdr" // linear radiance, Radiance RGBE, run-length encoded
	FormatJPEG = "jpg" // tone-mapped, 8 bits a channel, baseline JPEG
)

// Formats are the formats an Output writes, each with the file name
// extensions that choose it (lower case; any case matches).
var Formats = []struct {
	Name string
	Exts []string
}{
	{FormatPNG, []string{".png"}},
	{FormatPFM, []string{".pfm"}},
	{FormatEXR, []string{".exr"}},
	{FormatHDR, []string{".hdr"}},
	{FormatJPEG, []string{".jpg", ".jpeg"}},
}

// FormatNames lists the formats' names, as "png, pfm, exr, hdr or jpg".
func FormatNames() string {
	var names []string
	for _, f := range Formats {
		names = append(names, f.Name)
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// FormatExtensions lists the extensions, as ".png, .pfm, .exr, .hdr or .jpg".
func FormatExtensions() string {
	var exts []string
	for _, f := range Formats {
		exts = append(exts, f.Exts[0])
	}
	return strings.Join(exts[:len(exts)-1], ", ") + " or " + exts[len(exts)-1]
}

// FormatOfName returns the format that path's extension chooses, or "".
func FormatOfName(path string) string {
	ext := strings.ToLower(filepath.Ext(path))
	for _, f := range Formats {
		if slices.Contains(f.Exts, ext) {
			return f.Name
		}
	}
	return ""
}

// knownFormat reports whether name is one of Formats (or "jpeg").
func knownFormat(name string) (string, bool) {
	if name == "jpeg" {
		return FormatJPEG, true
	}
	for _, f := range Formats {
		if f.Name == name {
			return name, true
		}
	}
	return "", false
}

// Encoding says how an Output encodes the image. Its zero value takes the
// format from the output's name and each format's defaults.
type Encoding struct {
	// Format is one of Formats' names ("jpeg" is jpg), or "" for the one
	// the output's name chooses (see OutputFormat).
	Format string
	// Depth is the bits a channel: 8 (default) or 16 for a PNG, 16
	// (half, default) or 32 (float) for an EXR; 0 means the default, and
	// the other formats take 0 only (PFM is float, Radiance RGBE and JPEG
	// 8 bits).
	Depth int
	// Compression is an EXR's: "zip" (default: zlib, 16 scanlines a
	// block) or "none".
	Compression string
	// Quality is a JPEG's, 1 to 100; 0 means DefaultJPEGQuality.
	Quality int
}

// DefaultJPEGQuality is a JPEG's quality when Encoding.Quality is 0.
const DefaultJPEGQuality = 90

// EXR compressions (Encoding.Compression).
const (
	CompressionZIP  = "zip"
	CompressionNone = "none"
)

// EncodingError is a setting of an Encoding that the output's format
// does not take.
type EncodingError struct {
	Setting string // "format", "depth", "compression" or "quality"
	Value   string
	Msg     string
}

func (e *EncodingError) Error() string { return e.Setting + " " + e.Value + ": " + e.Msg }

// resolve fills in the format (from path, see OutputFormat) and the
// format's defaults, and checks the rest against the format.
func (e Encoding) resolve(path string) (Encoding, error) {
	format, err := OutputFormat(path, e.Format)
	if err != nil {
		return e, err
	}
	e.Format = format
	bad := func(setting string, value any, msg string) (Encoding, error) {
		return e, &EncodingError{setting, fmt.Sprint(value), msg}
	}
	name := strings.ToUpper(format)
	switch format {
	case FormatPNG:
		if e.Depth == 0 {
			e.Depth = 8
		}
		if e.Depth != 8 && e.Depth != 16 {
			return bad("depth", e.Depth, "a PNG has 8 or 16 bits a channel")
		}
	case FormatEXR:
		if e.Depth == 0 {
			e.Depth = 16
		}
		if e.Depth != 16 && e.Depth != 32 {
			return bad("depth", e.Depth, "an EXR has 16 (half) or 32 (float) bits a channel")
		}
		if e.Compression == "" {
			e.Compression = CompressionZIP
		}
		if e.Compression != CompressionZIP && e.Compression != CompressionNone {
			return bad("compression", e.Compression, "an EXR is written with zip or none")
		}
	default:
		if e.Depth != 0 {
			return bad("depth", e.Depth, "only PNG (8 or 16) and EXR (16 or 32) output have a choice of depth, and the output is "+aFile(name))
		}
	}
	if format != FormatEXR && e.Compression != "" {
		return bad("compression", e.Compression, "only EXR output has a choice of compression, and the output is "+aFile(name))
	}
	if format == FormatJPEG {
		if e.Quality == 0 {
			e.Quality = DefaultJPEGQuality
		}
		if e.Quality < 1 || e.Quality > 100 {
			return bad("quality", e.Quality, "a JPEG's quality is 1 to 100")
		}
	} else if e.Quality != 0 {
		return bad("quality", e.Quality, "only JPEG output has a quality, and the output is "+aFile(name))
	}
	return e, nil
}

// CheckEncoding returns enc resolved for an output at path ("" for a
// stream): its format found, its defaults filled in; or the error
// Create would return for it. A bad setting is an *EncodingError.
func CheckEncoding(path string, enc Encoding) (Encoding, error) {
	return enc.resolve(path)
}

// Output is an image being made, written by Commit once the render is done.
//
// Into a file (Create on a path that does not exist, or names a
// regular file or a symbolic link to one): a temporary file beside the
// final file, renamed over it by Commit, so that no reader ever sees half
// an image and a failed or cancelled render leaves nothing behind. A
// symbolic link is resolved first, so that the link stays and its target
// is replaced. A new file gets the permissions that the umask (or the
// folder's default ACL) gives 0666; a replaced file keeps its permissions
// (not its owner or group, which only root could keep).
//
// Into a stream: standard output (Stream), or a character device or
// named pipe that Create is given (/dev/null, /dev/stdout, a FIFO),
// which is written through, never replaced. Directories, sockets and block
// devices are refused.
type Output struct {
	name   string      // the path as given, for messages
	target string      // the file Commit replaces, links resolved; "" for a stream
	enc    Encoding    // resolved: a format, and its defaults filled in
	mode   fs.FileMode // permissions of the replaced file; 0 for a new one
	tmp    *os.File    // the temporary file, or nil

	w    io.Writer // the stream, or nil
	dev  *os.File  // the device or pipe opened by Create, which Commit closes; nil for standard output
	fifo string    // a named pipe that had no reader yet: Commit opens it
	// fifoInfo describes the named pipe fifo names, as Create found it:
	// Commit writes into that pipe only, not into whatever has taken
	// its name since (a regular file it would overwrite, a device).
	fifoInfo fs.FileInfo
	// truncate says that dev is a regular file reached through a link
	// (written through, not replaced), which Commit empties first.
	truncate bool
}

// OutputFormat returns the format for an output path and a requested
// format ("" for none): the requested one, else the one the name's
// extension chooses (see Formats). A name with no extension that is a
// character device or a named pipe (/dev/null, /dev/stdout) is a PNG, and
// so is path "" (a stream); any other name must choose a format. A
// request that contradicts the name's extension is an error.
func OutputFormat(path, format string) (string, error) {
	byName := FormatOfName(path)
	if format == "" {
		switch {
		case byName != "":
			return byName, nil
		case path == "" || filepath.Ext(path) == "" && isStream(path):
			return FormatPNG, nil
		case filepath.Ext(path) == "":
			return "", fmt.Errorf("output %s: the name has no extension to tell the image format: end it in %s", path, FormatExtensions())
		}
		return "", fmt.Errorf("output %s: %q is not an image format trace writes: end the name in %s", path, filepath.Ext(path), FormatExtensions())
	}
	f, ok := knownFormat(strings.ToLower(format))
	if !ok {
		return "", &EncodingError{"format", format, "must be " + FormatNames()}
	}
	if byName != "" && byName != f {
		return "", &EncodingError{"format", format, fmt.Sprintf("the output %s names %s", path, aFile(strings.ToUpper(byName)))}
	}
	return f, nil
}

// isStream reports whether path is a character device or a named pipe.
func isStream(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode()&(fs.ModeCharDevice|fs.ModeNamedPipe) != 0
}

// Create checks that path can be written and opens what Commit will
// fill, an image encoded as enc says (see Encoding and OutputFormat). Call
// it before rendering so an unwritable path or an encoding the format
// does not have fails at once. It also removes the temporary files that
// renders of the same path killed before their end left behind (those of
// processes of this machine that are gone).
func Create(path string, enc Encoding) (*Output, error) {
	enc, err := enc.resolve(path)
	if err != nil {
		return nil, err
	}
	o := &Output{name: path, target: path, enc: enc}
	fi, err := os.Stat(path) // through symbolic links
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if li, lerr := os.Lstat(path); lerr == nil && li.Mode()&fs.ModeSymlink != 0 {
			dest, _ := os.Readlink(path)
			return nil, fmt.Errorf("output %s: is a symbolic link to %s, which does not exist", path, dest)
		}
	case err != nil:
		return nil, fmt.Errorf("output %s: cannot write: %w", path, pathErr(err))
	case fi.Mode().IsRegular():
		o.mode = fi.Mode().Perm()
		if real, err := filepath.EvalSymlinks(path); err == nil {
			o.target = real
		} else {
			// A link the kernel follows and EvalSymlinks cannot (such
			// as /dev/stdout redirected to a deleted file): write
			// through it.
			return o.openDevice(fi)
		}
	default:
		return o.openDevice(fi)
	}
	dir, base := filepath.Split(o.target)
	if dir == "" {
		dir = "."
	}
	removeStaleTemps(dir, base)
	if o.tmp, err = createTemp(dir, base); err != nil {
		return nil, fmt.Errorf("output %s: cannot write: %w", path, pathErr(err))
	}
	return o, nil
}

// Stream returns an Output that Commit writes to w (standard output,
// say), encoded as enc says (a PNG unless enc.Format says otherwise).
// Commit does not close w.
func Stream(w io.Writer, enc Encoding) (*Output, error) {
	enc, err := enc.resolve("")
	if err != nil {
		return nil, err
	}
	return &Output{name: "standard output", enc: enc, w: w}, nil
}

// openDevice sets o up to write through the existing file described by
// fi, which is not a directory or a regular file Create can replace.
func (o *Output) openDevice(fi fs.FileInfo) (*Output, error) {
	o.target = ""
	m := fi.Mode()
	switch {
	case m.IsDir():
		return nil, fmt.Errorf("output %s: is a directory", o.name)
	case m&fs.ModeSocket != 0:
		return nil, fmt.Errorf("output %s: is a socket; cannot write an image to it", o.name)
	case m&fs.ModeDevice != 0 && m&fs.ModeCharDevice == 0:
		return nil, fmt.Errorf("output %s: is a block device; refusing to write an image onto it", o.name)
	}
	// A character device, a named pipe, or a regular file reached through
	// a link: written in place. O_NONBLOCK keeps a pipe without a reader
	// from blocking here.
	f, err := os.OpenFile(o.name, os.O_WRONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		if m&fs.ModeNamedPipe != 0 && errors.Is(err, syscall.ENXIO) {
			o.fifo, o.fifoInfo = o.name, fi // no reader yet: Commit waits for one
			return o, nil
		}
		return nil, fmt.Errorf("output %s: cannot write: %w", o.name, pathErr(err))
	}
	o.dev, o.w = f, f
	o.truncate = m.IsRegular()
	return o, nil
}

// pathErr returns the error inside a *fs.PathError, whose path the
// message names already.
func pathErr(err error) error {
	if pe, ok := errors.AsType[*fs.PathError](err); ok {
		return pe.Err
	}
	return err
}

// Path returns the path as given (for a Stream, "standard output").
func (o *Output) Path() string { return o.name }

// Format returns the output's format, one of Formats' names.
func (o *Output) Format() string { return o.enc.Format }

// Encoding returns how the output is encoded, defaults filled in.
func (o *Output) Encoding() Encoding { return o.enc }

// IsFile reports whether the output is the file at path p: the same file
// (os.SameFile) where both exist, else the same cleaned absolute path. A
// Stream is no file.
func (o *Output) IsFile(p string) bool {
	if o.target == "" && o.dev == nil && o.fifo == "" {
		return false
	}
	if a, err := os.Stat(o.name); err == nil {
		b, err := os.Stat(p)
		return err == nil && os.SameFile(a, b)
	}
	x, err1 := filepath.Abs(o.name)
	y, err2 := filepath.Abs(p)
	return err1 == nil && err2 == nil && x == y
}

// Commit writes the framebuffer: into the temporary file, then renamed
// into place, or into the stream. Writing into a stream — waiting for a
// named pipe's reader, or for a reader that has stopped reading — ends
// with ctx's error when ctx ends (into the writer of Stream, the write
// goes on in the background: see encodeUntil); a temporary file is
// written whole whatever ctx does.
func (o *Output) Commit(ctx context.Context, fb *tracer.Framebuffer, film *tracer.Film) error {
	if o.tmp == nil {
		return o.commitStream(ctx, fb, film)
	}
	err := o.encode(o.tmp, fb, film)
	if err == nil && o.mode != 0 {
		err = o.tmp.Chmod(o.mode)
	}
	if err == nil {
		err = o.tmp.Sync()
	}
	if cerr := o.tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		// Whatever replaced the target while the render ran, a rename
		// never goes over a directory, device, pipe or socket.
		if fi, lerr := os.Lstat(o.target); lerr == nil && !fi.Mode().IsRegular() && fi.Mode()&fs.ModeSymlink == 0 {
			err = fmt.Errorf("%s is no longer a regular file (%s); the image was not written", o.target, fi.Mode().Type())
		} else {
			err = os.Rename(o.tmp.Name(), o.target)
		}
	}
	if err != nil {
		os.Remove(o.tmp.Name())
		return fmt.Errorf("output %s: %w", o.name, err)
	}
	return nil
}

// commitStream is Commit for a stream.
func (o *Output) commitStream(ctx context.Context, fb *tracer.Framebuffer, film *tracer.Film) error {
	if o.fifo != "" && o.dev == nil {
		f, err := openReader(ctx, o.fifo, o.fifoInfo)
		if err != nil {
			return fmt.Errorf("output %s: %w", o.name, err)
		}
		o.dev, o.w = f, f
	}
	var err error
	if o.truncate {
		err = o.dev.Truncate(0)
	}
	if err == nil {
		if dev := o.dev; dev != nil {
			// A pipe opened without blocking takes a deadline: ctx's
			// end sets one in the past, which ends a write waiting for
			// a reader that does not read. (A device that takes none
			// never makes a write wait.)
			stop := context.AfterFunc(ctx, func() { dev.SetWriteDeadline(time.Now()) })
			err = o.encode(o.w, fb, film)
			stop()
		} else {
			err = o.encodeUntil(ctx, fb, film)
		}
		if err != nil && ctx.Err() != nil {
			err = ctx.Err()
		}
	}
	if o.dev != nil {
		if cerr := o.dev.Close(); err == nil {
			err = cerr
		}
		o.dev = nil
	}
	if err != nil {
		return fmt.Errorf("output %s: %w", o.name, err)
	}
	return nil
}

// encodeUntil encodes the image into the writer of Stream, or returns
// ctx's error once ctx ends first. That writer (standard output, a pipe
// whose reader has stopped reading) may block for good and takes no
// deadline, so the encoding runs on its own goroutine, which is left to
// finish or block when ctx ends: a process that is interrupted exits
// rather than waiting on its reader.
func (o *Output) encodeUntil(ctx context.Context, fb *tracer.Framebuffer, film *tracer.Film) error {
	done := make(chan error, 1)
	go func() { done <- o.encode(o.w, fb, film) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		select {
		case err := <-done: // it finished as ctx ended
			return err
		default:
			return ctx.Err()
		}
	}
}

// fifoPoll is how often Commit tries again to open a named pipe that has
// no reader yet.
const fifoPoll = 50 * time.Millisecond

// openReader opens the named pipe at path, the one that want describes,
// for writing once a reader has opened it, or returns ctx's error when
// ctx ends first. The pipe is opened without blocking (a plain open would
// wait for the reader where nothing can end it), so writes to it take
// deadlines. What path names once opened must still be that pipe: a
// render can last hours, and a regular file or a device put in the
// pipe's place meanwhile is refused, not written over.
func openReader(ctx context.Context, path string, want fs.FileInfo) (*os.File, error) {
	t := time.NewTicker(fifoPoll)
	defer t.Stop()
	for {
		f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0)
		if err == nil {
			fi, err := f.Stat()
			if err != nil || fi.Mode()&fs.ModeNamedPipe == 0 || want != nil && !os.SameFile(fi, want) {
				f.Close()
				return nil, errors.New("is no longer the named pipe it was when the render began; nothing written")
			}
			return f, nil
		}
		if !errors.Is(err, syscall.ENXIO) {
			return nil, pathErr(err)
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("no reader opened the pipe: %w", ctx.Err())
		case <-t.C:
		}
	}
}

// encode writes the image to w in o's format.
func (o *Output) encode(w io.Writer, fb *tracer.Framebuffer, film *tracer.Film) error {
	switch o.enc.Format {
	case FormatPFM:
		return WritePFM(w, fb)
	case FormatEXR:
		return WriteEXR(w, fb, o.enc.Depth == 32, o.enc.Compression == CompressionZIP)
	case FormatHDR:
		return WriteHDR(w, fb)
	case FormatJPEG:
		return WriteJPEG(w, fb, film, o.enc.Quality)
	}
	return fb.WritePNG(w, film, o.enc.Depth)
}

// Abort removes the temporary file, or closes the device. It is safe to
// call after Commit.
func (o *Output) Abort() {
	if o.tmp != nil {
		o.tmp.Close()
		os.Remove(o.tmp.Name())
	}
	if o.dev != nil {
		o.dev.Close()
		o.dev = nil
	}
}

// Temporary files are named .NAME.trace-tmp-HOST-PID-N, beside the output
// NAME: HOST a hash of this machine's name, PID the process making it and
// N a counter. A render that is killed (SIGKILL, a crash, a power loss)
// cannot remove its file; the next Create of the same NAME removes
// those whose HOST is this machine and whose process no longer runs. (The
// folder may be shared with other machines, whose processes this one
// cannot see: their files are left alone.)

// tempSeq numbers the temporary files of this process.
var tempSeq atomic.Uint64

// tempHost is this machine's part of a temporary file's name.
var tempHost = sync.OnceValue(func() string {
	name, err := os.Hostname()
	if err != nil {
		name = "localhost"
	}
	h := fnv.New32a()
	h.Write([]byte(name))
	return fmt.Sprintf("%08x", h.Sum32())
})

// tempPrefix is how the names of the temporary files of output base begin.
func tempPrefix(base string) string { return "." + base + ".trace-tmp-" }

// createTemp creates a new temporary file for output base in dir. It is
// created with mode 0666, so that the kernel applies the umask (and any
// default ACL) as for any new file: reading the umask itself would mean
// setting it, which races with other goroutines creating files.
func createTemp(dir, base string) (*os.File, error) {
	prefix := filepath.Join(dir, tempPrefix(base)+tempHost()+"-"+strconv.Itoa(os.Getpid())+"-")
	for {
		f, err := os.OpenFile(prefix+strconv.FormatUint(tempSeq.Add(1), 10), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
}

// removeStaleTemps removes the temporary files of output base in dir that
// processes of this machine which are gone left behind. Errors are
// ignored: a file that stays is only clutter.
func removeStaleTemps(dir, base string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	prefix := tempPrefix(base) + tempHost() + "-"
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok || !e.Type().IsRegular() {
			continue
		}
		pidText, seq, ok := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if !ok || err != nil || pid <= 0 || pid == os.Getpid() {
			continue
		}
		if _, err := strconv.ParseUint(seq, 10, 64); err != nil || processAlive(pid) {
			continue
		}
		os.Remove(filepath.Join(dir, e.Name()))
	}
}

// processAlive reports whether process pid may still run: only a process
// known to be gone gives false (where signal 0 cannot be sent, as on
// Windows, every process found counts as alive).
func processAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	defer p.Release()
	return !errors.Is(p.Signal(syscall.Signal(0)), os.ErrProcessDone)
}

// aFile is "a PNG file", "an EXR file": a format's name with its article.
func aFile(name string) string {
	if name == "EXR" || name == "HDR" {
		return "an " + name + " file"
	}
	return "a " + name + " file"
}

package scenes

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
)

// objChunkSize is the size of the chunks that an OBJ file's text is cut
// into, at statement boundaries, and decoded on every core (objdecode.go):
// 1 MiB, so that the chunks in flight, a few per core, take little memory
// beside the mesh. Tests make it smaller to cut files everywhere.
var objChunkSize = 1 << 20

// objText is the text of an OBJ file: in memory (a bundle's file, or a
// file that a bundle records), or a file on disk, read a chunk at a time
// rather than whole.
type objText struct {
	data []byte
	file *os.File
	size int64
	free chan []byte // a file's chunk buffers, for reuse
}

// openText returns the text of the OBJ file at the absolute path p (from
// assets.resolve), counting its size against MaxAssetBytes as read does.
func (a *assets) openText(p string) (*objText, error) {
	if a.files != nil || a.record != nil {
		data, err := a.read(p)
		if err != nil {
			return nil, err
		}
		return &objText{data: data}, nil
	}
	f, size, err := openRegular(p)
	if err != nil {
		return nil, err
	}
	if size > MaxAssetBytes-a.used {
		f.Close()
		return nil, fmt.Errorf("the scene's files together are larger than the limit of %d bytes (MaxAssetBytes)", int64(MaxAssetBytes))
	}
	a.used += size
	return &objText{file: f, size: size, free: make(chan []byte, 4*runtime.GOMAXPROCS(0)+4)}, nil
}

// close closes the file, if any.
func (t *objText) close() {
	if t.file != nil {
		t.file.Close()
	}
}

// chunks calls yield with the text in order, in chunks of about
// objChunkSize bytes (longer where a statement is) that each end after a
// line that does not end in a backslash, so that no statement straddles
// two; the first chunk starts after the byte order mark, if any. It stops
// when yield returns false, and returns the error of reading the file.
// A chunk of a file is yield's until it gives it back with release.
func (t *objText) chunks(yield func(chunk []byte) bool) error {
	if t.file == nil {
		data := bytes.TrimPrefix(t.data, utf8BOM)
		for len(data) > 0 {
			n := objCut(data, objChunkSize)
			if !yield(data[:n]) {
				return nil
			}
			data = data[n:]
		}
		return nil
	}
	if _, err := t.file.Seek(0, io.SeekStart); err != nil {
		return err
	}
	r := io.LimitReader(t.file, t.size)
	var carry []byte // the start of the next chunk, read with the last one
	first := true
	for {
		buf := t.buffer(max(objChunkSize, 2*len(carry)))
		n := copy(buf, carry)
		m, err := io.ReadFull(r, buf[n:])
		n += m
		eof := errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
		if err != nil && !eof {
			return err
		}
		data := buf[:n]
		if first {
			if !eof && len(data) < len(utf8BOM) && bytes.HasPrefix(utf8BOM, data) {
				carry = append(carry[:0:0], data...) // maybe a byte order mark: read on
				t.release(buf)
				continue
			}
			data, first = bytes.TrimPrefix(data, utf8BOM), false
		}
		cut := len(data)
		if !eof {
			cut = objLastBoundary(data)
			if cut < 0 { // a statement longer than the buffer: read on
				carry = append(carry[:0:0], data...)
				t.release(buf)
				continue
			}
		}
		carry = append(carry[:0], data[cut:]...)
		if cut > 0 && !yield(data[:cut]) {
			return nil
		}
		if eof {
			return nil
		}
	}
}

// buffer returns a buffer of at least n bytes for a chunk of the file.
func (t *objText) buffer(n int) []byte {
	select {
	case b := <-t.free:
		if cap(b) >= n {
			return b[:n]
		}
	default:
	}
	return make([]byte, n)
}

// release gives back a chunk that chunks yielded, once it is decoded.
func (t *objText) release(chunk []byte) {
	if t.free == nil {
		return
	}
	select {
	case t.free <- chunk[:cap(chunk)]:
	default:
	}
}

// objCut returns the length of the first chunk of data: at least size
// bytes (or all of data), ending at a statement boundary.
func objCut(data []byte, size int) int {
	if len(data) <= size {
		return len(data)
	}
	if n := objLastBoundary(data[:size]); n > 0 {
		return n
	}
	for i := size; i < len(data); {
		k := bytes.IndexByte(data[i:], '\n')
		if k < 0 {
			break
		}
		i += k + 1
		if objBoundary(data, i-1) {
			return i
		}
	}
	return len(data)
}

// objLastBoundary returns the length of the longest start of data that
// ends at a statement boundary (a newline after a line that does not end
// in a backslash), or −1 if there is none.
func objLastBoundary(data []byte) int {
	for i := len(data); ; {
		i = bytes.LastIndexByte(data[:i], '\n')
		if i < 0 {
			return -1
		}
		if objBoundary(data, i) {
			return i + 1
		}
	}
}

// objBoundary reports whether the newline data[i] ends a statement: its
// line, less one carriage return (as cutLine reads it), does not end in a
// backslash. The line must start in data.
func objBoundary(data []byte, i int) bool {
	j := i
	if j > 0 && data[j-1] == '\r' {
		j--
	}
	return j == 0 || data[j-1] != '\\'
}

// objJob is a chunk on its way through read: decoded by a worker into c,
// then applied in order.
type objJob struct {
	text []byte
	c    *objChunk
	done chan struct{}
}

// read reads the OBJ text t: its statements counted (reserve), then its
// chunks decoded on every core and applied in order.
func (p *objParser) read(t *objText) error {
	p.blender = blenderOBJFile(t.head(256))
	if err := p.reserve(t); err != nil {
		return fileError(p.path, err)
	}
	workers := runtime.GOMAXPROCS(0)
	if workers == 1 || t.file == nil && len(t.data) <= objChunkSize {
		var c objChunk
		lines := 0
		var err error
		rerr := t.chunks(func(text []byte) bool {
			decodeOBJ(&c, text)
			t.release(text)
			err = p.apply(&c, lines)
			lines += c.lines
			return err == nil
		})
		if err != nil {
			return err
		}
		if rerr != nil {
			return fileError(p.path, rerr)
		}
		return nil
	}

	order := make(chan *objJob, workers) // the chunks in flight, in file order
	jobs := make(chan *objJob)
	stop := make(chan struct{})
	spare := make(chan *objChunk, 2*workers+2)
	var rerr error
	var wg sync.WaitGroup
	wg.Add(1 + workers)
	go func() {
		defer wg.Done()
		defer close(jobs)
		defer close(order)
		rerr = t.chunks(func(text []byte) bool {
			j := &objJob{text: text, done: make(chan struct{})}
			select {
			case order <- j:
			case <-stop:
				return false
			}
			select {
			case jobs <- j:
			case <-stop:
				return false
			}
			return true
		})
	}()
	for range workers {
		go func() {
			defer wg.Done()
			for j := range jobs {
				select {
				case j.c = <-spare:
				default:
					j.c = new(objChunk)
				}
				decodeOBJ(j.c, j.text)
				t.release(j.text)
				close(j.done)
			}
		}()
	}
	lines := 0
	var err error
	for j := range order {
		<-j.done
		err = p.apply(j.c, lines)
		lines += j.c.lines
		select {
		case spare <- j.c:
		default:
		}
		if err != nil {
			break
		}
	}
	close(stop)
	wg.Wait()
	if err != nil {
		return err
	}
	if rerr != nil {
		return fileError(p.path, rerr)
	}
	return nil
}

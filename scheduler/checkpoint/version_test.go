package checkpoint

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tracerender/trace/tracer"
)

// A checkpoint written by a trace of another pixel version is refused,
// naming both versions: its tiles could differ from this trace's.
func TestOtherPixelVersionRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ck")
	w, err := create(path, testHeader, tracer.PixelVersion+1)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Add(testGrid[0], tilePixels(0)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	_, err = Read(path, testHeader)
	want := fmt.Sprintf("written by a trace of pixel version %d, whose tiles could differ from what this trace (pixel version %d) renders", tracer.PixelVersion+1, tracer.PixelVersion)
	if err == nil || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), "checkpoint "+path+": ") {
		t.Errorf("error %v, want one naming the file and saying %q", err, want)
	}
	// The same file at this trace's pixel version is read.
	path2 := filepath.Join(t.TempDir(), "ck")
	w, err = Create(path2, testHeader)
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	if _, err := Read(path2, testHeader); err != nil {
		t.Errorf("this pixel version: %v", err)
	}
}

// A version 1 checkpoint (before pixel versions) is refused with the
// reason, and a header whose settings are another trace's length is
// refused as another trace's, not read as damage.
func TestOtherTracesCheckpointsRefused(t *testing.T) {
	dir := t.TempDir()
	v1 := binary.LittleEndian.AppendUint32([]byte(magic), 1)
	v1 = appendRecord(v1, make([]byte, 1+32+5*4+8+4))
	longer := binary.LittleEndian.AppendUint32([]byte(magic), Version)
	longer = appendRecord(longer, append(encodeHeader(testHeader, tracer.PixelVersion), 0, 0, 0, 0))
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"v1", v1, "format version 1, written by a trace from before pixel versions"},
		{"longer settings", longer, "header: render settings of " + fmt.Sprint(tracer.SettingsSize+4) + " bytes"},
	} {
		path := filepath.Join(dir, c.name)
		if err := os.WriteFile(path, c.data, 0o666); err != nil {
			t.Fatal(err)
		}
		if _, err := Read(path, testHeader); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.name, err, c.want)
		}
	}
}

// Every field of the render settings that differs is named, by
// reflection: a setting added to tracer.Settings is checked with no
// more code.
func TestEverySettingChecked(t *testing.T) {
	path, _ := writeCheckpoint(t, 0)
	typ := reflect.TypeFor[tracer.Settings]()
	for i := range typ.NumField() {
		want := testHeader
		f := reflect.ValueOf(&want.Settings).Elem().Field(i)
		switch {
		case f.CanInt():
			f.SetInt(f.Int() + 1)
		case f.CanUint():
			f.SetUint(f.Uint() + 1)
		case f.CanFloat():
			f.SetFloat(f.Float() + 0.5)
		default:
			t.Fatalf("tracer.Settings.%s is a %s: teach this test to change it", typ.Field(i).Name, f.Type())
		}
		name := settingName(typ.Field(i).Name)
		_, err := Read(path, want)
		if err == nil || !strings.Contains(err.Error(), "written with other settings: "+name+" ") {
			t.Errorf("%s changed: %v, want it named as %q", typ.Field(i).Name, err, name)
		}
	}
}

package tracer

import (
	"bytes"
	rf "reflect"
	"strings"
	"testing"
)

// setField sets v, a field of Settings, to a value unlike the zero value
// and unlike any other field's (k is the field's index), at the edge of
// its type's range where one is meant to round-trip.
func setField(t *testing.T, name string, v rf.Value, k int) {
	t.Helper()
	switch v.Kind() {
	case rf.Int, rf.Int8, rf.Int16, rf.Int32, rf.Int64:
		// Negative, with high bits set: -(7 + k) · 2^(bits − 8).
		v.SetInt(int64(-7-k) << (v.Type().Bits() - 8))
	case rf.Uint, rf.Uint8, rf.Uint16, rf.Uint32, rf.Uint64, rf.Uintptr:
		// The top byte of the type set: 0xf1 + k followed by zeros.
		v.SetUint(uint64(0xf1+k) << (v.Type().Bits() - 8))
	case rf.Float32, rf.Float64:
		v.SetFloat(-1.5 - float64(k))
	case rf.Bool:
		v.SetBool(true)
	case rf.String:
		v.SetString("x" + strings.Repeat("y", k))
	default:
		t.Fatalf("Settings.%s is a %s, which this test cannot set: teach it (and the encoding, tracer/settings.go) that kind", name, v.Type())
	}
}

// Every field of Settings, set alone or with all the others, survives the
// binary encoding and changes it: a setting added to Settings but not to
// MarshalBinary and UnmarshalBinary fails here, naming the field.
func TestSettingsEncodingCarriesEveryField(t *testing.T) {
	zero, err := Settings{}.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if len(zero) != SettingsSize {
		t.Fatalf("MarshalBinary gives %d bytes; SettingsSize is %d", len(zero), SettingsSize)
	}
	var all Settings
	typ := rf.TypeFor[Settings]()
	for k := range typ.NumField() {
		name := typ.Field(k).Name
		var one Settings
		setField(t, name, rf.ValueOf(&one).Elem().Field(k), k)
		setField(t, name, rf.ValueOf(&all).Elem().Field(k), k)
		b, err := one.MarshalBinary()
		if err != nil {
			t.Fatalf("Settings.%s: %v", name, err)
		}
		if bytes.Equal(b, zero) {
			t.Errorf("Settings.%s = %v: encoded as the zero Settings are; the encoding (tracer/settings.go) does not carry it", name, rf.ValueOf(one).Field(k))
		}
		var got Settings
		if err := got.UnmarshalBinary(b); err != nil {
			t.Fatalf("Settings.%s: %v", name, err)
		}
		if got != one {
			t.Errorf("Settings.%s: %+v came back as %+v; the encoding (tracer/settings.go) does not carry it", name, one, got)
		}
	}
	b, err := all.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != SettingsSize {
		t.Errorf("MarshalBinary gives %d bytes for %+v; SettingsSize is %d", len(b), all, SettingsSize)
	}
	var got Settings
	if err := got.UnmarshalBinary(b); err != nil || got != all {
		t.Errorf("%+v came back as %+v (%v)", all, got, err)
	}
	app, _ := all.AppendBinary([]byte("prefix"))
	if !bytes.Equal(app, append([]byte("prefix"), b...)) {
		t.Errorf("AppendBinary does not append MarshalBinary's bytes")
	}
}

// Data of another length is refused with a message, not misread.
func TestSettingsUnmarshalRefusesOtherLengths(t *testing.T) {
	good, _ := Settings{Width: 4, Height: 3, Samples: 2}.MarshalBinary()
	for _, data := range [][]byte{nil, good[:SettingsSize-1], append(good, 0)} {
		s := Settings{Width: 9}
		err := s.UnmarshalBinary(data)
		if err == nil || !strings.Contains(err.Error(), "another version of trace") {
			t.Errorf("%d bytes: err %v, want a refusal naming another version of trace", len(data), err)
		}
		if s.Width != 9 {
			t.Errorf("%d bytes: a refused decode changed the settings to %+v", len(data), s)
		}
	}
}

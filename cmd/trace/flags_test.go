package main

import (
	"strings"
	"testing"
	"time"
)

// TestByteSize: the worker's byte flags take a whole number, or one with
// a binary or decimal unit, and print their defaults in the largest
// binary unit they are whole in.
func TestByteSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
	}{
		{"1073741824", 1 << 30}, {"2GiB", 2 << 30}, {"2 GiB", 2 << 30}, {"512MiB", 512 << 20},
		{"3KiB", 3 << 10}, {"1TiB", 1 << 40}, {"500MB", 500e6}, {"2GB", 2e9}, {"7kB", 7000},
		{"1TB", 1e12}, {"12B", 12}, {"0", 0}, {"-1", -1},
	} {
		var b byteSize
		if err := b.Set(tc.in); err != nil || int64(b) != tc.want {
			t.Errorf("Set(%q) = %d, %v; want %d", tc.in, b, err, tc.want)
		}
	}
	for _, in := range []string{"", "GiB", "2XB", "2.5GiB", "9999999999TiB", "1e9", "two"} {
		var b byteSize
		if err := b.Set(in); err == nil {
			t.Errorf("Set(%q) = %d, want an error", in, b)
		}
	}
	for _, tc := range []struct {
		b    byteSize
		want string
	}{{2 << 30, "2GiB"}, {1536 << 20, "1536MiB"}, {1000, "1000"}, {0, "0"}, {4 << 40, "4TiB"}} {
		if got := tc.b.String(); got != tc.want {
			t.Errorf("%d: String() = %q, want %q", int64(tc.b), got, tc.want)
		}
	}
	code, _, stderr := runCLI("worker", "--cache-bytes", "2XB")
	if want := `trace: --cache-bytes "2XB": want a number of bytes such as 1073741824, 2GiB or 500MB`; code != 2 || !strings.HasPrefix(stderr, want) {
		t.Errorf("--cache-bytes 2XB: exit %d, %q; want 2 and %q", code, stderr, want)
	}
	if _, _, stderr := runCLI("worker", "--help"); !strings.Contains(stderr, "(default 2GiB)") {
		t.Errorf("worker --help does not give --cache-bytes' default as 2GiB: %q", stderr)
	}
}

// TestRoundTime: the summary's times keep a digit under a millisecond.
func TestRoundTime(t *testing.T) {
	for _, tc := range []struct {
		in   time.Duration
		want string
	}{
		{412345 * time.Nanosecond, "412µs"}, {1234567 * time.Nanosecond, "1ms"},
		{2345678901 * time.Nanosecond, "2.346s"}, {0, "0s"},
	} {
		if got := roundTime(tc.in).String(); got != tc.want {
			t.Errorf("roundTime(%v) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

package main

import (
	"strings"
	"testing"
	"time"
)

// TestByteSize: the worker's byte flags take a whole number, or a number
// (decimals rounded to the byte) with a binary or decimal unit in any
// case, refuse an unknown or ambiguous unit with the list of units, and
// print their defaults in the largest binary unit they are whole in.
func TestByteSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
	}{
		{"1073741824", 1 << 30}, {"2GiB", 2 << 30}, {"2 GiB", 2 << 30}, {"512MiB", 512 << 20},
		{"3KiB", 3 << 10}, {"1TiB", 1 << 40}, {"500MB", 500e6}, {"2GB", 2e9}, {"7kB", 7000},
		{"1TB", 1e12}, {"12B", 12}, {"0", 0}, {"-1", -1},
		{"100KB", 100e3}, {"100kb", 100e3}, {"100 KB", 100e3}, {"3kib", 3 << 10}, {"3KIB", 3 << 10},
		{"2gib", 2 << 30}, {"5mb", 5e6}, {"12b", 12}, {"1.5GiB", 3 << 29}, {"2.5 GB", 2.5e9},
		{"0.5KiB", 512}, {"0.1KiB", 102}, {"1.0005kB", 1001}, {"0.0001kB", 0}, {".5MiB", 1 << 19},
		{"7.00", 7}, {"-1.5KiB", -1536},
	} {
		var b byteSize
		if err := b.Set(tc.in); err != nil || int64(b) != tc.want {
			t.Errorf("Set(%q) = %d, %v; want %d", tc.in, b, err, tc.want)
		}
	}
	for _, in := range []string{"", "GiB", "2XB", "9999999999TiB", "1e9", "two", "2K", "2M", "2G", "8EiB",
		"1.5.5GiB", ".", "-", "0x10", "1/2", "+-1", "2 Gi B", "9223372036854775808"} {
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
	if want := `trace: --cache-bytes "2XB": want a number of bytes such as 1073741824, 2GiB, 1.5GB or 500 MB, the unit one of B, kB, MB, GB, TB (powers of 1000) or KiB, MiB, GiB, TiB (powers of 1024), in any case`; code != 2 || !strings.HasPrefix(stderr, want) {
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

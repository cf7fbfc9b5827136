package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestUsageErrorJSON: with --log-format json anywhere among a command's
// arguments, even an error in its flags, found before the flag itself is
// parsed, is printed as one JSON record, and the exit status stays 2.
func TestUsageErrorJSON(t *testing.T) {
	for _, args := range [][]string{
		{"render", "--sampels", "4", "--log-format", "json", "scene.json", "-o", "out.png"},
		{"render", "scene.json", "--log-format=json", "-o", "out.png", "--width", "wide"},
		{"render", "--log-format", "json"}, // no scene: no usage text either
		{"render", "scene.json", "-o", "out.png", "--log-format", "json", "--log-level", "loud"},
		{"worker", "--cache-bytes", "2XB", "--log-format", "json"},
		{"worker", "--log-format=json", "--lsiten", ":0"},
		{"worker", "--log-format", "json", "surplus"},
	} {
		code, _, stderr := runCLI(args...)
		var rec map[string]any
		if err := json.Unmarshal([]byte(stderr), &rec); code != 2 || err != nil || strings.Count(stderr, "\n") != 1 ||
			rec["level"] != "ERROR" || rec["msg"] == "" {
			t.Errorf("%q: exit %d, stderr %q; want 2 and one ERROR record", args, code, stderr)
		}
	}
	// Without it, the error stays a line.
	if code, _, stderr := runCLI("render", "--sampels", "4", "scene.json"); code != 2 || !strings.HasPrefix(stderr, "trace: unknown flag --sampels") {
		t.Errorf("text: exit %d, %q", code, stderr)
	}
}

// TestLogFormatJSON: the scan for --log-format before parsing reads it as
// pflag does: either spelling, the last one winning, none after "--".
func TestLogFormatJSON(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{[]string{"--log-format", "json"}, true},
		{[]string{"a", "--log-format=json", "b"}, true},
		{[]string{"--log-format", "text"}, false},
		{[]string{"--log-format", "json", "--log-format=text"}, false},
		{[]string{"--log-format=text", "--log-format", "json"}, true},
		{[]string{"--log-format"}, false},
		{[]string{"--", "--log-format", "json"}, false},
		{[]string{"--log-format=jsonx"}, false},
		{nil, false},
	} {
		if got := logFormatJSON(tc.args); got != tc.want {
			t.Errorf("logFormatJSON(%q) = %v, want %v", tc.args, got, tc.want)
		}
	}
}

package scenes

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tracerender/trace/tracer"
)

// repeatJoined returns n copies of s joined with ", ".
func repeatJoined(s string, n int) string {
	return strings.TrimSuffix(strings.Repeat(s+", ", n), ", ")
}

// TestLimits checks that one past each count limit of the tracer is an
// error that states the limit, and that the limit itself is accepted.
func TestLimits(t *testing.T) {
	const light = `{"type": "point", "position": [0, 5, 0]}`
	const sphere = `{"type": "sphere", "center": [0, 0, 0], "radius": 1, "material": "m"}`
	materials := func(n int) string {
		var b strings.Builder
		for i := range n {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, `"m%d": {"type": "diffuse", "texture": {"type": "checker"}}`, i)
		}
		return b.String()
	}
	tests := []struct {
		name    string
		members string
		want    string // "" when the scene is valid
	}{
		{"lights at the limit", `"lights": [` + repeatJoined(light, tracer.MaxLights) + `]`, ""},
		{"too many lights", `"lights": [` + repeatJoined(light, tracer.MaxLights+1) + `]`,
			"test.json:1:84: lights: 4097 lights, more than the limit of 4096"},
		{"materials at the limit", `"materials": {` + materials(tracer.MaxMaterials) + `}`, ""},
		{"too many materials", `"materials": {` + materials(tracer.MaxMaterials+1) + `}`,
			"test.json:1:87: materials: 65537 materials, more than the limit of 65536"},
	}
	if !testing.Short() {
		tests = append(tests, struct{ name, members, want string }{
			"too many objects", `"objects": [` + repeatJoined("{}", tracer.MaxShapes+1) + `]`,
			"test.json:1:85: objects: 4194305 objects, more than the limit of 4194304 shapes",
		})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := `{"version": 1, ` + cam + `, ` + tt.members + `}`
			_, err := Parse("test.json", []byte(in))
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("Parse: %v", err)
			case tt.want != "" && (err == nil || err.Error() != tt.want):
				t.Errorf("Parse: %v, want %s", err, tt.want)
			}
		})
	}
}

func TestTooLarge(t *testing.T) {
	data := make([]byte, MaxFileSize+1)
	_, err := Parse("huge.json", data)
	want := "huge.json: the file is 268435457 bytes, more than the limit of 268435456 (MaxFileSize)"
	if err == nil || err.Error() != want {
		t.Errorf("Parse = %v, want %s", err, want)
	}
}

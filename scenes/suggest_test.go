package scenes

import "testing"

func TestEditDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"color", "color", 0},
		{"colour", "color", 1},
		{"raduis", "radius", 1},
		{"", "abc", 3},
		{"abc", "", 3},
		{"kitten", "sitting", 3},
		{"ab", "ba", 1},
		{"widht", "width", 1},
	}
	for _, tt := range tests {
		if got := editDistance(tt.a, tt.b); got != tt.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestSuggest(t *testing.T) {
	known := []string{"type", "color", "texture", "roughness"}
	tests := []struct{ name, want string }{
		{"colour", "color"},
		{"Color", "color"},
		{"textur", "texture"},
		{"tpye", "type"},
		{"roughnes", "roughness"},
		{"ior", ""},       // too far from everything
		{"x", ""},         // one edit from nothing useful
		{"colorrrrr", ""}, // four edits
		{"", ""},
	}
	for _, tt := range tests {
		if got := suggest(tt.name, known); got != tt.want {
			t.Errorf("suggest(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestPaths(t *testing.T) {
	tests := []struct{ got, want string }{
		{joinKey("", "camera"), "camera"},
		{joinKey("camera", "look_at"), "camera.look_at"},
		{joinIndex(joinKey("", "objects"), 3), "objects[3]"},
		{joinKey("materials", "my glass"), `materials["my glass"]`},
		{joinKey("materials", "2x"), `materials["2x"]`},
		{joinKey("materials", "steel-2"), `materials.steel-2`},
		{joinKey("", ""), `[""]`},
		{quote(string(make([]byte, 50))), `"` + repeat(`\x00`, 40) + `"…`},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %s, want %s", tt.got, tt.want)
		}
	}
}

func repeat(s string, n int) string {
	out := ""
	for range n {
		out += s
	}
	return out
}

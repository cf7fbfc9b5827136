package scenes

import (
	"math"
	"testing"
)

// TestOrthographicCameraParsed: camera.type "orthographic" takes the
// view's height, by default the height that the field of view spans at
// look_at.
func TestOrthographicCameraParsed(t *testing.T) {
	for _, tc := range []struct {
		camera string
		height float64
	}{
		{`"type": "orthographic", "position": [0, 0, -4], "look_at": [0, 0, 0], "height": 3`, 3},
		{`"type": "orthographic", "position": [0, 0, -4], "look_at": [0, 0, 0], "fov": 90`, 8},
		{`"type": "orthographic", "position": [0, 3, 0], "look_at": [0, 0, 0], "up": [0, 0, 1]`, 6 * math.Tan(20*math.Pi/180)},
	} {
		d, err := Parse("test.json", []byte(camera(tc.camera)))
		if err != nil {
			t.Fatalf("%s: %v", tc.camera, err)
		}
		if c := d.Camera; !c.Orthographic || math.Abs(float64(c.Height)-tc.height) > 1e-5 {
			t.Errorf("%s: orthographic %v height %g, want true and %g", tc.camera, c.Orthographic, c.Height, tc.height)
		}
	}
	d, err := Parse("test.json", []byte(camera(`"type": "perspective", "position": [0, 0, -4], "look_at": [0, 0, 0]`)))
	if err != nil || d.Camera.Orthographic {
		t.Errorf("perspective: %v, orthographic %v", err, d != nil && d.Camera.Orthographic)
	}
}

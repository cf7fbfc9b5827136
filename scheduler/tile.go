// Package scheduler cuts a frame into tiles, leases them to workers (the
// local CPU pool, CUDA GPUs, and remote machines through
// scheduler/remote), retries tiles whose lease fails, reports progress and
// stitches the finished tiles into one framebuffer.
package scheduler

import "image"

// Tile is a square (or, at the image's right and bottom edges, clipped)
// block of pixels. IDs count tiles in row-major order from the top left.
type Tile struct {
	ID   int
	Rect image.Rectangle
}

// Tiles cuts a w×h image into size×size tiles in row-major order.
func Tiles(w, h, size int) []Tile {
	var tiles []Tile
	for y := 0; y < h; y += size {
		for x := 0; x < w; x += size {
			r := image.Rect(x, y, min(x+size, w), min(y+size, h))
			tiles = append(tiles, Tile{ID: len(tiles), Rect: r})
		}
	}
	return tiles
}

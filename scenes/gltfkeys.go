package scenes

import (
	"bytes"
	"encoding/json"
)

// gltfDuplicateKey returns the JSON path of the first member of an object
// in the glTF JSON data whose key an earlier member of the same object
// has, and the byte offset of that key; ok is false when there is none.
// encoding/json, which the glTF library decodes with, would keep the last
// of the two silently, where the scene parser refuses them. Syntax errors
// are left for the decoder to report.
func gltfDuplicateKey(data []byte) (path, key string, off int, ok bool) {
	// frame is an object or array being read.
	type frame struct {
		object bool
		keys   map[string]bool
		key    string // the member being read (objects)
		next   bool   // the next token is a key (objects)
		n      int    // the elements started (arrays)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var stack []*frame
	for {
		start := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return "", "", 0, false // the end, or a syntax error
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			stack = stack[:len(stack)-1]
			continue
		}
		if n := len(stack); n > 0 && stack[n-1].object && stack[n-1].next {
			top := stack[n-1]
			k, _ := tok.(string)
			if top.keys[k] {
				segs := make([]pathSegment, 0, len(stack))
				for _, f := range stack {
					if f.object {
						segs = append(segs, pathSegment{key: f.key})
					} else {
						segs = append(segs, pathSegment{index: f.n - 1, isIndex: true})
					}
				}
				segs[len(segs)-1].key = k
				return joinSegments(segs), k, keyStart(data, start), true
			}
			top.keys[k] = true
			top.key, top.next = k, false
			continue
		}
		if n := len(stack); n > 0 { // a value starts
			if top := stack[n-1]; top.object {
				top.next = true
			} else {
				top.n++
			}
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{object: true, keys: map[string]bool{}, next: true})
		case json.Delim('['):
			stack = append(stack, &frame{})
		}
	}
}

// keyStart returns the offset of the opening quote of the key whose token
// follows offset from in data (past the comma or brace and white space
// before it).
func keyStart(data []byte, from int64) int {
	i := int(from)
	for i < len(data) && data[i] != '"' {
		i++
	}
	return i
}

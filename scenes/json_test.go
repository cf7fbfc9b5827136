package scenes

import (
	"strings"
	"testing"
)

func TestParseJSONStrings(t *testing.T) {
	tests := []struct{ in, want string }{
		{`"plain"`, "plain"},
		{`"a\"b\\c\/d\b\f\n\r\t"`, "a\"b\\c/d\b\f\n\r\t"},
		{`"\u00e9\u20AC"`, "é€"},
		{`"\ud83d\ude00"`, "😀"},
		{`"\ud83d"`, "\uFFFD"},        // lone high surrogate
		{`"\ude00x"`, "\uFFFDx"},      // lone low surrogate
		{`"\ud83d\u0041"`, "\uFFFDA"}, // high surrogate, then not a low one
		{`"\ud83d\ud83d\ude00"`, "\uFFFD😀"},
		{`"ünïcødé"`, "ünïcødé"},
		{`"` + strings.Repeat("long ", 20) + `"`, strings.Repeat("long ", 20)},
	}
	for _, tt := range tests {
		v, err := parseJSON("t.json", []byte(tt.in))
		if err != nil {
			t.Errorf("parseJSON(%s): %v", tt.in, err)
			continue
		}
		if v.kind != kindString || v.str != tt.want {
			t.Errorf("parseJSON(%s) = %q, want %q", tt.in, v.str, tt.want)
		}
	}
}

func TestParseJSONTree(t *testing.T) {
	in := "\uFEFF{\n \"a\": [1, -2.5e1, true, false, null],\n \"b\": {\"c\": \"d\"}, \"e\": {}, \"f\": []}"
	v, err := parseJSON("t.json", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if v.kind != kindObject || v.members() != 4 || v.key(0).str != "a" || v.key(3).str != "f" {
		t.Fatalf("bad tree %+v", v)
	}
	a := v.member(0)
	if a.kind != kindArray || len(a.elems) != 5 || a.elems[1].num != -25 || !a.elems[2].b || a.elems[3].b || a.elems[4].kind != kindNull {
		t.Errorf("bad array %+v", a)
	}
	if line, col := position([]byte(in), int(a.elems[1].off)); line != 2 || col != 11 {
		t.Errorf("a[1] at %d:%d, want 2:11", line, col)
	}
	if line, col := position([]byte(in), int(v.off)); line != 1 || col != 1 {
		t.Errorf("root at %d:%d, want 1:1 (the byte order mark is not a column)", line, col)
	}
	if b := v.member(1); b.members() != 1 || b.member(0).str != "d" {
		t.Errorf("bad object %+v", b)
	}
	if v.member(2).kind != kindObject || v.member(3).kind != kindArray {
		t.Errorf("empty containers: %+v %+v", v.member(2), v.member(3))
	}
}

func TestParseJSONMaxValues(t *testing.T) {
	tests := []struct {
		in   string
		want string // "" when within the limit of 5
	}{
		{`[1, 2, 3, 4]`, ""},
		{`{"a": 1, "b": 2}`, ""},
		{`[1, 2, 3, 4, 5]`, "t.json:1:14: [4]: the file holds more than 5 JSON values (MaxValues); large geometry belongs in mesh files"},
		{`{"a": 1, "b": 2, "c": 3}`, "t.json:1:18: the file holds more than 5 JSON values (MaxValues); large geometry belongs in mesh files"},
	}
	for _, tt := range tests {
		p := &parser{file: "t.json", data: []byte(tt.in), maxValues: 5}
		_, err := p.parse()
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("parse(%s): %v", tt.in, err)
		case tt.want != "" && (err == nil || err.Error() != tt.want):
			t.Errorf("parse(%s) = %v, want %s", tt.in, err, tt.want)
		}
	}
}

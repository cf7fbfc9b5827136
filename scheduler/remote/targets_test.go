package remote

import (
	"slices"
	"strings"
	"testing"
)

// TestParseTargets: --workers takes host:port and dns:///name:port items,
// a port from 1 to 65535; anything else is refused at once, naming the
// item, rather than dialled and retried.
func TestParseTargets(t *testing.T) {
	got, err := ParseTargets(" a:7000, [::1]:1 ,dns:///workers.svc:65535,, 10.0.0.2:7001")
	if want := []string{"a:7000", "[::1]:1", "dns:///workers.svc:65535", "10.0.0.2:7001"}; err != nil || !slices.Equal(got, want) {
		t.Errorf("ParseTargets = %q, %v; want %q", got, err, want)
	}
	for _, tc := range []struct{ list, want string }{
		{"a", `worker "a": want host:port or dns:///name:port`},
		{":7000", `worker ":7000": want host:port`},
		{"a:", `worker "a:": want host:port`},
		{"http://a:7000", `worker "http://a:7000": want host:port`},
		{"dns:a:7000", `worker "dns:a:7000": want host:port`},
		{"a:99999", `worker "a:99999": port "99999": want a number from 1 to 65535`},
		{"a:0", `worker "a:0": port "0": want a number from 1 to 65535`},
		{"b:7000,a:http", `worker "a:http": port "http": want a number from 1 to 65535`},
		{"dns:///w:-1", `worker "dns:///w:-1": port "-1": want a number`},
		{" , ", "no workers given"},
	} {
		if _, err := ParseTargets(tc.list); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("ParseTargets(%q): %v, want %q", tc.list, err, tc.want)
		}
	}
}

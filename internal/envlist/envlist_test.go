package envlist

import "testing"

func TestValue(t *testing.T) {
	env := []string{"PATH=/bin", "TERM=xterm", "EMPTY=", "PATH=/usr/bin:/bin", "NOEQUALS", "TERMINAL=x=y"}
	cases := []struct{ name, want string }{
		{"PATH", "/usr/bin:/bin"}, // the last one wins, as for the child
		{"TERM", "xterm"},         // not TERMINAL
		{"TERMINAL", "x=y"},       // a value may hold "="
		{"EMPTY", ""},
		{"NOEQUALS", ""},
		{"MISSING", ""},
		{"", ""},
	}
	for _, c := range cases {
		if got := Value(env, c.name); got != c.want {
			t.Errorf("Value(%q) = %q, want %q", c.name, got, c.want)
		}
	}
	if got := Value(nil, "PATH"); got != "" {
		t.Errorf("Value(nil) = %q, want empty", got)
	}
}

package registry

import "testing"

// Only a CLI whose Stop answer makes it go on continues a loop through its
// hook; the others get the continuation typed into their pane.
func TestContinuesAtStop(t *testing.T) {
	for cli, want := range map[string]bool{"claude": true, "codex": false, "gemini": false, "opencode": false, "shell": false, "nope": false} {
		if got := ContinuesAtStop(cli); got != want {
			t.Errorf("%s: %v, want %v", cli, got, want)
		}
	}
}

package control

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

func TestCheckSessionName(t *testing.T) {
	for _, ok := range []string{"a", "review-2", "A.b_c-9", ".hidden", "x.", strings.Repeat("x", 64)} {
		if err := CheckSessionName(ok); err != nil {
			t.Errorf("CheckSessionName(%q) = %v, want nil", ok, err)
		}
	}
	for _, bad := range []string{"", "../../x", "a/b", "/abs", ".", "..", "-x", "a b", "a\x00b", "é", "a\nb", strings.Repeat("x", 65)} {
		err := CheckSessionName(bad)
		if err == nil {
			t.Errorf("CheckSessionName(%q) = nil, want an error", bad)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, "letters, digits, '.', '_' or '-'") || strings.ContainsAny(msg, "\n\x00") {
			t.Errorf("CheckSessionName(%q) = %q; want one line naming the allowed characters", bad, msg)
		}
	}
}

// The default session name is the one the engine and `agentgrid` without
// --session both use; it must pass the check every entry point applies,
// and it names this process.
func TestDefaultSessionName(t *testing.T) {
	name := DefaultSessionName()
	if want := "agentgrid-" + strconv.Itoa(os.Getpid()); name != want {
		t.Errorf("DefaultSessionName() = %q, want %q", name, want)
	}
	if err := CheckSessionName(name); err != nil {
		t.Errorf("the default session name %q is refused: %v", name, err)
	}
	t.Setenv("XDG_RUNTIME_DIR", "/run/user/1000")
	if got, want := SocketPath(name), "/run/user/1000/agentgrid/"+name+".sock"; got != want {
		t.Errorf("SocketPath(%q) = %q, want %q", name, got, want)
	}
}

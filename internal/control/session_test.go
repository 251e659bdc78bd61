package control

import (
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

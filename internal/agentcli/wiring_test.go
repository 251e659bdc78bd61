package agentcli

import "testing"

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"/usr/bin/agentgrid": "/usr/bin/agentgrid",
		"/a b/agentgrid":     "'/a b/agentgrid'",
		"/it's/x":            `'/it'\''s/x'`,
		"":                   "''",
		"/x/$(rm)":           "'/x/$(rm)'",
	} {
		if got := ShellQuote(in); got != want {
			t.Errorf("ShellQuote(%q) = %q, want %q", in, got, want)
		}
	}
}

package config

import (
	"fmt"
	"strings"
	"testing"
)

func TestPoliciesDecodeAndValidate(t *testing.T) {
	isolate(t)
	good := `
[[policies]]
name = "protect-secrets"
on = "pre_tool"
tools = ["Edit", "Write", "Bash"]
paths = ["secrets/**", ".env"]
action = "block"
message = "secrets/ and .env are off limits; ask the user"

[[policies]]
use = "delegation_nudge"
`
	cfg, diags := Decode(Default(), "f.toml", []byte(good))
	if len(diags) != 0 {
		t.Fatalf("a valid policy: %v", diags)
	}
	if len(cfg.Policies) != 2 || cfg.Policies[0].Paths[1] != ".env" || cfg.Policies[1].Use != "delegation_nudge" {
		t.Fatalf("decoded %+v", cfg.Policies)
	}
	if PolicyName(1, cfg.Policies[1]) != "delegation_nudge" || PolicyName(2, Policy{}) != "policies[2]" {
		t.Error("PolicyName does not fall back to the built-in's name or the entry's index")
	}

	bad := `[[policies]]
on = "before_tool"
action = "deny"
paths = ["/etc/**", "a/[b"]
kinds = ["nope"]

[[policies]]
use = "nudge"
`
	_, diags = Decode(Default(), "f.toml", []byte(bad))
	var got []string
	for _, d := range diags {
		got = append(got, fmt.Sprintf("%d: %s", d.Line, d.Msg))
	}
	want := []string{
		`2: policies[0].on = "before_tool": must be one of pre_tool, post_tool, prompt, stop`,
		`3: policies[0].action = "deny": must be one of block, hint`,
		`4: policies[0].paths: "/etc/**" must be a glob relative`,
		`4: policies[0].paths: "a/[b" is not a valid glob`,
		`5: policies[0].kinds: no such kind "nope"`,
		`1: policies[0].message: say what`,
		`8: policies[1].use = "nudge": no such built-in policy`,
	}
	for _, w := range want {
		found := false
		for _, g := range got {
			found = found || strings.HasPrefix(g, w)
		}
		if !found {
			t.Errorf("no diagnostic %q in:\n%s", w, strings.Join(got, "\n"))
		}
	}
	if len(got) != len(want) {
		t.Errorf("got %d diagnostics, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
}

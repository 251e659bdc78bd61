package config

import (
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Policy is one [[policies]] entry: what agentgrid answers an agent CLI's
// hook (see hooks/EVENTS.md, "Policies").
type Policy struct {
	// Name names the policy in explain and in the answer's record.
	Name string `toml:"name"`
	// On is where it applies: pre_tool, post_tool, prompt or stop.
	On string `toml:"on"`
	// Tools limits it to these tool names; empty means every tool.
	Tools []string `toml:"tools"`
	// Paths are globs against the tool's file paths, relative to the
	// agent's cwd (`**` spans folders); empty means any call.
	Paths []string `toml:"paths"`
	// Kinds and Agents limit it to these kinds and agent ids ("main" is the
	// main view); empty means all.
	Kinds  []string `toml:"kinds"`
	Agents []string `toml:"agents"`
	// Action is block or hint.
	Action string `toml:"action"`
	// Message is what the model reads.
	Message string `toml:"message"`
	// Use names a built-in policy instead: delegation_nudge or overlap.
	Use string `toml:"use"`
	// Within is how far back the overlap built-in looks (default 10m).
	Within Duration `toml:"within"`
}

// The values a policy's fields take.
var (
	PolicyPoints   = []string{"pre_tool", "post_tool", "prompt", "stop"}
	PolicyActions  = []string{"block", "hint"}
	PolicyBuiltins = []string{"delegation_nudge", "overlap"}
)

// PolicyName is the policy's name, or policies[i] when it has none.
func PolicyName(i int, p Policy) string {
	if p.Name != "" {
		return p.Name
	}
	if p.Use != "" {
		return p.Use
	}
	return "policies[" + strconv.Itoa(i) + "]"
}

func validatePolicies(cfg Config, bad func(path, format string, args ...any)) {
	for i, pol := range cfg.Policies {
		p := "policies." + strconv.Itoa(i)
		for _, k := range pol.Kinds {
			if _, ok := cfg.Kinds[k]; !ok {
				bad(p+".kinds", "policies[%d].kinds: no such kind %q", i, k)
			}
		}
		for _, g := range pol.Paths {
			if g == "" || filepath.IsAbs(g) {
				bad(p+".paths", "policies[%d].paths: %q must be a glob relative to the agent's folder", i, g)
				continue
			}
			for _, seg := range strings.Split(g, "/") {
				if _, err := filepath.Match(seg, ""); err != nil {
					bad(p+".paths", "policies[%d].paths: %q is not a valid glob", i, g)
					break
				}
			}
		}
		if pol.Use != "" {
			if !slices.Contains(PolicyBuiltins, pol.Use) {
				bad(p+".use", "policies[%d].use = %q: no such built-in policy (one of %s)", i, pol.Use, strings.Join(PolicyBuiltins, ", "))
			}
			if pol.Use == "overlap" && pol.Action != "" && !slices.Contains(PolicyActions, pol.Action) {
				bad(p+".action", "policies[%d].action = %q: must be one of %s", i, pol.Action, strings.Join(PolicyActions, ", "))
			}
			if pol.Within.Duration < 0 || pol.Within.Duration > MaxWait {
				bad(p+".within", "policies[%d].within = %s: must be between 0s and %s", i, pol.Within.Duration, shortDuration(MaxWait))
			}
			continue
		}
		if !slices.Contains(PolicyPoints, pol.On) {
			bad(p+".on", "policies[%d].on = %q: must be one of %s", i, pol.On, strings.Join(PolicyPoints, ", "))
		}
		if !slices.Contains(PolicyActions, pol.Action) {
			bad(p+".action", "policies[%d].action = %q: must be one of %s", i, pol.Action, strings.Join(PolicyActions, ", "))
		}
		if strings.TrimSpace(pol.Message) == "" {
			bad(p+".message", "policies[%d].message: say what the agent should read when the policy applies", i)
		}
	}
}

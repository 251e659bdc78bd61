package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// hbPolicy is the config of the hooks bench's session: one policy, which the
// decision row's payload matches.
const hbPolicy = `[[policies]]
name = "bench"
on = "pre_tool"
tools = ["Write"]
paths = [".env"]
action = "block"
message = "no .env in the bench"
`

// hbDecisionSetup writes the session's config into the workbench's config
// folder and returns the PreToolUse payload the policy blocks.
func hbDecisionSetup(dir string) ([]byte, error) {
	cfg := filepath.Join(dir, "config", "agentgrid")
	if err := os.MkdirAll(cfg, 0o700); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(cfg, "config.toml"), []byte(hbPolicy), 0o600); err != nil {
		return nil, err
	}
	root, err := wbRepoRoot()
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(filepath.Join(root, "internal", "agentcli", "claude", "testdata", "pre_tool_use_write_env.json"))
	if err != nil {
		return nil, fmt.Errorf("read the PreToolUse fixture for the decision: %w", err)
	}
	return b, nil
}

// hbTimeDecision runs one hook call that the session answers with a
// deny. answered is false when it printed nothing: the hook missed its
// 200 ms budget (counted and reported beside the figure).
func hbTimeDecision(bin string, env []string, payload []byte) (d time.Duration, answered bool, err error) {
	cmd := exec.Command(bin, "hook", "claude")
	cmd.Env = env
	cmd.Stdin = bytes.NewReader(payload)
	var out bytes.Buffer
	cmd.Stdout = &out
	start := time.Now()
	err = cmd.Run()
	d = time.Since(start)
	if err != nil || out.Len() > 0 && !bytes.Contains(out.Bytes(), []byte(`"permissionDecision":"deny"`)) {
		return d, false, fmt.Errorf("agentgrid hook claude with a blocking policy printed %q and ended with %v, want the deny and exit 0", out.String(), err)
	}
	return d, out.Len() > 0, nil
}

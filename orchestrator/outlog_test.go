package orchestrator

import (
	"os"
	"strings"
	"testing"

	"github.com/agentgrid/agentgrid/config"
)

// TestAgentLogCapFromConfig: [agents] log_max reaches every agent's log; a
// flood past it leaves at most twice the cap on disk, ending with the
// newest output.
func TestAgentLogCapFromConfig(t *testing.T) {
	const logCap = 64 << 10
	e := newTestEngine(t, nil, nil, func(c *config.Config) { c.Agents.LogMax = config.Size{Bytes: logCap} })
	e.Resize(80, 20)
	in := spawn(t, e, "seq", "1", "100000")
	done := waitFinished(t, e, in.ID)
	cur, err1 := os.ReadFile(done.LogPath)
	old, err2 := os.ReadFile(done.LogPath + ".1")
	if err1 != nil || err2 != nil {
		t.Fatalf("read the logs: %v, %v", err1, err2)
	}
	if len(cur) > logCap || len(old) > logCap || len(cur)+len(old) > 2*logCap {
		t.Errorf("logs of %d and %d bytes, want each at most %d", len(cur), len(old), logCap)
	}
	if !strings.HasSuffix(string(cur), "99999\r\n100000\r\n") {
		t.Errorf("the log does not end with the newest output: ...%q", cur[max(0, len(cur)-30):])
	}
	if done.LogError != "" {
		t.Errorf("log error %q", done.LogError)
	}
}

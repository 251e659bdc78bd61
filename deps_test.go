package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// slowStart are packages the agentgrid binary must not link: each makes
// every agentgrid process start slower — a hook call before and after each
// of an agent's tool calls, a tmux command in a pane, an attach — by its
// initialisation or its size, and agentgrid needs only a sliver of it.
var slowStart = map[string]string{
	"github.com/modelcontextprotocol/go-sdk/mcp": "the MCP SDK and what it pulls in (JSON Schema reflection, gob, net/http, crypto) cost about 1 ms of every start; internal/mcpserver speaks the protocol itself",
	"github.com/google/jsonschema-go/jsonschema": "its initialisation builds reflection tables at every start",
	"encoding/gob":                "its initialisation registers types at every start",
	"net/http":                    "agentgrid serves no HTTP; its packages make the binary larger",
	"charm.land/lipgloss/v2":      "its initialisation detects the terminal's colours: terminfo, the user database, and \"tmux info\" inside tmux",
	"github.com/atotto/clipboard": "its initialisation searches PATH for clipboard programs",
}

// TestBinaryLeavesOutSlowStartingPackages keeps those packages out of the
// binary (its tests may use them).
func TestBinaryLeavesOutSlowStartingPackages(t *testing.T) {
	cmd := exec.Command("go", "list", "-deps", ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps .: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if why, ok := slowStart[p]; ok {
			t.Errorf("the agentgrid binary links %s: %s", p, why)
		}
	}
}

// Command agentgrid is a terminal workbench for watching and steering many
// agent processes at once: an orchestrator in the main view, the background
// agents it starts in a live grid beside it, and a status line fed by hooks.
// The commands live in internal/cli.
package main

import (
	"os"

	"github.com/agentgrid/agentgrid/internal/cli"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() { os.Exit(cli.Execute(version)) }

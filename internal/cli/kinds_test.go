package cli

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentgrid/agentgrid/config"
	"github.com/agentgrid/agentgrid/internal/control"
	"github.com/agentgrid/agentgrid/orchestrator"
	"github.com/agentgrid/agentgrid/panes"
)

// TestCLIKindsAndCategories runs spawn --category, explain and kinds
// against a real engine with real processes.
func TestCLIKindsAndCategories(t *testing.T) {
	dir := t.TempDir()
	claude := filepath.Join(dir, "claude")
	if err := os.WriteFile(claude, []byte("#!/bin/sh\necho \"args: $*\"\nexec cat\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	cfg.Layout = config.Layout{Name: "tiled", MinAgentWidth: 10, MinAgentHeight: 3}
	cfg.Agents.KillGrace = config.Duration{Duration: 200 * time.Millisecond}
	cfg.Kinds["cl"] = config.Kind{Command: []string{claude}, PromptArgs: []string{"{prompt}"}, Description: "a scripted claude"}
	cfg.Kinds["gone"] = config.Kind{Command: []string{filepath.Join(dir, "missing", "claude")}, PromptArgs: []string{"{prompt}"}}
	cfg.Categories = map[string]config.Category{
		"quick": {Kind: "gone", Model: "claude-haiku-4-5", Fallback: []string{"deep"}, Description: "small changes"},
		"deep":  {Kind: "cl", Model: "claude-opus-4-5"},
	}
	cfg.Limits.Models = map[string]int{"claude-opus-4-5": 1}
	sock := filepath.Join(t.TempDir(), "k.sock")
	e, err := orchestrator.New(cfg, orchestrator.Options{Session: "cli-kinds", Spawner: panes.PTYSpawner{},
		StateDir: t.TempDir(), SocketPath: sock, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Start(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		_ = e.Shutdown(ctx)
	})
	e.Resize(120, 24)

	r := runCLI(t, "--socket", sock, "spawn", "--category", "quick", "--prompt", "go")
	r.want(t, 0)
	id := strings.TrimSpace(r.stdout)
	deadline := time.Now().Add(15 * time.Second)
	for {
		r = runCLI(t, "--socket", sock, "explain", id)
		if strings.Contains(r.stdout, "fell back to category deep → cl, model claude-opus-4-5: could not start:") && strings.Contains(r.stdout, "running") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("explain never showed the fallback:\n%s", r.stdout)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !strings.Contains(r.stdout, "resolution:  category quick → gone, model claude-haiku-4-5; fell back to category deep") {
		t.Errorf("explain =\n%s", r.stdout)
	}
	// A second one waits for the opus slot.
	r = runCLI(t, "--socket", sock, "spawn", "--category", "deep")
	r.want(t, 0)
	if !strings.Contains(r.stderr, "waits to start: waiting for a slot: model claude-opus-4-5 1/1 (limits.models.claude-opus-4-5 = 1)") {
		t.Errorf("spawn stderr = %q", r.stderr)
	}

	r = runCLI(t, "--socket", sock, "kinds")
	r.want(t, 0)
	rows := map[string]string{}
	for _, line := range strings.Split(r.stdout, "\n") {
		if f := strings.Fields(line); len(f) > 0 {
			rows[f[0]] = strings.Join(f, " ")
		}
	}
	for name, want := range map[string]string{
		"cl":    "cl kind 1 1 - a scripted claude",
		"deep":  "deep cl, model claude-opus-4-5 0 1 models.claude-opus-4-5 1/1 -",
		"quick": "quick gone, model claude-haiku-4-5; then deep 1 0 - small changes",
		"1":     "1 agents wait to start (for a limit or a pane), 0 for a pane in the grid",
	} {
		if rows[name] != want {
			t.Errorf("kinds row %s = %q, want %q\n%s", name, rows[name], want, r.stdout)
		}
	}
	r = runCLI(t, "--socket", sock, "kinds", "--json")
	r.want(t, 0)
	var res control.KindsResult
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || len(res.Kinds) != len(cfg.Kinds)+2 {
		t.Fatalf("kinds --json = %q (%v)", r.stdout, err)
	}
	runCLI(t, "--socket", sock, "spawn", "--kind", "cl", "--category", "deep").want(t, 2)
}

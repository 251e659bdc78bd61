package orchestrator

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentgrid/agentgrid/config"
	"github.com/agentgrid/agentgrid/internal/agentcli"
	"github.com/agentgrid/agentgrid/internal/agentcli/registry"
	"github.com/agentgrid/agentgrid/internal/control"
	"github.com/agentgrid/agentgrid/internal/envlist"
)

// wiring is the session's part of the wiring of agent id's CLI, whose
// secret is token.
func (e *Engine) wiring(id, token string) agentcli.Wiring {
	return agentcli.Wiring{Session: e.opts.Session, Socket: e.opts.SocketPath, AgentID: id, StateDir: e.opts.StateDir, Token: token,
		HookBudget: envlist.Value(e.baseEnv, agentcli.EnvHookBudget)}
}

// resolveKind turns a spawn request into the argv to run and the extra
// environment the preset adds (the engine adds AGENTGRID_* and req.Env).
//
// Without a kind the request's argv runs as is. With one, the preset's
// command (or req.Argv when given) gets the prompt arguments with {prompt}
// substituted, and the agent CLI named by the preset's `hooks` is wired to
// this session for this process only — never by editing the user's own
// config files. What the wiring is (settings files, flags, environment) is
// each CLI's own, in internal/agentcli/NAME. sess is the session's part
// of the wiring (Session, Socket, AgentID, StateDir, Token, and Exe, empty
// for os.Executable()); what to wire comes from the kind.
func resolveKind(cfg config.Config, req control.SpawnRequest, sess agentcli.Wiring) (argv []string, env []string, err error) {
	return resolveKindModel(cfg, req, "", sess)
}

// resolveKindModel is resolveKind with a model for the kind's CLI: its
// model arguments (agentcli.CLI.ModelArgs) go after the command and
// before the prompt's, each one argv element.
func resolveKindModel(cfg config.Config, req control.SpawnRequest, model string, sess agentcli.Wiring) (argv []string, env []string, err error) {
	if req.Kind == "" {
		if len(req.Argv) == 0 {
			return nil, nil, errors.New("no command given: pass a command after -- or choose a kind with --kind")
		}
		return slices.Clone(req.Argv), nil, nil
	}
	k, ok := cfg.Kinds[req.Kind]
	if !ok {
		return nil, nil, fmt.Errorf("unknown kind %q; known kinds: %s", req.Kind, strings.Join(slices.Sorted(maps.Keys(cfg.Kinds)), ", "))
	}
	// The hooks' budget the agent will see: the session's, its kind's,
	// then its request's (agentEnv's order).
	for _, vars := range []map[string]string{k.Env, req.Env} {
		if v, ok := vars[agentcli.EnvHookBudget]; ok {
			sess.HookBudget = v
		}
	}
	argv = slices.Clone(req.Argv)
	if len(argv) == 0 {
		argv = slices.Clone(k.Command)
	}
	if len(argv) == 0 {
		argv = []string{config.DefaultShell()}
	}
	if model != "" {
		if err := config.CheckModel(model); err != nil {
			return nil, nil, fmt.Errorf("model %q: %v", model, err)
		}
		cli := cfg.KindCLI(req.Kind)
		var args []string
		if cli != nil {
			args = cli.ModelArgs(model)
		}
		if args == nil {
			return nil, nil, fmt.Errorf("kind %q runs a program agentgrid passes no model to; leave the category's model out", req.Kind)
		}
		argv = append(argv, args...)
	}
	if req.Prompt != "" {
		if len(k.PromptArgs) == 0 {
			return nil, nil, fmt.Errorf("kind %q takes no prompt (its prompt_args are empty); pass the command instead", req.Kind)
		}
		if promptTyper(cfg, req.Kind) != nil {
			// Typed in once the CLI is ready (typedprompt.go), not passed.
			return wireKind(k, argv, env, sess)
		}
		for _, a := range k.PromptArgs {
			argv = append(argv, strings.ReplaceAll(a, "{prompt}", req.Prompt))
		}
	}
	return wireKind(k, argv, env, sess)
}

// wireKind adds kind k's environment and its CLI's wiring to argv.
func wireKind(k config.Kind, argv, env []string, sess agentcli.Wiring) ([]string, []string, error) {
	for _, key := range slices.Sorted(maps.Keys(k.Env)) {
		env = append(env, key+"="+k.Env[key])
	}
	cli := k.Hooks
	if cli == "" && (k.MCP || k.Teams || k.OMO) {
		cli = cliOf(argv[0])
	}
	return wireCLI(cli, agentcli.Wiring{Hooks: k.Hooks != "", MCP: k.MCP, Teams: k.Teams || k.OMO}, argv, env, sess)
}

// promptTyper is the CLI of kind when a prompt for it is typed in once the
// CLI is ready rather than passed on its command line (agentcli.PromptTyper),
// else nil. That needs the kind to wire both the CLI's hooks (which say it
// is ready) and agentgrid's MCP server (what the prompt waits for), and to
// give the prompt as the CLI's own first prompt (the preset's prompt_args:
// a kind that passes it to a flag, such as a one-shot print mode, keeps it).
func promptTyper(cfg config.Config, kind string) agentcli.PromptTyper {
	k, ok := cfg.Kinds[kind]
	if !ok || k.Hooks == "" || !k.MCP {
		return nil
	}
	cli, ok := registry.Lookup(k.Hooks)
	if !ok || !slices.Equal(k.PromptArgs, cli.Preset().PromptArgs) {
		return nil
	}
	pt, _ := cli.(agentcli.PromptTyper)
	return pt
}

// resolveOrchestrator wires the orchestrator command (`agentgrid -- claude`)
// the way resolveKind wires an agent: with the preset named by
// orchestrator.kind, or else the preset whose command or hooks adapter
// matches argv[0]'s base name. A command no preset matches runs unchanged.
// sess.AgentID is normally MainID. An empty argv takes the preset's command.
func resolveOrchestrator(cfg config.Config, argv []string, sess agentcli.Wiring) ([]string, []string, error) {
	name := cfg.Orchestrator.Kind
	if name == "" && len(argv) > 0 {
		name = kindFor(cfg, argv[0])
	}
	if name == "" {
		if len(argv) == 0 {
			return nil, nil, errors.New("no orchestrator command: pass one after -- or set orchestrator.command")
		}
		return slices.Clone(argv), nil, nil
	}
	return resolveKind(cfg, control.SpawnRequest{Kind: name, Argv: argv}, sess)
}

// kindFor finds the preset for a command by its base name: a preset of that
// name, one whose command starts with it, or one whose hooks adapter is it.
func kindFor(cfg config.Config, cmd string) string {
	base := filepath.Base(cmd)
	if k, ok := cfg.Kinds[base]; ok && (k.Hooks != "" || k.MCP) {
		return base
	}
	for _, name := range slices.Sorted(maps.Keys(cfg.Kinds)) {
		k := cfg.Kinds[name]
		if k.Hooks == "" && !k.MCP {
			continue
		}
		if len(k.Command) > 0 && filepath.Base(k.Command[0]) == base || k.Hooks == base {
			return name
		}
	}
	return ""
}

// cliOf names the agent CLI a command is, for MCP wiring without hooks.
func cliOf(cmd string) string {
	base := filepath.Base(cmd)
	if _, ok := registry.Adapter(base); ok {
		return base
	}
	return ""
}

// wireCLI adds the per-process wiring for cli to argv/env: what want asks
// for of hooks, MCP and agent teams.
func wireCLI(cli string, want agentcli.Wiring, argv, env []string, sess agentcli.Wiring) ([]string, []string, error) {
	if cli == "" || (!want.Hooks && !want.MCP && !want.Teams) {
		return argv, env, nil
	}
	c, ok := registry.Adapter(cli)
	if !ok {
		return nil, nil, fmt.Errorf("unknown hooks adapter %q; known: %s", cli, strings.Join(registry.Adapters(), ", "))
	}
	exe := sess.Exe
	if exe == "" {
		p, err := os.Executable()
		if err != nil {
			return nil, nil, fmt.Errorf("find the agentgrid binary to wire %s hooks: %w", cli, err)
		}
		exe = p
	}
	w := sess
	w.Exe, w.Hooks, w.MCP, w.Teams = exe, want.Hooks, want.MCP, want.Teams
	return c.Wire(w, argv, env)
}

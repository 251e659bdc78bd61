package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/internal/control"
)

// MaxWaitAgent is the longest wait_agent blocks before it answers with the
// current states, so MCP clients with tool-call timeouts can call it again.
const MaxWaitAgent = 50 * time.Second

// maxToolText bounds the screen text read_agent_output returns; the most
// recent lines are kept.
const maxToolText = 256 << 10

// mcpCallTimeout bounds every socket call of a tool except wait_agent.
const mcpCallTimeout = 30 * time.Second

const mcpInstructions = `This server controls the agentgrid session you are running in: every agent
you start appears live in a pane beside you. Start background agents with
spawn_agent (a command, or a kind such as "claude" or a category from list_kinds
with a prompt), watch them with
list_agents and wait_agent (it returns within 50 seconds; call it again while
agents are still running), read what an agent printed with read_agent_output, answer
an agent that is waiting with send_to_agent, and close_agent when you no longer
need one. agent_events tells you what the agents you started did since you last
asked (finished turns, exits, waits); the same notices also reach you as context
on your next turn. set_status puts a short note in the session's status line. loop_agent keeps an
agent on its task until it writes a completion promise, within a bound you give.`

// Run serves the agentgrid MCP tools over newline-delimited JSON-RPC on
// in/out (stdio for `agentgrid mcp`), forwarding every call to the session
// behind client. It returns when the peer hangs up or ctx ends.
//
// Once the peer has the tools (the first tools/list is answered), the
// session is told (agent.mcp_ready): a CLI's first prompt may wait for it.
func Run(ctx context.Context, client *control.Client, in io.Reader, out io.Writer) error {
	listed := func() {
		go func() {
			// An older session does not know the method; nothing waits then.
			rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			defer cancel()
			_ = client.MCPReady(rctx)
		}()
	}
	err := newServer(client).serve(ctx, newLineConn(in, out), listed)
	if err != nil && (errors.Is(err, io.EOF) || errors.Is(err, context.Canceled)) {
		return nil
	}
	return err
}

// The tools' inputs. Each has a JSON schema (below) the server checks the
// arguments against before the handler runs.
type (
	spawnInput struct {
		Title    string            `json:"title,omitempty"`
		Cwd      string            `json:"cwd,omitempty"`
		Kind     string            `json:"kind,omitempty"`
		Category string            `json:"category,omitempty"`
		Prompt   string            `json:"prompt,omitempty"`
		Argv     []string          `json:"argv,omitempty"`
		Env      map[string]string `json:"env,omitempty"`
		Worktree string            `json:"worktree,omitempty"`
		Model    string            `json:"model,omitempty"`
	}
	closeInput struct {
		ID             string `json:"id"`
		RemoveWorktree bool   `json:"remove_worktree,omitempty"`
	}
	listInput    struct{}
	readOutInput struct {
		ID         string `json:"id"`
		Scrollback int    `json:"scrollback,omitempty"`
		Escapes    bool   `json:"escapes,omitempty"`
	}
	sendInput struct {
		ID    string `json:"id"`
		Text  string `json:"text"`
		Enter *bool  `json:"enter,omitempty"`
	}
	waitInput struct {
		IDs            []string `json:"ids"`
		TimeoutSeconds float64  `json:"timeout_seconds,omitempty"`
		Until          string   `json:"until,omitempty"`
		Any            bool     `json:"any,omitempty"`
	}
	eventsInput struct {
		Cursor         int64   `json:"cursor,omitempty"`
		TimeoutSeconds float64 `json:"timeout_seconds,omitempty"`
	}
	statusInput struct {
		Key   string `json:"key"`
		Text  string `json:"text"`
		Agent string `json:"agent,omitempty"`
		TTL   string `json:"ttl,omitempty"`
	}
)

const agentIDSchema = `{"type": "string", "minLength": 1, "maxLength": 64, "description": "agent id as shown by list_agents, e.g. \"a3\""}`

var toolSchemas = map[string]string{
	control.ToolSpawn: `{
  "type": "object", "additionalProperties": false,
  "properties": {
    "title":  {"type": "string", "maxLength": 200, "description": "short title shown in the pane border"},
    "cwd":    {"type": "string", "description": "working directory (default: the session's)"},
    "kind":   {"type": "string", "maxLength": 64, "description": "preset from the config: claude, codex, gemini, opencode, aider, shell, ... (list_kinds lists them)"},
    "category": {"type": "string", "maxLength": 64, "description": "instead of kind: a category from the config (list_kinds lists them), which picks the kind, the model and fallbacks"},
    "prompt": {"type": "string", "description": "task for an agent CLI kind or category; needs one of them"},
    "model":  {"type": "string", "minLength": 1, "maxLength": 200, "description": "with kind: the model for its CLI, e.g. \"opus\" for claude or \"anthropic/claude-sonnet-4-5\" for opencode (a category picks its own)"},
    "argv":   {"type": "array", "items": {"type": "string"}, "minItems": 1, "description": "command and arguments to run, e.g. [\"go\", \"test\", \"./...\"]; overrides the kind's command"},
    "env":    {"type": "object", "additionalProperties": {"type": "string"}, "description": "extra environment variables"},
    "worktree": {"type": "string", "minLength": 1, "maxLength": 64, "description": "run the agent in a new git worktree of the repository of cwd, on its own branch agentgrid/NAME: a NAME (letters, digits, . _ -), or \"auto\" for one made from the title"}
  }
}`,
	control.ToolList:  `{"type": "object", "additionalProperties": false, "properties": {}}`,
	control.ToolKinds: `{"type": "object", "additionalProperties": false, "properties": {}}`,
	control.ToolRead: `{
  "type": "object", "additionalProperties": false, "required": ["id"],
  "properties": {
    "id": ` + agentIDSchema + `,
    "scrollback": {"type": "integer", "minimum": 0, "maximum": 100000, "description": "history lines to include above the visible screen"},
    "escapes": {"type": "boolean", "description": "keep colours as ANSI escape sequences"}
  }
}`,
	control.ToolSend: `{
  "type": "object", "additionalProperties": false, "required": ["id", "text"],
  "properties": {
    "id": ` + agentIDSchema + `,
    "text": {"type": "string", "maxLength": 65536, "description": "text typed into the agent's terminal"},
    "enter": {"type": "boolean", "description": "press Enter after the text (default true)"}
  }
}`,
	control.ToolWait: `{
  "type": "object", "additionalProperties": false, "required": ["ids"],
  "properties": {
    "ids": {"type": "array", "items": ` + agentIDSchema + `, "minItems": 1, "maxItems": 100},
    "timeout_seconds": {"type": "number", "exclusiveMinimum": 0, "maximum": 50, "description": "longest wait (default and maximum 50)"},
    "until": {"type": "string", "enum": ["exit", "turn", "idle", "waiting", "any"], "description": "what to wait for: exit (default), turn (the agent CLI answered its prompt; last_turn has the first line), idle, waiting (for input), or any of these"},
    "any": {"type": "boolean", "description": "return when one of the agents got there, not all"}
  }
}`,
	control.ToolEvents: `{
  "type": "object", "additionalProperties": false,
  "properties": {
    "cursor": {"type": "integer", "minimum": 0, "description": "the cursor of the previous call; 0 (default) for every notice kept that no hook of yours delivered"},
    "timeout_seconds": {"type": "number", "minimum": 0, "maximum": 50, "description": "wait this long for a notice when there is none yet (default 0: answer at once)"}
  }
}`,
	control.ToolClose: `{
  "type": "object", "additionalProperties": false, "required": ["id"],
  "properties": {
    "id": ` + agentIDSchema + `,
    "remove_worktree": {"type": "boolean", "description": "then remove the git worktree the agent ran in (kept when it has uncommitted changes; its branch stays)"}
  }
}`,
	control.ToolStatus: `{
  "type": "object", "additionalProperties": false, "required": ["key", "text"],
  "properties": {
    "key": {"type": "string", "minLength": 1, "maxLength": 64, "description": "entry name; setting it again replaces the entry"},
    "text": {"type": "string", "maxLength": 1024, "description": "text to show; empty clears the entry"},
    "agent": {"type": "string", "maxLength": 64, "description": "scope the entry to this agent id"},
    "ttl": {"type": "string", "pattern": "^([0-9]+(\\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$", "description": "expire after this long, e.g. \"30s\", \"5m\""}
  }
}`,
}

// inputSchema is the tool's schema as the client sees it (compact) and as
// the server checks it.
func inputSchema(name string) (json.RawMessage, *schema) {
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(toolSchemas[name])); err != nil {
		panic(fmt.Sprintf("tool %s: bad input schema: %v", name, err))
	}
	s, err := parseSchema(b.Bytes())
	if err != nil {
		panic(fmt.Sprintf("tool %s: bad input schema: %v", name, err))
	}
	return b.Bytes(), s
}

func boolPtr(b bool) *bool { return &b }

// newServer returns the agentgrid MCP server bound to the session behind
// client.
func newServer(client *control.Client) *server {
	s := &server{}
	t := mcpTools{c: client}
	readOnly := &toolAnnotations{ReadOnlyHint: true, OpenWorldHint: boolPtr(false)}

	addTool(s, control.ToolSpawn, "Start a background agent in the session's grid: a command (argv), or a kind or a category (see list_kinds) with a prompt. Returns the new agent (its id, state, pane). It may be queued when the grid is full or a limit is reached.",
		&toolAnnotations{Title: "Spawn agent", DestructiveHint: boolPtr(false), OpenWorldHint: boolPtr(true)}, t.spawn)
	addTool(s, control.ToolList, "List every agent of the session with its id, title, state (pending, running, waiting, idle, done, failed, killed), why it is in that state, exit code and queue position.",
		withTitle(readOnly, "List agents"), t.list)
	addTool(s, control.ToolRead, "Read an agent's terminal screen as text, optionally with scrollback history above it. Works after the agent has finished.",
		withTitle(readOnly, "Read agent output"), t.readOutput)
	addTool(s, control.ToolSend, "Type text into an agent's terminal, by default followed by Enter: answer a question, approve a prompt, give the next instruction.",
		&toolAnnotations{Title: "Send to agent", DestructiveHint: boolPtr(false), OpenWorldHint: boolPtr(false)}, t.send)
	addTool(s, control.ToolWait, "Wait until the given agents have finished (or, with until, finished a turn, gone idle or wait for input; with any, one of them), for at most 50 seconds, then return their states; finished is false if they are not there yet, so call it again.",
		withTitle(readOnly, "Wait for agents"), t.wait)
	addTool(s, control.ToolEvents, "Notices about the agents you started, oldest first: a finished turn (with its first line), an exit (with its code), a wait for input (with the reason). Pass the returned cursor to the next call to get only newer ones; with timeout_seconds it waits for the next notice.",
		withTitle(readOnly, "Agent events"), t.events)
	addTool(s, control.ToolClose, "Stop an agent's process (SIGHUP, then SIGTERM, then SIGKILL) and close its pane. Its output log stays on disk.",
		&toolAnnotations{Title: "Close agent", DestructiveHint: boolPtr(true), IdempotentHint: true, OpenWorldHint: boolPtr(false)}, t.close)
	addTool(s, control.ToolStatus, "Show a short note in the session's status line under a key (empty text clears it), optionally scoped to one agent and expiring after a ttl.",
		&toolAnnotations{Title: "Set status", DestructiveHint: boolPtr(false), IdempotentHint: true, OpenWorldHint: boolPtr(false)}, t.setStatus)
	addLoopTool(s, t)
	addKindTools(s, t)
	hideRefusedTools(s, client)
	return s
}

// hideRefusedTools takes the tools the session would refuse this agent
// ([kinds.NAME] mcp_tools) off the list, so its model does not reach for
// them; the session refuses them anyway. A session that does not say
// keeps them all.
func hideRefusedTools(s *server, client *control.Client) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	info, err := client.SessionInfo(ctx)
	if err != nil || !info.ToolsLimited {
		return
	}
	var hide []string
	for _, name := range control.MCPTools {
		if !slices.Contains(info.Tools, name) {
			hide = append(hide, name)
		}
	}
	s.remove(hide...)
}

// addTool adds the tool name with its input schema (toolSchemas) and its
// handler, which gets the arguments decoded into In once they passed the
// schema.
func addTool[In any](s *server, name, description string, ann *toolAnnotations, h func(context.Context, In) (any, error)) {
	raw, sch := inputSchema(name)
	s.add(&tool{Name: name, Description: description, InputSchema: raw, Annotations: ann, schema: sch,
		call: func(ctx context.Context, args json.RawMessage) (any, error) {
			var in In
			if len(args) > 0 && string(args) != "null" {
				if err := json.Unmarshal(args, &in); err != nil {
					return nil, fmt.Errorf("invalid arguments: %v", err)
				}
			}
			return h(ctx, in)
		}})
}

func withTitle(a *toolAnnotations, title string) *toolAnnotations {
	c := *a
	c.Title = title
	return &c
}

type mcpTools struct{ c *control.Client }

func callCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, mcpCallTimeout)
}

// agentSummary is the part of AgentInfo a model needs, without the noise.
type agentSummary struct {
	ID        string           `json:"id"`
	Title     string           `json:"title,omitempty"`
	Kind      string           `json:"kind,omitempty"`
	Category  string           `json:"category,omitempty"`
	Model     string           `json:"model,omitempty"`
	Argv      []string         `json:"argv,omitempty"`
	State     agentstate.State `json:"state"`
	Why       string           `json:"why,omitempty"`
	Since     time.Time        `json:"since"`
	ExitCode  *int             `json:"exit_code,omitempty"`
	Visible   bool             `json:"visible"`
	QueuePos  int              `json:"queue_pos,omitempty"`
	Subagents int              `json:"subagents,omitempty"`
	Ended     *time.Time       `json:"ended,omitempty"`
	Turns     int              `json:"turns,omitempty"`
	LastTurn  string           `json:"last_turn,omitempty"`
	Loop      *loopInfo        `json:"loop,omitempty"`
	Worktree  string           `json:"worktree,omitempty"`
	Branch    string           `json:"branch,omitempty"`
}

func summarize(a control.AgentInfo) agentSummary {
	return agentSummary{
		ID: a.ID, Title: a.Title, Kind: a.Kind, Category: a.Category, Model: a.Model, Argv: a.Argv, State: a.State, Why: a.Why, Since: a.Since,
		ExitCode: a.ExitCode, Visible: a.Visible, QueuePos: a.QueuePos, Subagents: a.Subagents, Ended: a.Ended,
		Turns: a.Turns, LastTurn: a.LastTurn, Loop: a.Loop, Worktree: a.Worktree, Branch: a.Branch,
	}
}

func (t mcpTools) spawn(ctx context.Context, in spawnInput) (any, error) {
	if in.Kind != "" && in.Category != "" {
		return nil, errors.New("give a kind or a category, not both")
	}
	if len(in.Argv) == 0 && in.Kind == "" && in.Category == "" {
		return nil, errors.New("give argv (the command to run), kind (a preset such as claude) or category (see list_kinds)")
	}
	if in.Prompt != "" && in.Kind == "" && in.Category == "" {
		return nil, errors.New("a prompt needs a kind (such as claude) or a category that knows how to pass it")
	}
	ctx, cancel := callCtx(ctx)
	defer cancel()
	p := control.SpawnParams{Title: in.Title, Cwd: in.Cwd, Kind: in.Kind, Category: in.Category, Prompt: in.Prompt, Argv: in.Argv, Env: in.Env, Model: in.Model}
	if in.Worktree != "" {
		p.Worktree = &control.WorktreeSpec{}
		if in.Worktree != "auto" {
			p.Worktree.Name = in.Worktree
		}
	}
	a, err := t.c.Spawn(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("spawn the agent: %w", err)
	}
	return summarize(a), nil
}

func (t mcpTools) list(ctx context.Context, _ listInput) (any, error) {
	ctx, cancel := callCtx(ctx)
	defer cancel()
	agents, err := t.c.List(ctx)
	if err != nil {
		return nil, fmt.Errorf("list the agents: %w", err)
	}
	out := struct {
		Agents []agentSummary `json:"agents"`
	}{Agents: []agentSummary{}}
	for _, a := range agents {
		out.Agents = append(out.Agents, summarize(a))
	}
	return out, nil
}

func (t mcpTools) readOutput(ctx context.Context, in readOutInput) (any, error) {
	ctx, cancel := callCtx(ctx)
	defer cancel()
	text, err := t.c.Capture(ctx, in.ID, in.Escapes, in.Scrollback)
	if err != nil {
		return nil, fmt.Errorf("read the output of %s: %w", in.ID, err)
	}
	out := struct {
		ID        string           `json:"id"`
		State     agentstate.State `json:"state,omitempty"`
		Truncated bool             `json:"truncated,omitempty"`
		Text      string           `json:"text"`
	}{ID: in.ID, Text: strings.TrimRight(text, "\n")}
	text = out.Text
	if len(text) > maxToolText {
		cut := text[len(text)-maxToolText:]
		if i := strings.IndexByte(cut, '\n'); i >= 0 {
			cut = cut[i+1:]
		}
		out.Text, out.Truncated = cut, true
	}
	if a, err := t.c.Agent(ctx, in.ID); err == nil {
		out.State = a.State
	}
	return out, nil
}

func (t mcpTools) send(ctx context.Context, in sendInput) (any, error) {
	text := in.Text
	if in.Enter == nil || *in.Enter {
		text += "\r"
	}
	if text == "" {
		return nil, errors.New("nothing to send: the text is empty and enter is false")
	}
	ctx, cancel := callCtx(ctx)
	defer cancel()
	if err := t.c.Send(ctx, in.ID, text); err != nil {
		return nil, fmt.Errorf("send to %s: %w", in.ID, err)
	}
	return map[string]any{"ok": true, "id": in.ID}, nil
}

func (t mcpTools) wait(ctx context.Context, in waitInput) (any, error) {
	timeout := MaxWaitAgent
	if in.TimeoutSeconds != 0 {
		// At least a millisecond: a tiny timeout must not round to 0, which
		// the session reads as "no limit".
		timeout = secondsDuration(in.TimeoutSeconds, time.Millisecond, MaxWaitAgent)
	}
	// The session answers at the timeout with the current states; the extra
	// margin only covers a session that stopped answering.
	ctx, cancel := context.WithTimeout(ctx, timeout+5*time.Second)
	defer cancel()
	exit := (in.Until == "" || in.Until == control.UntilExit) && !in.Any
	var res control.WaitResult
	var err error
	if exit {
		res, err = t.c.Wait(ctx, in.IDs, timeout)
	} else {
		res, err = t.c.WaitFor(ctx, in.IDs, timeout, in.Until, in.Any)
	}
	if err != nil {
		return nil, fmt.Errorf("wait for %s: %w", strings.Join(in.IDs, ", "), err)
	}
	out := struct {
		Finished bool           `json:"finished"`
		Note     string         `json:"note,omitempty"`
		Agents   []agentSummary `json:"agents"`
	}{Finished: !res.TimedOut, Agents: []agentSummary{}}
	for _, a := range res.Agents {
		out.Agents = append(out.Agents, summarize(a))
		if exit && !a.State.Finished() {
			out.Finished = false
		}
	}
	if !out.Finished {
		out.Note = "some agents are still running; call wait_agent again to keep waiting"
		if !exit {
			out.Note = "not there yet; call wait_agent again to keep waiting"
		}
	}
	return out, nil
}

func (t mcpTools) events(ctx context.Context, in eventsInput) (any, error) {
	var timeout time.Duration
	if in.TimeoutSeconds > 0 {
		timeout = secondsDuration(in.TimeoutSeconds, time.Millisecond, MaxWaitAgent)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout+mcpCallTimeout)
	defer cancel()
	res, err := t.c.Events(ctx, control.EventsParams{Cursor: in.Cursor, TimeoutMS: timeout.Milliseconds()})
	if err != nil {
		return nil, fmt.Errorf("read the notices: %w", err)
	}
	out := struct {
		control.EventsResult
		Note string `json:"note,omitempty"`
	}{EventsResult: res}
	if res.Dropped > 0 {
		out.Note = fmt.Sprintf("%d older notices were dropped before you read them", res.Dropped)
	}
	return out, nil
}

func (t mcpTools) close(ctx context.Context, in closeInput) (any, error) {
	ctx, cancel := callCtx(ctx)
	defer cancel()
	if err := t.c.CloseAgent(ctx, in.ID); err != nil {
		return nil, fmt.Errorf("close %s: %w", in.ID, err)
	}
	out := map[string]any{"ok": true, "id": in.ID}
	if in.RemoveWorktree {
		if _, err := t.c.Wait(ctx, []string{in.ID}, 20*time.Second); err != nil {
			return nil, fmt.Errorf("wait for %s to end: %w", in.ID, err)
		}
		path, err := t.c.RemoveWorktree(ctx, in.ID)
		if err != nil {
			return nil, fmt.Errorf("closed %s, but its worktree stays: %w", in.ID, err)
		}
		out["removed_worktree"] = path
	}
	return out, nil
}

func (t mcpTools) setStatus(ctx context.Context, in statusInput) (any, error) {
	var ttl time.Duration
	if in.TTL != "" {
		d, err := time.ParseDuration(in.TTL)
		if err != nil || d < 0 {
			return nil, fmt.Errorf("ttl %q is not a duration such as 30s or 5m", in.TTL)
		}
		if d > control.MaxDuration {
			return nil, fmt.Errorf("ttl %q is longer than the 720h (30 days) a status entry may live", in.TTL)
		}
		ttl = d
	}
	ctx, cancel := callCtx(ctx)
	defer cancel()
	if err := t.c.SetStatusFrom(ctx, "mcp", in.Key, in.Text, in.Agent, ttl); err != nil {
		return nil, fmt.Errorf("set status %q: %w", in.Key, err)
	}
	return map[string]any{"ok": true, "key": in.Key, "cleared": in.Text == ""}, nil
}

// secondsDuration converts a number of seconds from an MCP client into a
// duration within [minD, maxD]; NaN, infinities and values out of range are
// clamped, never overflowed (1e-12 seconds must not mean "no limit").
func secondsDuration(s float64, minD, maxD time.Duration) time.Duration {
	switch {
	case math.IsNaN(s) || s <= 0:
		return minD
	case s >= maxD.Seconds():
		return maxD
	}
	return max(time.Duration(s*float64(time.Second)), minD)
}

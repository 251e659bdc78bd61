package control

import (
	"time"

	"github.com/agentgrid/agentgrid/internal/agentstate"
)

// MainID is the agent id of the orchestrator in the main view.
const MainID = "main"

// AgentInfo is a JSON-serialisable snapshot of one agent, used by list
// --json, the socket, MCP and the UI.
type AgentInfo struct {
	ID string `json:"id"` // "a1", "a2", ...; the orchestrator is "main"
	// Title is the agent's one name, given by the engine: the title asked
	// for, else the one its program set, else its command's base name.
	// Borders, the status line, lists and tmux's pane_title all show it.
	Title string `json:"title"`
	Kind  string `json:"kind,omitempty"`
	// Category is the [categories.NAME] the agent was spawned with; Model
	// the model its kind's CLI was given (from the category), Provider who
	// serves it ([limits.providers]); Try counts the tries of its current
	// route when a retry policy started it more than once.
	Category string   `json:"category,omitempty"`
	Model    string   `json:"model,omitempty"`
	Provider string   `json:"provider,omitempty"`
	Try      int      `json:"try,omitempty"`
	Argv     []string `json:"argv"`
	Cwd      string   `json:"cwd,omitempty"`

	State agentstate.State `json:"state"`
	// Why says what made the state, in words ("exited with code 1").
	Why string `json:"why,omitempty"`
	// Source is the evidence behind State: process, hook:NAME, terminal,
	// input, activity, engine.
	Source    string    `json:"source,omitempty"`
	Since     time.Time `json:"since"`
	Confirmed time.Time `json:"confirmed"`
	ExitCode  *int      `json:"exit_code,omitempty"`

	// Parent is the agent that started this one ("main" for the main view);
	// empty when the user did (a shell outside the session, the UI, the config).
	Parent string `json:"parent,omitempty"`

	Created time.Time  `json:"created"`
	Started *time.Time `json:"started,omitempty"`
	Ended   *time.Time `json:"ended,omitempty"`
	PID     int        `json:"pid,omitempty"`

	Visible bool `json:"visible"`
	// Number is the pane number shown in the border (N of the id aN, the
	// same for the agent's life), 0 if not on screen.
	Number int `json:"number,omitempty"`
	// QueuePos is the 1-based position in the deferred-spawn queue, 0 if not queued.
	QueuePos int `json:"queue_pos,omitempty"`
	// QueueReason says why a queued or pending agent is waiting.
	QueueReason string `json:"queue_reason,omitempty"`
	// QueuedSince is when it entered the deferred-spawn queue (its age there).
	QueuedSince *time.Time `json:"queued_since,omitempty"`

	LogPath string `json:"log_path,omitempty"`
	// Worktree is the git worktree the agent runs in and Branch its
	// branch, when it was spawned with one.
	Worktree string `json:"worktree,omitempty"`
	Branch   string `json:"branch,omitempty"`
	// LogError says why the output log stopped (a full disk) and when;
	// output after that is shown but not logged.
	LogError  string `json:"log_error,omitempty"`
	Subagents int    `json:"subagents,omitempty"`
	// Interrupted is set while the last stop of the agent was caused by the
	// user interrupting it (Esc / ctrl+c).
	Interrupted bool `json:"interrupted,omitempty"`
	// Turns counts the turns the agent's CLI finished (a prompt, then the
	// end-of-turn hook with something said); LastTurn is the first line of
	// what it said last. Set in agent.wait's results.
	Turns    int    `json:"turns,omitempty"`
	LastTurn string `json:"last_turn,omitempty"`
	// Accent is the pane's border colour, a palette index "0".."255" or
	// "#rrggbb" as in a theme, set by the program through tmux's pane style
	// options; "" for the theme's.
	Accent string `json:"accent,omitempty"`
	// Loop is the agent's continuation loop, nil when it never had one.
	Loop *LoopInfo `json:"loop,omitempty"`
}

// SpawnRequest asks for a new background agent.
type SpawnRequest struct {
	Title string `json:"title,omitempty"`
	Cwd   string `json:"cwd,omitempty"`
	Kind  string `json:"kind,omitempty"`
	// Category names a [categories.NAME] instead of a kind: its kind,
	// model, prompt prefix and fallbacks. Give one of Kind and Category.
	Category string            `json:"category,omitempty"`
	Prompt   string            `json:"prompt,omitempty"`
	Argv     []string          `json:"argv,omitempty"`
	Env      map[string]string `json:"env,omitempty"`
	// Model is the model for Kind's CLI (spawn --model), passed as a
	// category passes its model; a category picks its own.
	Model string `json:"model,omitempty"`
	// Loop runs the agent in a continuation loop from its first turn; the
	// prompt is its task.
	Loop *LoopSpec `json:"loop,omitempty"`
	// Worktree runs the agent in a new git worktree of the repository
	// that holds Cwd, on a branch of its own (agentgrid spawn --worktree).
	Worktree *WorktreeSpec `json:"worktree,omitempty"`
	// Parent is the agent whose token asked for the spawn ("" when the user
	// did). The control socket sets it from the caller, never from params.
	Parent string `json:"-"`
}

// Transition is one entry of an agent's state history.
type Transition struct {
	Time   time.Time        `json:"time"`
	From   agentstate.State `json:"from"`
	To     agentstate.State `json:"to"`
	Why    string           `json:"why,omitempty"`
	Source string           `json:"source,omitempty"`
}

// Explanation tells why an agent is in its state: the current info and the
// recent transitions, oldest first.
type Explanation struct {
	Agent   AgentInfo    `json:"agent"`
	History []Transition `json:"history"`
	// Evidence lists the latest signal of each source, for the curious.
	Evidence []Evidence `json:"evidence,omitempty"`
	// Decisions are the session's recent answers to the agent's hooks
	// (the [[policies]]), oldest first.
	Decisions []Decided `json:"decisions,omitempty"`
	// Resolution is how its category or kind resolved, step by step:
	// "category quick → claude, model claude-haiku-4-5", each retry, each
	// fallback and why ("fell back to codex: rate_limit").
	Resolution []RouteStep `json:"resolution,omitempty"`
	// Notices are the notices queued for the agent about the agents it
	// started: every undelivered one and the latest delivered ones, with
	// when and how each was delivered, oldest first.
	Notices []Notice `json:"notices,omitempty"`
	// RewakeWaiting is true while a rewake hook waits to wake the agent
	// with its notices (agent.rewake).
	RewakeWaiting bool `json:"rewake_waiting,omitempty"`
}

// RouteStep is one step of an agent's resolution.
type RouteStep struct {
	Time time.Time `json:"time"`
	Text string    `json:"text"`
}

// Decided is one answer the session gave an agent's hook, and why.
type Decided struct {
	Time   time.Time `json:"time"`
	Point  string    `json:"point"`
	Tool   string    `json:"tool,omitempty"`
	Action string    `json:"action"`
	Policy string    `json:"policy"`
	Reason string    `json:"reason"`
}

// Evidence is the latest word of one source about an agent.
type Evidence struct {
	Source string    `json:"source"`
	Says   string    `json:"says"`
	Time   time.Time `json:"time"`
}

package agentstate

// Point is where in an agent's turn a hook event lets agentgrid answer: the
// `on` of a [[policies]] entry.
type Point string

// The points at which a CLI accepts an answer.
const (
	PointPreTool  Point = "pre_tool"  // before a tool runs: a block denies it
	PointPostTool Point = "post_tool" // after a tool ran: a hint adds context
	PointPrompt   Point = "prompt"    // the user submitted a prompt
	PointStop     Point = "stop"      // the turn is ending: a block makes it go on
)

// Points lists every Point, in the order of a turn.
var Points = []Point{PointPreTool, PointPostTool, PointPrompt, PointStop}

// Ask is what an answerable hook event asks the session: the point, the tool
// and the files it touches, the prompt, or what the assistant said last.
type Ask struct {
	Point Point `json:"point"`
	// Tool is the CLI's tool name ("Edit", "Bash"); empty at prompt and stop.
	Tool string `json:"tool,omitempty"`
	// Paths are the files the tool reads or writes, as the CLI gave them
	// (absolute, or relative to Cwd).
	Paths []string `json:"paths,omitempty"`
	// Cwd is the CLI's working directory when it sent the event.
	Cwd string `json:"cwd,omitempty"`
	// Prompt is the text the user submitted (PointPrompt).
	Prompt string `json:"prompt,omitempty"`
	// Said is the assistant's last message (PointStop).
	Said      string `json:"said,omitempty"`
	SessionID string `json:"session_id,omitempty"`
	// Repeat is set on a Stop that ends a turn a block kept going: it
	// still ends the turn, and is not blocked again.
	Repeat bool `json:"repeat,omitempty"`
	// Todos is the agent's todo list as the tool that writes it left it
	// (Claude Code's TodoWrite), nil when the event does not carry one.
	Todos *Todos `json:"todos,omitempty"`
}

// Todos counts the items of an agent's todo list.
type Todos struct {
	Open int `json:"open"` // pending or in progress
	Done int `json:"done"` // completed
}

// Action is what a decision asks the CLI to do.
type Action string

// The actions of a decision; "" lets the CLI go ahead.
const (
	ActionNone  Action = ""
	ActionHint  Action = "hint"  // add the message to the model's context
	ActionBlock Action = "block" // deny the tool or prompt, or keep the turn going
)

// Decision is the session's answer to an Ask. Message is what the model (or
// the user) reads; Policy names the [[policies]] entries behind it.
type Decision struct {
	Action  Action `json:"action,omitempty"`
	Message string `json:"message,omitempty"`
	Policy  string `json:"policy,omitempty"`
	// Notices is the Seq of the last notice about the agent's children the
	// message carries; the hook acknowledges it once the answer is printed,
	// and the session offers unacknowledged notices again.
	Notices int64 `json:"notices,omitempty"`
}

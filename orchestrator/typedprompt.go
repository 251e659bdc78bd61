package orchestrator

import (
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/agentgrid/agentgrid/panes"
)

// promptReadyWait is how long a typed prompt waits for its CLI to be ready
// (its ready hook, and agentgrid's MCP tools listed) before it is typed
// anyway: a CLI whose MCP server never connects still gets its task.
const promptReadyWait = 30 * time.Second

// promptSettle is how long a typed prompt waits after its CLI is ready:
// Claude Code answers its ready hook and lists agentgrid's tools before
// its input box offers them to the model (typed at once, about one
// prompt in four reached the model without them in the live suite;
// 150 ms later, none of eight did).
const promptSettle = 500 * time.Millisecond

// typedPrompt is a spawn's prompt on its way into a CLI that takes it
// typed (agentcli.PromptTyper): given on its command line, the CLI would
// send it to the model before agentgrid's MCP server is connected, so the
// model's first turn would lack agentgrid's tools. It is typed — pasted,
// then Enter as a key of its own — when its timer fires: promptReadyWait
// after the start, or promptSettle after the CLI's ready hook has arrived
// and its MCP server has answered the CLI's tools/list, whichever comes
// first; explain says which.
type typedPrompt struct {
	text  string
	cli   string      // the CLI's name, for explain
	event string      // the hook event after which the CLI takes input
	pane  *panes.Pane // the process it is for: a retry arms its own
	ready bool        // the ready hook arrived
	mcp   bool        // the MCP server listed agentgrid's tools
	timer Timer       // types the prompt when it fires
}

// prompt is the prompt the route running now gives its CLI: the spawn's,
// after the route's prompt_prefix.
func (r *routing) prompt() string {
	if len(r.routes) == 0 || r.req.Prompt == "" {
		return r.req.Prompt
	}
	return r.routes[r.at].PromptPrefix + r.req.Prompt
}

// armPrompt starts waiting to type a's prompt into the process just
// started, when its CLI takes the prompt typed (reconciler).
func (e *Engine) armPrompt(a *agent) {
	e.dropPrompt(a)
	text := a.route.prompt()
	pt := promptTyper(e.cfg, a.kind)
	if text == "" || pt == nil || a.pane == nil {
		return
	}
	p := &typedPrompt{text: text, cli: e.cfg.Kinds[a.kind].Hooks, event: pt.ReadyEvent(), pane: a.pane}
	p.timer = e.promptTimer(a, p, promptReadyWait)
	a.prompt = p
	a.route.step(e.now(), "the prompt is typed once %s's %s hook has run and agentgrid's MCP tools are listed (at most %v)", p.cli, p.event, promptReadyWait)
}

// promptTimer types p, a's prompt, after d, unless it was dropped.
func (e *Engine) promptTimer(a *agent, p *typedPrompt, d time.Duration) Timer {
	return e.clock.AfterFunc(d, func() {
		_ = e.do(func() {
			if a.prompt == p {
				e.typePrompt(a)
			}
		})
	})
}

// dropPrompt forgets a's prompt still to be typed.
func (e *Engine) dropPrompt(a *agent) {
	if a.prompt != nil {
		a.prompt.timer.Stop()
		a.prompt = nil
	}
}

// promptHookHeard notes a hook event of a's CLI (reconciler).
func (e *Engine) promptHookHeard(a *agent, event string) {
	if p := a.prompt; p != nil && event == p.event && !p.ready {
		p.ready = true
		e.settlePrompt(a)
	}
}

// MCPReady notes that agent id's CLI has listed agentgrid's MCP tools
// (control.MCPReadyBackend): its prompt, if one waits for that, may go.
func (e *Engine) MCPReady(id string) error {
	return e.doAgent(id, func(a *agent) error {
		a.mcpReadyAt = e.now()
		if p := a.prompt; p != nil && !p.mcp {
			p.mcp = true
			e.settlePrompt(a)
		}
		return nil
	})
}

// settlePrompt makes a's prompt go promptSettle from now instead of at
// the deadline, once its CLI is ready (reconciler).
func (e *Engine) settlePrompt(a *agent) {
	if p := a.prompt; p.ready && p.mcp {
		p.timer.Stop()
		p.timer = e.promptTimer(a, p, promptSettle)
	}
}

// typePrompt types a's prompt, its timer having fired, and says in explain
// whether the CLI was ready (reconciler).
func (e *Engine) typePrompt(a *agent) {
	p := a.prompt
	e.dropPrompt(a)
	if a.pane != p.pane || a.f.State.Finished() {
		return
	}
	if p.ready && p.mcp {
		a.route.step(e.now(), "prompt typed: %s's %s hook ran and agentgrid's MCP tools were listed, then %v passed for it to take them in", p.cli, p.event, promptSettle)
	} else {
		var missing []string
		if !p.ready {
			missing = append(missing, fmt.Sprintf("%s's %s hook", p.cli, p.event))
		}
		if !p.mcp {
			missing = append(missing, "agentgrid's MCP tools listed (the CLI's MCP server did not connect), so its first turn may lack them")
		}
		a.route.step(e.now(), "prompt typed after %v without %s", promptReadyWait, strings.Join(missing, " or "))
		e.log.Warn("typed a spawn's prompt before its CLI was ready", "agent", a.id, "hook", p.ready, "mcp", p.mcp)
	}
	e.st.dirty = true
	text := typedBytes(a, withoutControls(p.text))
	id := a.id
	go func() {
		// Text, then Enter as a key of its own (see Send).
		if err := e.Send(id, append(text, '\r')); err != nil {
			e.log.Warn("typing a spawn's prompt failed", "agent", id, "err", err)
		}
	}()
}

// pastePiece is the most a typed prompt pastes at once: Claude Code folds a
// longer paste (over about 800 characters) into a placeholder that reaches
// the model wrapped in <pasted_content id=…>, and names the prompt by that
// wrapper in its UserPromptSubmit hook; pieces this short go in as text.
const pastePiece = 400

// typedBytes is prompt as typed into a's pane: pastes of at most
// pastePiece bytes each when the program takes bracketed paste, else the
// prompt on one line (continuationBytes).
func typedBytes(a *agent, prompt string) []byte {
	if a.term == nil || !a.term.Modes().BracketedPaste {
		return continuationBytes(a, prompt)
	}
	var out []byte
	for prompt != "" {
		n := min(len(prompt), pastePiece)
		for n < len(prompt) && !utf8.RuneStart(prompt[n]) {
			n-- // never cut a character in two
		}
		out = append(out, a.term.EncodePaste(prompt[:n])...)
		prompt = prompt[n:]
	}
	return out
}

// withoutControls is a prompt as it may be typed: every control character
// but newline and tab removed, so that it is text to the CLI and never a
// key (an Esc, a ctrl+c, an end of the paste).
func withoutControls(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' || !unicode.IsControl(r) {
			return r
		}
		return -1
	}, s)
}

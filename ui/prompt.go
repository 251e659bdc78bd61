package ui

import (
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/agentgrid/agentgrid/panes/vterm"
	"github.com/agentgrid/agentgrid/ui/termrt"
)

// promptPurpose says what a prompt's text is for.
type promptPurpose int

const (
	promptNewAgent promptPurpose = iota
	promptSearch
	promptGoTo
	promptCommand
)

// promptOverlay asks for one line of text: a command line for a new agent
// or a scrollback search.
type promptOverlay struct {
	purpose  promptPurpose
	paneID   string // search: the pane searched
	backward bool   // search: towards older lines
	title    string
	input    lineInput
	err      string
	pending  bool // a submit is being acted on: enter waits for it
	st       uiStyles
	w, h     int
	x, y     int
	boxW     int
}

// newAgentPrompt asks for the command line of a new agent.
func newAgentPrompt(w, h int, st uiStyles) *promptOverlay {
	p := &promptOverlay{purpose: promptNewAgent, title: "new agent", st: st}
	p.init("command: ", "e.g. htop, or sh -c 'make test'")
	p.SetSize(w, h)
	return p
}

// newSearchPrompt asks for a scrollback search in pane id.
func newSearchPrompt(id string, backward bool, w, h int, st uiStyles) *promptOverlay {
	title := "search down"
	prompt := "/"
	if backward {
		title, prompt = "search up", "?"
	}
	p := &promptOverlay{purpose: promptSearch, paneID: id, backward: backward, title: title, st: st}
	p.init(prompt, "")
	p.SetSize(w, h)
	return p
}

func (p *promptOverlay) init(prompt, placeholder string) {
	p.input = newLineInput(prompt, placeholder, 4096)
}

// SetSize implements overlay.
func (p *promptOverlay) SetSize(w, h int) {
	p.w, p.h = w, h
	p.boxW = min(max(w*2/3, 30), w)
	p.input.SetWidth(p.boxW - 3) // borders and the leading space
	p.x, p.y = centre(p.boxW, 4, w, h)
}

// setError shows why the text was refused; the prompt stays open.
func (p *promptOverlay) setError(msg string) { p.err = msg }

// Update implements overlay.
func (p *promptOverlay) Update(msg tea.Msg) (overlayResult, tea.Cmd) {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		switch k.String() {
		case "esc", "ctrl+c":
			return overlayResult{close: true}, nil
		case "enter":
			if p.pending {
				return overlayResult{}, nil
			}
			return overlayResult{submitted: true, submit: p.input.Value()}, nil
		}
	}
	p.input.Update(msg)
	p.err = ""
	return overlayResult{}, nil
}

// View implements overlay. A refusal wraps under the input over as many
// rows as the screen has below it, so the whole reason (the list of themes
// or commands) shows, not its first box width.
func (p *promptOverlay) View() ([][]vterm.Cell, int, int) {
	input, _ := p.input.view(termrt.Style{}, p.st.muted)
	lines := []line{input, nil}
	if p.err != "" {
		wrapped := strings.Split(ansi.Wrap(sanitizeLabel(p.err), max(p.boxW-3, 1), ""), "\n")
		wrapped = wrapped[:min(len(wrapped), max(p.h-p.y-3, 1))]
		lines = lines[:1]
		for _, w := range wrapped {
			lines = append(lines, line{{text: w, st: p.st.errLook}})
		}
	}
	rows := drawBox(p.title, lines, p.HelpKeys(), p.boxW, p.st.box)
	return rows, p.x, p.y
}

// Cursor implements overlay: the real cursor sits in the input line.
func (p *promptOverlay) Cursor() *tea.Cursor {
	_, col := p.input.view(termrt.Style{}, termrt.Style{})
	return tea.NewCursor(p.x+2+col, p.y+1) // border and the leading space
}

// HelpKeys implements overlay.
func (p *promptOverlay) HelpKeys() string {
	enter := map[promptPurpose]string{promptNewAgent: "run", promptSearch: "search", promptGoTo: "go", promptCommand: "run"}[p.purpose]
	return hints(hintRoom(p.boxW), hint("enter", enter), hint("esc", "cancel"))
}

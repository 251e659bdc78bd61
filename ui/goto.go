package ui

import (
	"fmt"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/agentgrid/agentgrid/internal/control"
)

// newGoToPrompt asks which agent to go to: its number (as on its border),
// its id (a12) or its title.
func newGoToPrompt(w, h int, st uiStyles) *promptOverlay {
	p := &promptOverlay{purpose: promptGoTo, title: "go to agent", st: st}
	p.init("go to agent: ", "a number (12), an id (a12) or a title")
	p.SetSize(w, h)
	return p
}

// findAgent resolves what the user typed to an agent id: "0" or "main" is
// the main view; N, aN and %N (tmux's name) are agent aN; anything else
// is a title, matched exactly or, failing that, as the start of exactly
// one title.
func (m *Model) findAgent(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", fmt.Errorf("type an agent's number (as on its border), its id or its title")
	}
	if s == "0" || s == control.MainID || s == "%0" {
		if m.snap.Main == nil {
			return "", fmt.Errorf("this session has no main view")
		}
		return control.MainID, nil
	}
	num := strings.TrimPrefix(strings.TrimPrefix(s, "%"), "a")
	if n, err := strconv.Atoi(num); err == nil && n > 0 {
		id := "a" + strconv.Itoa(n)
		for _, a := range m.snap.Agents {
			if a.ID == id {
				return id, nil
			}
		}
		return "", fmt.Errorf("no agent %s in this session; prefix w lists them", id)
	}
	var prefixed []string
	agents := m.snap.Agents
	if m.snap.Main != nil {
		agents = append([]control.AgentInfo{m.snap.Main.Agent}, agents...)
	}
	for _, a := range agents {
		switch {
		case a.Title == s:
			return a.ID, nil
		case strings.HasPrefix(a.Title, s):
			prefixed = append(prefixed, a.ID)
		}
	}
	switch len(prefixed) {
	case 1:
		return prefixed[0], nil
	case 0:
		return "", fmt.Errorf("no agent is called %q; prefix w lists them", s)
	}
	return "", fmt.Errorf("%q starts the titles of %s; type more of it or a number", s, strings.Join(prefixed, ", "))
}

// goToAgent focuses the agent the user named (prefix and a digit): a pane
// on screen is focused, unzooming first as tmux does; one off screen or in
// the queue is swapped into view. A name that matches nothing is said on
// the status line.
func (m *Model) goToAgent(s string) tea.Cmd {
	id, err := m.findAgent(s)
	if err != nil {
		return m.flash(err.Error())
	}
	return m.focusAgent(id)
}

// focusAgent focuses agent id, bringing it into view when it is not.
func (m *Model) focusAgent(id string) tea.Cmd {
	if id == control.MainID || m.onScreen(id) {
		unzoom := m.unzoomForFocus(id)
		m.eng.Focus(id)
		return tea.Batch(unzoom, m.syncSnapshot())
	}
	// The keys typed from now on are meant for it: they wait until the
	// engine has swapped it in and focused it (it may take a moment, and
	// runs as a command), rather than go to the pane focused until then.
	m.showing = id
	return engineCmd(func() error { return m.eng.Show(id) }, afterShow)
}

// maxHeld bounds the keys and pastes kept while an agent is brought into
// view; more are dropped (the engine answers within its deadlines, so only
// a stuck engine would fill it).
const maxHeld = 4096

// hold keeps a key or paste that came while an agent is being brought
// into view, and reports whether it did.
func (m *Model) hold(msg tea.Msg) bool {
	if m.showing == "" {
		return false
	}
	if len(m.held) < maxHeld {
		m.held = append(m.held, msg)
	}
	return true
}

// afterShow focuses the agent shown (by taking the engine's new state)
// and hands it the keys that waited. When it could not be shown they go
// nowhere, and the status line says so with the reason: they were typed
// for it, not for the pane focused before.
func afterShow(m *Model, err error) tea.Cmd {
	id, held := m.showing, m.held
	m.showing, m.held = "", nil
	if err != nil {
		if len(held) > 0 {
			err = fmt.Errorf("%d keys typed for %s were not sent: %w", len(held), id, err)
		}
		return afterEngine(m, err)
	}
	cmds := []tea.Cmd{afterEngine(m, nil)}
	for _, msg := range held {
		_, cmd := m.Update(msg)
		cmds = append(cmds, cmd)
	}
	return tea.Batch(cmds...)
}

// onScreen reports whether agent id has a pane in the grid (a zoom may hide
// it for now).
func (m *Model) onScreen(id string) bool {
	for _, a := range m.snap.Agents {
		if a.ID == id {
			return a.Visible
		}
	}
	return false
}

// submitGoTo goes to the agent typed in the go-to prompt; a name that
// matches nothing keeps the prompt open with the reason.
func (m *Model) submitGoTo(text string) (tea.Cmd, error) {
	id, err := m.findAgent(text)
	if err != nil {
		return nil, err
	}
	m.setOverlay(nil)
	return m.focusAgent(id), nil
}

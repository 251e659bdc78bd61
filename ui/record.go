package ui

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"

	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/internal/control"
)

// recorder writes an asciicast v2 file of exactly what the outer terminal
// receives: the runtime's output is teed into it ("o" events, with the
// time since the recording started), with the terminal's size in the
// header and its changes as "r" events, and agents' starts, waits and ends
// as markers ("m"). It is per view: each client's runtime has its own.
type recorder struct {
	mu      sync.Mutex
	f       *os.File
	path    string
	start   time.Time
	now     func() time.Time
	partial []byte // the start of a character split between two writes
	err     error  // the first write error; the recording stopped there
}

// castHeader is the first line of an asciicast v2 file.
type castHeader struct {
	Version   int               `json:"version"`
	Width     int               `json:"width"`
	Height    int               `json:"height"`
	Timestamp int64             `json:"timestamp"`
	Env       map[string]string `json:"env,omitempty"`
	Title     string            `json:"title,omitempty"`
}

// active reports whether a recording runs.
func (r *recorder) active() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.f != nil
}

// begin starts recording to path (created or emptied, mode 0600: the
// screen may show secrets; never through a symbolic link) for a terminal
// of width x height.
func (r *recorder) begin(path string, width, height int) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.f != nil {
		return nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return fmt.Errorf("record to %s: %w", path, err)
	}
	if r.now == nil {
		r.now = time.Now
	}
	r.start = r.now()
	h := castHeader{Version: 2, Width: width, Height: height, Timestamp: r.start.Unix(),
		Env: map[string]string{"TERM": os.Getenv("TERM"), "SHELL": os.Getenv("SHELL")}, Title: "agentgrid"}
	line, _ := json.Marshal(h)
	if _, err := f.Write(append(line, '\n')); err != nil {
		_ = f.Close()
		return fmt.Errorf("record to %s: %w", path, err)
	}
	r.f, r.path, r.partial, r.err = f, path, nil, nil
	return nil
}

// end stops the recording and returns the file's path and the first write
// error, if any.
func (r *recorder) end() (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.f == nil {
		return "", nil
	}
	if len(r.partial) > 0 {
		r.event("o", string(r.partial))
	}
	err := r.f.Close()
	if r.err != nil {
		err = r.err
	}
	path := r.path
	r.f, r.partial = nil, nil
	return path, err
}

// Write tees the terminal's output into the recording.
func (r *recorder) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.f == nil {
		return len(p), nil
	}
	b := append(r.partial, p...)
	// Keep an incomplete UTF-8 character for the next write: an event's
	// text is a JSON string, which must be whole characters.
	cut := len(b)
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				cut = i
			}
			break
		}
	}
	r.partial = append([]byte(nil), b[cut:]...)
	if cut > 0 {
		r.event("o", string(b[:cut]))
	}
	return len(p), nil
}

// resized records a new terminal size.
func (r *recorder) resized(width, height int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.f != nil {
		r.event("r", strconv.Itoa(width)+"x"+strconv.Itoa(height))
	}
}

// marker records a marker with label.
func (r *recorder) marker(label string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.f != nil {
		r.event("m", label)
	}
}

// event appends one event line; r.mu is held.
func (r *recorder) event(kind, data string) {
	if r.err != nil {
		return
	}
	t := r.now().Sub(r.start).Seconds()
	b := make([]byte, 0, len(data)+32)
	b = append(b, '[')
	b = strconv.AppendFloat(b, t, 'f', 6, 64)
	b = append(b, ",\""...)
	b = append(b, kind...)
	b = append(b, "\","...)
	s, _ := json.Marshal(data)
	b = append(b, s...)
	b = append(b, "]\n"...)
	if _, err := r.f.Write(b); err != nil {
		r.err = err
	}
}

// recordPath is where a recording started with the key goes: the --record
// file the first time, then a new file named by the time beside it (or in
// the working directory).
func (m *Model) recordPath() string {
	if m.recordTo != "" && !m.recordUsed {
		return m.recordTo
	}
	dir := "."
	if m.recordTo != "" {
		dir = filepath.Dir(m.recordTo)
	}
	return filepath.Join(dir, "agentgrid-"+m.now().UTC().Format("20060102-150405")+".cast")
}

// toggleRecording starts or stops the recording (prefix R).
func (m *Model) toggleRecording() tea.Cmd {
	if m.rec.active() {
		path, err := m.rec.end()
		m.refreshInput()
		if err != nil {
			return m.flash(fmt.Sprintf("recording %s failed: %v", path, err))
		}
		return m.flash("recorded " + path)
	}
	return m.startRecording()
}

// startRecording starts a recording at the terminal's size; the next frame
// repaints every cell, so the recording starts from a whole screen.
func (m *Model) startRecording() tea.Cmd {
	path := m.recordPath()
	m.recordUsed = true
	if err := m.rec.begin(path, m.width, m.height); err != nil {
		return m.flash(err.Error() + "; try another --record path")
	}
	m.refreshInput()
	return tea.Batch(tea.ClearScreen, m.flash("recording to "+path+" · prefix R stops"))
}

// recordMarkers marks agents' starts, waits and ends in the recording;
// it compares with the states of the last frame, so it runs before
// waitingTransitions moves them on.
func (m *Model) recordMarkers() {
	if !m.rec.active() {
		return
	}
	mark := func(a *control.AgentInfo) {
		prev, had := m.prevStates[a.ID]
		if had && prev == a.State {
			return
		}
		var what string
		switch a.State {
		case agentstate.Running:
			if had && prev != agentstate.Pending && prev != agentstate.Starting {
				return
			}
			what = "started"
		case agentstate.Waiting:
			what = "waiting"
		case agentstate.Done, agentstate.Failed, agentstate.Killed:
			what = string(a.State)
		default:
			return
		}
		m.rec.marker(a.ID + " " + a.Title + ": " + what)
	}
	if m.snap.Main != nil {
		mark(&m.snap.Main.Agent)
	}
	for i := range m.snap.Agents {
		mark(&m.snap.Agents[i])
	}
}

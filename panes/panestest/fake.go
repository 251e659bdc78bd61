// Package panestest provides a fake panes.Spawner for tests that need to
// inject faults (a start that fails, a process that exits at once, one that
// never exits, one that never reads its input) without real processes.
package panestest

import (
	"bytes"
	"io"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/agentgrid/agentgrid/panes"
)

var nextPid atomic.Int64

func init() { nextPid.Store(1 << 22) }

// Spawner is a fake panes.Spawner recording every start.
type Spawner struct {
	// Fail, when set, is asked before every start; a non-nil error fails it.
	Fail func(spec panes.StartSpec) error
	// Behave, when set, configures each new Proc before Start returns it.
	Behave func(p *Proc)

	mu    sync.Mutex
	procs []*Proc
	specs []panes.StartSpec
}

// Start records spec and returns a new fake process, or the injected error.
func (s *Spawner) Start(spec panes.StartSpec) (panes.Proc, error) {
	s.mu.Lock()
	s.specs = append(s.specs, spec)
	s.mu.Unlock()
	if s.Fail != nil {
		if err := s.Fail(spec); err != nil {
			return nil, err
		}
	}
	p := NewProc(spec)
	if s.Behave != nil {
		s.Behave(p)
	}
	s.mu.Lock()
	s.procs = append(s.procs, p)
	s.mu.Unlock()
	return p, nil
}

// Procs returns the processes started so far, in start order.
func (s *Spawner) Procs() []*Proc {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*Proc(nil), s.procs...)
}

// Specs returns every spec Start was called with, failed ones included.
func (s *Spawner) Specs() []panes.StartSpec {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]panes.StartSpec(nil), s.specs...)
}

// Proc is a fake process: the test writes its output with Output and ends
// it with Exit; signals end it unless ignored.
type Proc struct {
	Spec panes.StartSpec

	outR *io.PipeReader
	outW *io.PipeWriter
	pid  int

	mu      sync.Mutex
	ignore  map[syscall.Signal]bool
	stall   bool
	input   bytes.Buffer
	writes  []string
	signals []syscall.Signal
	cols    int
	rows    int
	closed  chan struct{}
	cOnce   sync.Once
	exited  chan struct{}
	eOnce   sync.Once
	code    int
}

// NewProc returns a running fake process for spec.
func NewProc(spec panes.StartSpec) *Proc {
	r, w := io.Pipe()
	return &Proc{
		Spec: spec, outR: r, outW: w, pid: int(nextPid.Add(1)),
		ignore: map[syscall.Signal]bool{}, cols: spec.Cols, rows: spec.Rows,
		closed: make(chan struct{}), exited: make(chan struct{}),
	}
}

// Ignore makes the process survive the given signals (SIGKILL included, to
// model a process stuck in the kernel).
func (p *Proc) Ignore(sigs ...syscall.Signal) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, s := range sigs {
		p.ignore[s] = true
	}
}

// StallInput makes Write block until the PTY is closed, like a child that
// never reads its stdin.
func (p *Proc) StallInput() {
	p.mu.Lock()
	p.stall = true
	p.mu.Unlock()
}

// Output makes the process print s; it blocks until the pane read it.
func (p *Proc) Output(s string) {
	_, _ = p.outW.Write([]byte(s))
}

// Exit ends the process with code; later calls do nothing.
func (p *Proc) Exit(code int) {
	p.eOnce.Do(func() {
		p.mu.Lock()
		p.code = code
		p.mu.Unlock()
		_ = p.outW.Close()
		close(p.exited)
	})
}

// Exited is closed when the process has exited.
func (p *Proc) Exited() <-chan struct{} { return p.exited }

// Input returns everything written to the process so far.
func (p *Proc) Input() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.input.String()
}

// Signals returns the signals sent so far.
func (p *Proc) Signals() []syscall.Signal {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]syscall.Signal(nil), p.signals...)
}

// Size is the current PTY size.
func (p *Proc) Size() (cols, rows int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cols, p.rows
}

// Read returns the process's output.
func (p *Proc) Read(b []byte) (int, error) { return p.outR.Read(b) }

// Write records input, or blocks until Close when input is stalled.
func (p *Proc) Write(b []byte) (int, error) {
	p.mu.Lock()
	stall := p.stall
	p.mu.Unlock()
	if stall {
		<-p.closed
		return 0, io.ErrClosedPipe
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.writes = append(p.writes, string(b))
	return p.input.Write(b)
}

// Writes returns the input as the writes that brought it, one string each.
func (p *Proc) Writes() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.writes...)
}

// Resize records the new size.
func (p *Proc) Resize(cols, rows int) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cols, p.rows = cols, rows
	return nil
}

// Signal records sig and ends the process with 128+sig unless ignored;
// SIGCONT never ends it.
func (p *Proc) Signal(sig syscall.Signal) error {
	p.mu.Lock()
	p.signals = append(p.signals, sig)
	ignored := p.ignore[sig] || sig == syscall.SIGCONT
	p.mu.Unlock()
	if !ignored {
		p.Exit(128 + int(sig))
	}
	return nil
}

// Wait blocks until the process exited.
func (p *Proc) Wait() (int, error) {
	<-p.exited
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.code, nil
}

// Pid is a fake, unique process id.
func (p *Proc) Pid() int { return p.pid }

// Close closes the fake PTY.
func (p *Proc) Close() error {
	p.cOnce.Do(func() {
		close(p.closed)
		_ = p.outR.CloseWithError(io.ErrClosedPipe)
	})
	return nil
}

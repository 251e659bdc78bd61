// Package orchestrator is agentgrid's engine: the agent registry and its
// lifecycle, the Query -> Decide -> Execute -> Update reconciler, the
// deferred-spawn queue, concurrency limits, and who may do what to which
// agent. Package control serves it on the session's socket.
package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentgrid/agentgrid/config"
	"github.com/agentgrid/agentgrid/hooks"
	"github.com/agentgrid/agentgrid/internal/control"
	"github.com/agentgrid/agentgrid/internal/policy"
	"github.com/agentgrid/agentgrid/panes"
)

// cmdTimeout bounds how long a public method waits for the reconciler.
const cmdTimeout = 10 * time.Second

// hookFailureTTL is how long a failed hook handler stays in the status line.
const hookFailureTTL = 10 * time.Second

var (
	errNotRunning = errors.New("the engine is not running")
	errShutDown   = errors.New("the session is shutting down")
)

// Engine owns every agent of a session. One reconciler goroutine owns the
// registry; public methods send it commands and wait for the answer.
type Engine struct {
	cfg     config.Config
	opts    Options
	log     *slog.Logger
	clock   Clock
	now     func() time.Time
	spawner panes.Spawner
	bus     *hooks.Bus
	status  *hooks.StatusStore
	baseEnv []string
	cwd     string
	auth    *authority
	pol     *policy.Engine
	turns   turnBoard
	loops   loopBoard
	notices noticeBoard
	rewakes rewakeBoard
	tmuxOn  bool // the tmux entry point is on every child's PATH (tmuxenv.go)
	// paneReqs are the notifications and clipboard writes of panes'
	// programs, for the UIs to forward.
	paneReqs paneRequests

	cmds    chan command
	board   signalBoard // pane signals waiting for the reconciler
	quit    chan struct{}
	loopEnd chan struct{}
	running atomic.Bool

	// early is a size given before Start: the main view and the startup
	// agents start at it, not at the offscreen size and resized a moment
	// later (a quick startup command then kept an 80x24 screen).
	early struct {
		sync.Mutex
		started    bool
		cols, rows int
	}

	changed      chan struct{}
	focusChanged chan struct{} // poked when the focused pane prints
	awaited      chan struct{} // poked on a first output and on a keystroke's echo
	news         chan struct{} // poked when a snapshot shows an agent's new state or a hook's status
	snap         atomic.Pointer[Snapshot]
	// terms maps an agent's id to its terminal once it has one (written
	// by the reconciler wherever it sets agent.term), so a capture reads
	// it without a turn of the reconciler, which may be busy with the very
	// output the capture waits for.
	terms sync.Map

	finMu sync.Mutex
	finCh chan struct{} // closed and replaced whenever an agent finishes

	killWG       sync.WaitGroup // Kill calls in flight
	startOnce    sync.Once
	shutdownOnce sync.Once
	shutdownErr  error
	server       *control.Server
	runner       *hooks.Runner
	detachRunner func()

	st reconcilerState // owned by the reconciler goroutine
}

// reconcilerState is everything only the reconciler goroutine touches.
type reconcilerState struct {
	agents     map[string]*agent
	order      []*agent // creation order, main excluded
	main       *agent
	seq        int
	queue      *deferredQueue
	visible    []string
	limits     *limiter
	cols, rows int
	layoutName string
	// mainSize, when not 0, replaces [layout] main_size: set by a tool's
	// tmux resize-pane with [tmux] follow_layout.
	mainSize    int
	zoom        string // "", MainID or an agent id
	focus       string
	show        string   // an agent asked to be shown, for the next pass
	closes      []string // agents the user closed, for the next pass
	capacity    int
	tooSmall    bool
	linger      Timer
	lingerAt    time.Time
	closing     bool
	dirty       bool // the snapshot is out of date
	waitSeq     uint64
	lastWaiting string
	finished    bool // an agent finished since the last snapshot (wakes Wait)
	news        bool // an agent's state, reason or hook status changed since the last snapshot

	tmux tmuxState // what tmux commands remember (tmux.go)
}

type command struct {
	fn   func()
	done chan struct{}
}

// New checks the configuration and prepares an engine; Start runs it.
func New(cfg config.Config, o Options) (*Engine, error) {
	if o.Spawner == nil {
		o.Spawner = panes.PTYSpawner{}
	}
	if o.Clock == nil {
		o.Clock = wallClock{}
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Env == nil {
		o.Env = os.Environ()
	}
	if o.Session == "" {
		o.Session = control.DefaultSessionName()
	}
	if err := control.CheckSessionName(o.Session); err != nil {
		return nil, err
	}
	if o.StateDir != "" {
		if err := os.MkdirAll(o.StateDir, 0o700); err != nil {
			return nil, fmt.Errorf("create the session directory %s: %w", o.StateDir, err)
		}
	}
	cwd, err := os.Getwd()
	if err != nil {
		cwd = "/"
	}
	e := &Engine{
		cfg: cfg, opts: o, log: o.Logger, clock: o.Clock, now: o.Clock.Now, spawner: o.Spawner,
		bus: hooks.NewBus(), status: hooks.NewStatusStore(o.Clock.Now), cwd: cwd, auth: newAuthority(),
		pol:  policy.New(policyRules(cfg)),
		cmds: make(chan command), quit: make(chan struct{}), loopEnd: make(chan struct{}),
		changed: make(chan struct{}, 1), focusChanged: make(chan struct{}, 1), awaited: make(chan struct{}, 1), news: make(chan struct{}, 1), finCh: make(chan struct{}),
	}
	e.board.wake = make(chan struct{}, 1)
	e.pol.SetLive(e.liveAgent)
	e.baseEnv = e.withTmuxShim(childBaseEnv(o.Env, o.Session, o.SocketPath))
	e.bus.SetLogger(o.Logger)
	e.status.SetStaleAfter(cfg.Status.StaleAfter.Duration)
	e.status.SetOnChange(func(s hooks.StatusEntry) {
		s2 := s
		e.bus.Publish(hooks.Event{Type: hooks.EventStatusChanged, Time: e.now(), Session: o.Session, Status: &s2})
		e.poke()
	})
	name := cfg.Layout.Name
	if name == "" {
		name = "main-vertical"
	}
	e.st = reconcilerState{
		agents: map[string]*agent{}, queue: newDeferredQueue(cfg.Agents.MaxQueued),
		limits: newLimiter(cfg.Limits), layoutName: name, focus: control.MainID,
	}
	e.snap.Store(&Snapshot{Layout: name, Focus: control.MainID, TooSmall: true})
	return e, nil
}

// Start runs the reconciler, starts the control socket, the configured hook
// handlers, the orchestrator (mainArgv, in the main view; none when empty)
// and the startup agents. The engine runs until Shutdown, not until ctx
// ends: ctx only aborts a start that has not begun.
func (e *Engine) Start(ctx context.Context, mainArgv []string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("start the session: %w", err)
	}
	var err error
	started := false
	e.startOnce.Do(func() {
		started = true
		e.running.Store(true)
		go e.loop()
		if cols, rows := e.takeEarlySize(); cols > 0 || rows > 0 {
			_ = e.do(func() {
				e.st.cols, e.st.rows = cols, rows
				e.reconcile()
				e.publish()
			})
		}
		if len(e.cfg.Hooks) > 0 {
			// The user's own [[hooks]] handlers act for the user: full control.
			env := append(slices.Clone(e.opts.Env), control.EnvToken+"="+e.auth.add(newToken(), &principal{full: true}))
			e.runner = hooks.NewRunner(hooks.RunnerOptions{
				Hooks: e.cfg.Hooks, Session: e.opts.Session, Socket: e.opts.SocketPath, Env: env,
				SetStatus: func(key, text, agent, source string, ttl time.Duration) {
					e.status.Set(key, text, agent, source, ttl)
				},
				// A failing handler shows in the status line for a while.
				OnFailure: func(f hooks.HookFailure) {
					e.status.Set("hook-failure", f.Message(), f.Agent, "engine", hookFailureTTL)
				},
				Logger: e.log,
			})
			e.detachRunner = e.runner.Attach(e.bus)
		}
		if e.opts.SocketPath != "" {
			srv, serr := control.StartServer(e.opts.SocketPath, e, control.ServerOptions{Session: e.opts.Session, Version: e.opts.Version, Logger: e.log, Buffers: e.opts.Buffers, Attach: e.opts.Attach})
			if serr != nil {
				err = serr
				return
			}
			e.server = srv
		}
		if len(mainArgv) > 0 {
			if merr := e.do(func() { e.startMain(mainArgv) }); merr != nil {
				err = merr
				return
			}
		}
		e.bus.Publish(hooks.Event{Type: hooks.EventSessionStart, Time: e.now(), Session: e.opts.Session})
		for _, s := range e.cfg.Startup {
			req := control.SpawnRequest{Title: s.Title, Cwd: s.Cwd, Kind: s.Kind, Category: s.Category, Prompt: s.Prompt, Argv: s.Command, Env: s.Env}
			if _, serr := e.Spawn(req); serr != nil {
				e.log.Warn("a startup agent could not be spawned", "title", s.Title, "err", serr)
			}
		}
	})
	if !started {
		return errors.New("the engine was already started")
	}
	return err
}

// takeEarlySize returns the size given before Start; from now on Resize
// goes to the reconciler.
func (e *Engine) takeEarlySize() (cols, rows int) {
	e.early.Lock()
	defer e.early.Unlock()
	e.early.started = true
	return e.early.cols, e.early.rows
}

// loop is the reconciler goroutine.
func (e *Engine) loop() {
	defer close(e.loopEnd)
	for {
		select {
		case c := <-e.cmds:
			c.fn()
			close(c.done)
		case <-e.board.wake:
			e.drainSignals()
		case <-e.quit:
			return
		}
	}
}

// do runs fn on the reconciler goroutine and waits for it, bounded by
// cmdTimeout so that no caller can hang on a stuck engine.
func (e *Engine) do(fn func()) error {
	if !e.running.Load() {
		return errNotRunning
	}
	c := command{fn: fn, done: make(chan struct{})}
	t := time.NewTimer(cmdTimeout)
	defer t.Stop()
	select {
	case e.cmds <- c:
	case <-e.loopEnd:
		return errShutDown
	case <-t.C:
		return fmt.Errorf("the engine did not answer within %s", cmdTimeout)
	}
	select {
	case <-c.done:
		return nil
	case <-t.C:
		return fmt.Errorf("the engine did not answer within %s", cmdTimeout)
	}
}

// poke tells the UI that something changed, without blocking.
func (e *Engine) poke() {
	select {
	case e.changed <- struct{}{}:
	default:
	}
}

// broadcastFinish wakes every Wait.
func (e *Engine) broadcastFinish() {
	e.finMu.Lock()
	close(e.finCh)
	e.finCh = make(chan struct{})
	e.finMu.Unlock()
}

func (e *Engine) finishChan() <-chan struct{} {
	e.finMu.Lock()
	defer e.finMu.Unlock()
	return e.finCh
}

// Shutdown kills every process group in parallel (SIGHUP, SIGTERM, SIGKILL
// with the configured grace), closes the socket and stops the engine. It is
// bounded by ctx and by the grace sequence, and safe to call more than once.
func (e *Engine) Shutdown(ctx context.Context) error {
	e.shutdownOnce.Do(func() { e.shutdownErr = e.shutdown(ctx) })
	return e.shutdownErr
}

func (e *Engine) shutdown(ctx context.Context) error {
	grace := e.grace()
	limit := 2*grace + 6*time.Second
	if dl, ok := ctx.Deadline(); ok {
		limit = min(limit, time.Until(dl))
	}
	if e.server != nil {
		_ = e.server.Close()
	}
	var toKill []*panes.Pane
	if err := e.do(func() {
		e.st.closing = true
		for _, a := range e.allAgents() {
			if a.pane != nil && !a.f.State.Finished() {
				if a.killWhy == "" {
					a.killWhy = "session ended"
				}
				toKill = append(toKill, a.pane)
			} else if a.pane == nil && !a.f.State.Finished() {
				a.ended = e.now()
				e.apply(a, evidence{Kind: evExited, Time: a.ended, Killed: true, Why: "session ended before it started"})
			}
		}
		e.bus.Publish(hooks.Event{Type: hooks.EventSessionEnd, Time: e.now(), Session: e.opts.Session})
		e.publish()
	}); err != nil && !errors.Is(err, errNotRunning) {
		e.log.Warn("shutdown could not reach the engine", "err", err)
	}
	var wg sync.WaitGroup
	for _, p := range toKill {
		wg.Add(1)
		go func() { defer wg.Done(); p.Kill(grace) }()
	}
	all := make(chan struct{})
	go func() { wg.Wait(); e.killWG.Wait(); close(all) }()
	var err error
	t := time.NewTimer(limit)
	select {
	case <-all:
		t.Stop()
	case <-t.C:
		err = fmt.Errorf("some agents did not exit within %s of the shutdown", limit.Round(time.Millisecond))
	case <-ctx.Done():
		err = fmt.Errorf("shutdown interrupted before every agent exited: %w", ctx.Err())
	}
	// Let the reconciler record the exits that just happened, then stop
	// every timer so nothing fires into a stopped engine.
	_ = e.do(func() {
		e.drainSignals()
		for _, a := range e.allAgents() {
			if a.idleTimer != nil {
				a.idleTimer.Stop()
			}
			if a.throttle != nil {
				a.throttle.Stop()
			}
		}
		if e.st.linger != nil {
			e.st.linger.Stop()
		}
		e.publish()
	})
	if e.detachRunner != nil {
		e.detachRunner()
		rctx, cancel := context.WithTimeout(context.Background(), time.Second)
		e.runner.Close(rctx)
		cancel()
	}
	if e.running.Load() {
		close(e.quit)
		<-e.loopEnd
	}
	e.bus.Close()
	e.poke()
	return err
}

// grace is the wait between kill signals. Validate bounds kill_grace; the
// clamp keeps an engine built from an unchecked config from overflowing
// the shutdown's 2*grace deadline into the past.
func (e *Engine) grace() time.Duration {
	g := e.cfg.Agents.KillGrace.Duration
	if g <= 0 {
		g = 2 * time.Second
	}
	return min(g, config.MaxKillGrace)
}

// The engine is what the control socket serves, and it tells callers apart.
var (
	_ control.Backend    = (*Engine)(nil)
	_ control.Authorizer = (*Engine)(nil)
)

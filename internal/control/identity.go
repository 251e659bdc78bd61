package control

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentgrid/agentgrid/config"
)

// Who may do what is the session's decision (the engine's registry knows
// which agent started which); this package carries the caller's identity to
// it and asks it, per request, before any method runs.
//
// A client inside the session sends its secret ($AGENTGRID_TOKEN) in the
// request's "token" member; the server passes it, with the process at the
// other end of the connection (see Peer), to the backend's Authorizer, and
// each method then asks the returned Caller whether it may act on the agent
// it names.

// EnvToken is the environment variable that carries an agent's secret.
const EnvToken = "AGENTGRID_TOKEN"

// EnvTokenFile names a file holding the secret, for programs that an agent
// CLI starts with a filtered environment (its MCP server): the secret then
// stays out of command lines and generated settings. Each agent CLI's wiring
// (internal/agentcli) writes it; orchestrator.TestTokenStaysOutOfCommandLines
// checks that the client reads the file the wiring names.
const EnvTokenFile = "AGENTGRID_TOKEN_FILE"

// What a caller may be granted, per [kinds.NAME] grants (the names are
// config's): each names what the methods beside it need when the target is
// not the caller itself or an agent it started.
const (
	GrantRead   = config.GrantRead   // agent.get, agent.capture, agent.explain, agent.list
	GrantWait   = config.GrantWait   // agent.wait
	GrantSend   = config.GrantSend   // agent.send
	GrantClose  = config.GrantClose  // agent.close
	GrantSignal = config.GrantSignal // agent.signal, status.set for an agent
)

// Identity is what the server knows of who sent a request.
type Identity struct {
	// Token is the request's "token" member; "" when it has none.
	Token string
	// Peer is the process that opened the connection; nil when the server
	// does not know it.
	Peer *Peer
}

// Caller is who sent a request, as the backend's Authorizer identified it.
type Caller interface {
	// Agent is the calling agent's id (MainID for the main view), or ""
	// when the caller is not an agent.
	Agent() string
	// Full reports whether the caller may do anything.
	Full() bool
	// May returns nil when the caller may do act (a Grant*) to the agent
	// target, and otherwise an error that says what is refused and how to
	// allow it.
	May(act, target string) error
	// MayStatus checks a status.set of key, scoped to agent ("" for the
	// session).
	MayStatus(key, agent string) error
}

// Authorizer is what a Backend implements to tell callers apart. Without it
// every caller has full control.
type Authorizer interface {
	// Authorize maps a request's identity to its caller, or refuses the
	// request with an error that says why and what to do.
	Authorize(id Identity) (Caller, error)
	// IsAgentSession reports whether sid is the session id of one of the
	// agents' processes (each agent leads its own session); a peer sitting
	// in one is inside the session.
	IsAgentSession(sid int) bool
}

// FullControl is the caller who may do anything: the user's own shell, or
// every caller of a backend that does not tell callers apart.
var FullControl Caller = fullControl{}

type fullControl struct{}

func (fullControl) Agent() string                  { return "" }
func (fullControl) Full() bool                     { return true }
func (fullControl) May(string, string) error       { return nil }
func (fullControl) MayStatus(string, string) error { return nil }

type callerKey struct{}

func withCaller(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// callerFrom is the caller of the request being handled; full control when
// none was recorded.
func callerFrom(ctx context.Context) Caller {
	if c, ok := ctx.Value(callerKey{}).(Caller); ok && c != nil {
		return c
	}
	return FullControl
}

// TokenFromEnv is the caller's secret: AGENTGRID_TOKEN, or the content of
// the file AGENTGRID_TOKEN_FILE names. "" when neither is set.
func TokenFromEnv() string {
	if t := os.Getenv(EnvToken); t != "" {
		return t
	}
	if f := os.Getenv(EnvTokenFile); f != "" {
		if b, err := os.ReadFile(f); err == nil {
			return strings.TrimSpace(string(b))
		}
	}
	return ""
}

// sameSocket reports whether a and b name the same socket file, so that a
// client sends its session's secret to that session only.
func sameSocket(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}

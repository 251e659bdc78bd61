// Package modelserver is a model server on 127.0.0.1 for the live suite: it
// speaks the HTTP APIs the agent CLIs call (Anthropic Messages, OpenAI chat
// completions and Responses, Gemini generateContent) and answers from a
// script instead of a model, so a real turn of a real CLI — prompt, tool
// call, permission prompt, answer — runs with no credentials and no network.
//
// The script is driven by the prompt: a user message containing
//
//	CALL <tool> <json arguments>
//
// is answered with a call of the first offered tool whose name ends with
// <tool>; a message containing `FAIL <status>` is answered with that HTTP
// error; once a tool result comes back the turn ends with a text naming it.
// Anything else gets a one-line text answer.
package modelserver

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Request is what the server saw of one model request.
type Request struct {
	API    string // "anthropic", "openai-chat", "openai-responses", "gemini"
	Path   string
	Stream bool
	// Tools are the names of the tools the CLI offered.
	Tools []string
	// LastUser is the text of the last user message; ToolResult is set when
	// that message carries a tool result instead.
	LastUser   string
	ToolResult bool
	Body       []byte
}

// Reply is the script's answer to one request.
type Reply struct {
	Text     string
	ToolName string
	ToolArgs json.RawMessage
	// Status, when not 0, is an HTTP error returned instead.
	Status int
}

// Server is a running model server.
type Server struct {
	URL string

	srv *http.Server
	mu  sync.Mutex
	log []Request
	seq int
	dir string // where request bodies are recorded, when set
}

// Start listens on 127.0.0.1 on a free port. Request bodies are written to
// recordDir (when not empty) as NNN-<api>.json, to turn into fixtures.
func Start(recordDir string) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listen on 127.0.0.1: %w", err)
	}
	s := &Server{URL: "http://" + ln.Addr().String(), dir: recordDir}
	mux := http.NewServeMux()
	mux.HandleFunc("/", s.route)
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// Close stops the server.
func (s *Server) Close() error { return s.srv.Close() }

// Requests returns the model requests seen so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.log...)
}

func (s *Server) record(r Request) {
	s.mu.Lock()
	s.log = append(s.log, r)
	s.seq++
	n := s.seq
	s.mu.Unlock()
	if s.dir != "" {
		_ = os.MkdirAll(s.dir, 0o700)
		_ = os.WriteFile(filepath.Join(s.dir, fmt.Sprintf("%03d-%s.json", n, r.API)), r.Body, 0o600)
	}
}

// answer records req and returns the script's reply to it; false when the
// reply is a scripted failure, which it has written.
func (s *Server) answer(w http.ResponseWriter, req Request) (Reply, bool) {
	s.record(req)
	rep := Answer(req)
	if rep.Status != 0 {
		writeError(w, rep.Status, "scripted failure")
		return rep, false
	}
	return rep, true
}

func (s *Server) route(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if err != nil {
		http.Error(w, "read body", http.StatusBadRequest)
		return
	}
	p := r.URL.Path
	switch {
	case strings.HasSuffix(p, "/messages/count_tokens"):
		writeJSON(w, map[string]any{"input_tokens": 100})
	case strings.HasSuffix(p, "/messages"):
		s.anthropic(w, body, p)
	case strings.HasSuffix(p, "/responses"):
		s.openaiResponses(w, body, p)
	case strings.Contains(p, "/models/") && strings.Contains(p, ":"):
		s.gemini(w, r, body)
	case strings.HasSuffix(p, "/models"):
		writeJSON(w, map[string]any{"object": "list", "data": []any{map[string]any{"id": "live-model", "object": "model"}}})
	default:
		// Telemetry, update checks and the like: an empty success.
		writeJSON(w, map[string]any{})
	}
}

var (
	callRE = regexp.MustCompile(`CALL (\S+)(?: (\{.*\}))?`)
	failRE = regexp.MustCompile(`FAIL (\d{3})`)
)

// Answer is the script: what to reply to req.
func Answer(req Request) Reply {
	if req.ToolResult {
		return Reply{Text: "LIVE-DONE: the tool finished."}
	}
	if m := failRE.FindStringSubmatch(req.LastUser); m != nil && len(req.Tools) > 0 {
		n, _ := strconv.Atoi(m[1])
		return Reply{Status: n}
	}
	if m := callRE.FindStringSubmatch(req.LastUser); m != nil && len(req.Tools) > 0 {
		for _, t := range req.Tools {
			if strings.HasSuffix(t, m[1]) {
				args := json.RawMessage(m[2])
				if len(args) == 0 {
					args = json.RawMessage(`{}`)
				}
				return Reply{ToolName: t, ToolArgs: args}
			}
		}
		return Reply{Text: "LIVE-NO-TOOL: no offered tool ends with " + m[1]}
	}
	if len(req.Tools) == 0 {
		// A side request (a title, a summary, a quota check).
		return Reply{Text: "Live session"}
	}
	return Reply{Text: "LIVE-REPLY: " + firstLine(req.LastUser)}
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 80 {
		s = s[:80]
	}
	return s
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{
		"type":  "error",
		"error": map[string]any{"type": "invalid_request_error", "message": msg, "code": status, "status": "INVALID_ARGUMENT"},
	})
}

// sse writes server-sent events, flushing each.
type sse struct {
	w http.ResponseWriter
	f http.Flusher
}

func newSSE(w http.ResponseWriter) *sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	f, _ := w.(http.Flusher)
	return &sse{w: w, f: f}
}

func (s *sse) event(name string, v any) {
	b, _ := json.Marshal(v)
	if name != "" {
		fmt.Fprintf(s.w, "event: %s\n", name)
	}
	fmt.Fprintf(s.w, "data: %s\n\n", b)
	if s.f != nil {
		s.f.Flush()
	}
}

func (s *Server) nextID(prefix string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return fmt.Sprintf("%s_live%04d", prefix, len(s.log))
}

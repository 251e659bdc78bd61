package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/agentgrid/agentgrid/internal/control"
)

// The MCP protocol versions the server speaks, newest first. A client
// asking for another one gets the newest, and decides whether it can
// go on (the protocol's version negotiation).
var protocolVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// server is agentgrid's MCP server: the tools, and the few methods of the
// protocol that serve them (initialize, ping, tools/list, tools/call,
// notifications/cancelled), over stdio. It is agentgrid's own rather than
// an SDK's: `agentgrid mcp` is one command of the binary every hook call
// and tmux command starts, and an SDK's packages made each of those
// starts slower by their initialisation and size.
type server struct {
	tools  []*tool // by name
	byName map[string]*tool
}

// tool is one MCP tool as tools/list shows it, with the schema its
// arguments are checked against and the call that serves it.
type tool struct {
	Name        string           `json:"name"`
	Description string           `json:"description"`
	InputSchema json.RawMessage  `json:"inputSchema"`
	Annotations *toolAnnotations `json:"annotations,omitempty"`

	schema *schema
	call   func(ctx context.Context, args json.RawMessage) (any, error)
}

// toolAnnotations are the hints about a tool the MCP client may show or
// act on (asking before a destructive one, say).
type toolAnnotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    bool   `json:"readOnlyHint"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  bool   `json:"idempotentHint"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
}

// textResult is a tools/call result: the answer as text, which every MCP
// client can show its model, and whether it is an error.
type textResult struct {
	Content []textContent `json:"content"`
	IsError bool          `json:"isError,omitempty"`
}

type textContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// add adds t, keeping the tools in name order.
func (s *server) add(t *tool) {
	if s.byName == nil {
		s.byName = map[string]*tool{}
	}
	s.byName[t.Name] = t
	i, _ := slices.BinarySearchFunc(s.tools, t.Name, func(a *tool, name string) int { return strings.Compare(a.Name, name) })
	s.tools = slices.Insert(s.tools, i, t)
}

// remove takes the tools named off the list.
func (s *server) remove(names ...string) {
	for _, n := range names {
		delete(s.byName, n)
	}
	s.tools = slices.DeleteFunc(s.tools, func(t *tool) bool { return s.byName[t.Name] != t })
}

// serve answers c's requests until its input ends (nil) or ctx does. Each
// request runs on its own (wait_agent may block for most of a minute),
// and notifications/cancelled ends the one it names. listed, when set,
// runs once the first answer to tools/list is written.
func (s *server) serve(ctx context.Context, c *lineConn, listed func()) error {
	ctx, cancel := context.WithCancel(ctx)
	var (
		wg         sync.WaitGroup
		mu         sync.Mutex
		inflight   = map[string]context.CancelFunc{}
		listedOnce sync.Once
	)
	defer wg.Wait()
	defer cancel()
	defer c.Close()
	for {
		msg, err := c.next(ctx)
		if err != nil {
			return err
		}
		if msg.ID == nil {
			if msg.Method == "notifications/cancelled" {
				var p struct {
					RequestID json.RawMessage `json:"requestId"`
				}
				if json.Unmarshal(msg.Params, &p) == nil {
					mu.Lock()
					if stop := inflight[string(p.RequestID)]; stop != nil {
						stop()
					}
					mu.Unlock()
				}
			}
			continue // initialized, and notifications the server has no use for
		}
		id := string(msg.ID)
		rctx, rcancel := context.WithCancel(ctx)
		mu.Lock()
		inflight[id] = rcancel
		mu.Unlock()
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer rcancel()
			result, rerr := s.handle(rctx, msg)
			mu.Lock()
			delete(inflight, id)
			mu.Unlock()
			if c.reply(msg.ID, result, rerr) == nil && rerr == nil && msg.Method == "tools/list" && listed != nil {
				listedOnce.Do(listed)
			}
		}()
	}
}

// handle answers one request.
func (s *server) handle(ctx context.Context, msg *rpcMessage) (any, *control.RPCError) {
	switch msg.Method {
	case "initialize":
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		if err := json.Unmarshal(msg.Params, &p); err != nil {
			return nil, errorf(control.CodeInvalidParams, "invalid params: initialize needs its params object: %v", err)
		}
		version := protocolVersions[0]
		if slices.Contains(protocolVersions, p.ProtocolVersion) {
			version = p.ProtocolVersion
		}
		return map[string]any{
			"protocolVersion": version,
			"capabilities":    map[string]any{"tools": map[string]any{"listChanged": false}},
			"serverInfo":      map[string]any{"name": "agentgrid", "title": "agentgrid session", "version": "1.0.0"},
			"instructions":    mcpInstructions,
		}, nil
	case "ping", "logging/setLevel":
		return struct{}{}, nil
	case "tools/list":
		return map[string]any{"tools": s.tools}, nil
	case "resources/list":
		return map[string]any{"resources": []any{}}, nil
	case "resources/templates/list":
		return map[string]any{"resourceTemplates": []any{}}, nil
	case "prompts/list":
		return map[string]any{"prompts": []any{}}, nil
	case "tools/call":
		var p struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		}
		if err := json.Unmarshal(msg.Params, &p); err != nil {
			return nil, errorf(control.CodeInvalidParams, "invalid params: tools/call needs an object with the tool's name and arguments")
		}
		t := s.byName[p.Name]
		if t == nil {
			return nil, errorf(control.CodeInvalidParams, "unknown tool %q", p.Name)
		}
		return t.run(ctx, p.Arguments), nil
	}
	return nil, errorf(control.CodeMethodNotFound, "method not found: %q", msg.Method)
}

// run checks the arguments and calls the tool; what goes wrong, a panic
// included, is a tool error the model reads, never the end of the server.
func (t *tool) run(ctx context.Context, args json.RawMessage) (res textResult) {
	defer func() {
		if r := recover(); r != nil {
			res = errorResult(fmt.Errorf("internal error: %v", r))
		}
	}()
	if err := t.schema.checkArguments(args); err != nil {
		return errorResult(err)
	}
	v, err := t.call(ctx, args)
	if err != nil {
		return errorResult(err)
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return errorResult(fmt.Errorf("encode the result: %w", err))
	}
	return textResult{Content: []textContent{{Type: "text", Text: string(b)}}}
}

func errorResult(err error) textResult {
	return textResult{Content: []textContent{{Type: "text", Text: err.Error()}}, IsError: true}
}

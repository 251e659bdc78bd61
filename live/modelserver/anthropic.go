package modelserver

import (
	"encoding/json"
	"net/http"
)

// anthropic answers POST /v1/messages (Claude Code).
func (s *Server) anthropic(w http.ResponseWriter, body []byte, path string) {
	var in struct {
		Model  string `json:"model"`
		Stream bool   `json:"stream"`
		Tools  []struct {
			Name string `json:"name"`
		} `json:"tools"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		writeError(w, http.StatusBadRequest, "bad JSON: "+err.Error())
		return
	}
	req := Request{API: "anthropic", Path: path, Stream: in.Stream, Body: body}
	for _, t := range in.Tools {
		req.Tools = append(req.Tools, t.Name)
	}
	// The last user message; system messages may follow it.
	for i := len(in.Messages) - 1; i >= 0; i-- {
		if in.Messages[i].Role == "user" {
			req.LastUser, req.ToolResult = anthropicUser(in.Messages[i].Content)
			break
		}
		if in.Messages[i].Role == "assistant" {
			break
		}
	}
	rep, ok := s.answer(w, req)
	if !ok {
		return
	}
	id := s.nextID("msg")
	model := in.Model
	var block map[string]any
	stop := "end_turn"
	if rep.ToolName != "" {
		stop = "tool_use"
		block = map[string]any{"type": "tool_use", "id": s.nextID("toolu"), "name": rep.ToolName, "input": rep.ToolArgs}
	} else {
		block = map[string]any{"type": "text", "text": rep.Text}
	}
	usage := map[string]any{"input_tokens": 100, "output_tokens": 10, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
	if !in.Stream {
		writeJSON(w, map[string]any{
			"id": id, "type": "message", "role": "assistant", "model": model,
			"content": []any{block}, "stop_reason": stop, "stop_sequence": nil, "usage": usage,
		})
		return
	}
	e := newSSE(w)
	e.event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": usage,
	}})
	if rep.ToolName != "" {
		start := map[string]any{"type": "tool_use", "id": block["id"], "name": rep.ToolName, "input": map[string]any{}}
		e.event("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": start})
		e.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "input_json_delta", "partial_json": string(rep.ToolArgs)}})
	} else {
		e.event("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "text", "text": ""}})
		e.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "text_delta", "text": rep.Text}})
	}
	e.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	e.event("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 10}})
	e.event("message_stop", map[string]any{"type": "message_stop"})
}

// anthropicUser reads a user message's text, and whether it returns a tool result.
func anthropicUser(raw json.RawMessage) (text string, toolResult bool) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, false
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &blocks)
	for _, b := range blocks {
		switch b.Type {
		case "tool_result":
			toolResult = true
		case "text":
			text = b.Text // the last text block: system reminders come first
		}
	}
	return text, toolResult
}

package modelserver

import (
	"encoding/json"
	"net/http"
	"strings"
)

// gemini answers the Gemini API (Gemini CLI):
// POST /v1beta/models/<model>:generateContent, :streamGenerateContent
// (SSE with alt=sse) and :countTokens.
func (s *Server) gemini(w http.ResponseWriter, r *http.Request, body []byte) {
	path := r.URL.Path
	model, method, _ := strings.Cut(path[strings.LastIndex(path, "/")+1:], ":")
	if method == "countTokens" {
		writeJSON(w, map[string]any{"totalTokens": 100})
		return
	}
	var in struct {
		Contents []struct {
			Role  string `json:"role"`
			Parts []struct {
				Text             string          `json:"text"`
				FunctionResponse json.RawMessage `json:"functionResponse"`
			} `json:"parts"`
		} `json:"contents"`
		GenerationConfig struct {
			ResponseMimeType   string         `json:"responseMimeType"`
			ResponseJSONSchema map[string]any `json:"responseJsonSchema"`
			ResponseSchema     map[string]any `json:"responseSchema"`
		} `json:"generationConfig"`
		Tools []struct {
			FunctionDeclarations []struct {
				Name string `json:"name"`
			} `json:"functionDeclarations"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		writeError(w, http.StatusBadRequest, "bad JSON: "+err.Error())
		return
	}
	stream := method == "streamGenerateContent"
	req := Request{API: "gemini", Path: path, Stream: stream, Body: body}
	for _, t := range in.Tools {
		for _, f := range t.FunctionDeclarations {
			req.Tools = append(req.Tools, f.Name)
		}
	}
	// The last turn, when it is the user's: its text, or a tool result.
	if n := len(in.Contents); n > 0 && in.Contents[n-1].Role == "user" {
		for _, p := range in.Contents[n-1].Parts {
			if len(p.FunctionResponse) > 0 {
				req.ToolResult = true
			}
			if p.Text != "" {
				req.LastUser = p.Text // the last text part: context comes first
			}
		}
	}
	rep, ok := s.answer(w, req)
	if !ok {
		return
	}
	var part map[string]any
	if rep.ToolName != "" {
		var args map[string]any
		_ = json.Unmarshal(rep.ToolArgs, &args)
		part = map[string]any{"functionCall": map[string]any{"name": rep.ToolName, "args": args}}
	} else if g := in.GenerationConfig; g.ResponseMimeType == "application/json" {
		// A side request wanting JSON (the model router's classifier, a
		// next-speaker check): the smallest value its schema allows.
		schema := g.ResponseJSONSchema
		if schema == nil {
			schema = g.ResponseSchema
		}
		b, _ := json.Marshal(fillSchema(schema))
		part = map[string]any{"text": string(b)}
	} else {
		part = map[string]any{"text": rep.Text}
	}
	resp := map[string]any{
		"candidates": []any{map[string]any{
			"content": map[string]any{"role": "model", "parts": []any{part}}, "finishReason": "STOP", "index": 0,
		}},
		"usageMetadata": map[string]any{"promptTokenCount": 100, "candidatesTokenCount": 10, "totalTokenCount": 110},
		"modelVersion":  model,
		"responseId":    s.nextID("gem"),
	}
	if !stream {
		writeJSON(w, resp)
		return
	}
	newSSE(w).event("", resp)
}

// fillSchema builds a value for a JSON schema (Gemini's upper-case types or
// JSON Schema's lower-case ones): required properties only, each the
// simplest value of its type.
func fillSchema(schema map[string]any) any {
	typ, _ := schema["type"].(string)
	switch strings.ToLower(typ) {
	case "string":
		if enum, ok := schema["enum"].([]any); ok && len(enum) > 0 {
			return enum[0]
		}
		return "live"
	case "integer", "number":
		return 1
	case "boolean":
		return false
	case "array":
		return []any{}
	}
	obj := map[string]any{}
	props, _ := schema["properties"].(map[string]any)
	required, _ := schema["required"].([]any)
	for _, r := range required {
		name, _ := r.(string)
		if sub, ok := props[name].(map[string]any); ok {
			obj[name] = fillSchema(sub)
		}
	}
	return obj
}

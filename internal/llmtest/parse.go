package llmtest

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// wireRequest is the union of the chat and embedding request fields the
// server looks at.
type wireRequest struct {
	Model          string                 `json:"model"`
	Messages       []wireMessage          `json:"messages"`
	ResponseFormat *struct{ Type string } `json:"response_format"`
	MaxTokens      int                    `json:"max_tokens"`
	MaxCompletion  int                    `json:"max_completion_tokens"`
	Temperature    *float64               `json:"temperature"`
	Input          json.RawMessage        `json:"input"`
	EncodingFormat string                 `json:"encoding_format"`
}

// wireMessage accepts content as a string or as an array of text parts.
type wireMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// parseRequest decodes what it can; the error says why the request is
// invalid (answered with 400), but the request is recorded either way.
func parseRequest(r *http.Request, body []byte) (Request, error) {
	req := Request{Endpoint: r.URL.Path, Header: r.Header.Clone(), Body: body}
	if auth := r.Header.Get("Authorization"); strings.HasPrefix(auth, "Bearer ") {
		req.APIKey = strings.TrimPrefix(auth, "Bearer ")
	}
	var wr wireRequest
	if err := json.Unmarshal(body, &wr); err != nil {
		return req, fmt.Errorf("invalid JSON body: %v", err)
	}
	req.Model = wr.Model
	req.MaxTokens = max(wr.MaxTokens, wr.MaxCompletion)
	req.Temperature = wr.Temperature
	req.EncodingFormat = wr.EncodingFormat
	if wr.ResponseFormat != nil {
		req.ResponseFormat = wr.ResponseFormat.Type
	}
	if req.Model == "" {
		return req, errors.New("you must provide a model parameter")
	}
	if req.Endpoint == EndpointEmbeddings {
		in, err := parseInput(wr.Input)
		req.Input = in
		return req, err
	}
	for i, m := range wr.Messages {
		content, err := parseContent(m.Content)
		if err != nil {
			return req, fmt.Errorf("messages[%d].content: %v", i, err)
		}
		req.Messages = append(req.Messages, Message{Role: m.Role, Content: content})
	}
	if len(req.Messages) == 0 {
		return req, errors.New("messages: must not be empty")
	}
	return req, nil
}

func parseContent(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", errors.New("must be a string or an array of parts")
	}
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String(), nil
}

func parseInput(raw json.RawMessage) ([]string, error) {
	var one string
	if err := json.Unmarshal(raw, &one); err == nil {
		return []string{one}, nil
	}
	var many []string
	if err := json.Unmarshal(raw, &many); err != nil || len(many) == 0 {
		return nil, errors.New("input: must be a string or a non-empty array of strings")
	}
	return many, nil
}

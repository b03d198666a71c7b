package api

// Error is the JSON body of every error response.
type Error struct {
	Error string `json:"error"`
	Field string `json:"field,omitempty"`
	Code  string `json:"code"`
}

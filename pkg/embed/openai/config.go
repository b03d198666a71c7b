package openai

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/spf13/pflag"
)

// Defaults. OpenAI accepts up to 2048 inputs a request; 64 keeps a request
// small enough for local servers (Ollama, TEI) and a retry cheap. Three
// retries with the backoff below wait about 0.5 s, 2 s and 8 s (Nebo).
const (
	DefaultBatchSize  = 64
	DefaultTimeout    = 30 * time.Second
	DefaultMaxRetries = 3
	maxBatchSize      = 2048
)

// Config selects an OpenAI-compatible embeddings endpoint.
type Config struct {
	// URL is the API base ("https://api.openai.com/v1",
	// "http://localhost:11434/v1" for Ollama, "http://tei:8080/v1"); the
	// client posts to URL + "/embeddings". A URL already ending in
	// /embeddings is used as is. Empty means the built-in model is used.
	URL    string
	APIKey string
	Model  string
	// Dimensions, when set, is sent as the request's "dimensions" (models
	// that can shorten their vectors, e.g. text-embedding-3-*) and is the
	// width every response must have. Zero takes the model's own width from
	// its first answer.
	Dimensions int
	BatchSize  int
	Timeout    time.Duration
	MaxRetries int
}

// RegisterFlags registers the --<prefix>embed-* flags.
func (c *Config) RegisterFlags(prefix string, fs *pflag.FlagSet) {
	fs.StringVar(&c.URL, prefix+"embed-url", "",
		"base URL of an OpenAI-compatible embeddings API, e.g. https://api.openai.com/v1 or http://localhost:11434/v1 (Ollama); empty uses the built-in all-MiniLM-L6-v2")
	fs.StringVar(&c.APIKey, prefix+"embed-api-key", "", "bearer token for --embed-url (secret)")
	fs.StringVar(&c.Model, prefix+"embed-model", "", "embedding model served at --embed-url, e.g. text-embedding-3-small or nomic-embed-text")
	fs.IntVar(&c.Dimensions, prefix+"embed-dimensions", 0,
		"vector width to request from the model (for models that can shorten vectors); 0 uses the model's own width")
	fs.IntVar(&c.BatchSize, prefix+"embed-batch-size", DefaultBatchSize, "most texts in one embeddings request")
	fs.DurationVar(&c.Timeout, prefix+"embed-timeout", DefaultTimeout, "time limit of one embeddings request attempt")
	fs.IntVar(&c.MaxRetries, prefix+"embed-max-retries", DefaultMaxRetries,
		"retries of an embeddings request after a network error, 429 or 5xx, with exponential backoff")
}

// Enabled reports whether a remote endpoint is configured.
func (c *Config) Enabled() bool { return c.URL != "" }

// Validate checks the settings; an empty URL is valid (built-in model).
func (c *Config) Validate() error {
	if !c.Enabled() {
		return nil
	}
	var errs []error
	if _, err := endpoint(c.URL); err != nil {
		errs = append(errs, err)
	}
	if strings.TrimSpace(c.Model) == "" {
		errs = append(errs, errors.New("embed-model is required with embed-url"))
	}
	if c.Dimensions < 0 {
		errs = append(errs, fmt.Errorf("embed-dimensions %d: must not be negative", c.Dimensions))
	}
	if c.BatchSize < 1 || c.BatchSize > maxBatchSize {
		errs = append(errs, fmt.Errorf("embed-batch-size %d: must be between 1 and %d", c.BatchSize, maxBatchSize))
	}
	if c.Timeout <= 0 {
		errs = append(errs, fmt.Errorf("embed-timeout %s: must be positive", c.Timeout))
	}
	if c.MaxRetries < 0 {
		errs = append(errs, fmt.Errorf("embed-max-retries %d: must not be negative", c.MaxRetries))
	}
	return errors.Join(errs...)
}

// endpoint turns the configured base URL into the embeddings URL. Errors
// leave the URL out: it may carry credentials.
func endpoint(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err
		}
		return nil, fmt.Errorf("parse embed-url: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("embed-url: scheme %q, want http or https", u.Scheme)
	}
	if u.Host == "" {
		return nil, errors.New("embed-url: no host")
	}
	if !strings.HasSuffix(u.Path, "/embeddings") {
		u = u.JoinPath("embeddings")
	}
	return u, nil
}

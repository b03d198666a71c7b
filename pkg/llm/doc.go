// Package llm calls OpenAI-compatible chat APIs (OpenAI, Ollama, vLLM,
// llama.cpp) for the pipeline's model calls: a model per tier, ordered
// fallback providers, retries with backoff on transient failures, a
// per-tenant concurrency bound, a usage record per HTTP attempt and a span
// per call.
//
// Failure policy, per provider in order: network errors, timeouts, 408,
// 409, 429 (honouring Retry-After up to the backoff cap), 5xx and
// unreadable 2xx answers are retried up to MaxRetries times, then the next
// provider is tried; 401, 402, 403 and 404 (key, billing, model) skip to
// the next provider at once; 400, 413, 422 and other 4xx are the request's
// fault and are returned as *HTTPError without trying anyone else. When no
// provider is left the error is ErrUnavailable.
package llm

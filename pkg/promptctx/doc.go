// Package promptctx assembles what an agent's prompt should carry from
// memory: the context block of POST /v1/context and the session-recovery
// text of GET /v1/resume.
//
// The context block follows 004's activation under a token budget (800 by
// default), counted with a real BPE tokenizer (cl100k_base):
//
//   - baseline (layer A): policies, architecture and high-priority
//     preferences, always injected, highest priority first;
//   - contextual (layer B): the Recaller's results for the query, rescored
//     by type weight × 90-day half-life decay × reinforcement, rendered as
//     000's domain-grouped "## Recalled Context";
//   - procedures (layer C): the top 3 workflows and procedures that match
//     the task, proven ones (success_count > 0) first;
//   - directive: the subject's synthesised personality directive (001);
//   - known: 001's "## What You Know", decay-scored, confidence ≥ 0.65,
//     style observations capped.
//
// Layers are filled in that order and emptied in the reverse one: a line
// that does not fit is left out whole, never cut, and each memory appears
// at most once. When a file path is given, memories whose scope globs do not
// match it are left out and memories whose globs match it rank higher.
//
// Resume follows 003: Core, Recent, Topics and Triggers, each under its own
// share of the budget. Both are read-only: nothing here writes to the store,
// so neither touches access counts.
package promptctx

// The retry rule of the Go client: only idempotent calls, only on 429 and
// 503, after Retry-After (else a doubling backoff), at most `retries`
// times, never waiting longer than maxRetryWaitMs at once.

import { APIError, retryable } from "./errors.js";

export const FIRST_BACKOFF_MS = 500;

export interface RetryPolicy {
  retries: number;
  maxRetryWaitMs: number;
}

/** The wait in ms before resending after err on attempt (0-based), or
 * undefined to give up. */
export function retryWait(p: RetryPolicy, idempotent: boolean, err: APIError, attempt: number): number | undefined {
  if (!idempotent || attempt >= p.retries || !retryable(err.status)) return undefined;
  let wait = err.retryAfterMs;
  if (!wait) wait = Math.min(FIRST_BACKOFF_MS * 2 ** attempt, p.maxRetryWaitMs);
  if (wait > p.maxRetryWaitMs) return undefined;
  return wait;
}

/** Parses Retry-After: delay seconds or an HTTP date; milliseconds. */
export function parseRetryAfter(v: string | null, now: Date): number | undefined {
  v = (v ?? "").trim();
  if (!v) return undefined;
  if (/^-?\d+$/.test(v)) return Math.max(0, parseInt(v, 10) * 1000);
  const t = Date.parse(v);
  if (Number.isNaN(t)) return undefined;
  return Math.max(0, t - now.getTime());
}

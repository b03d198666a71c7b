// The retry rule on its own: backoff, Retry-After forms, what is resent.

import { test } from "node:test";
import assert from "node:assert/strict";

import { APIError, parseRetryAfter, retryWait, normalizeKey } from "../dist/index.js";

const err = (status, retryAfterMs) => new APIError({ method: "GET", path: "/v1/stats", status, retryAfterMs });

test("no Retry-After: a doubling backoff from 0.5 s, capped", () => {
  const p = { retries: 3, maxRetryWaitMs: 30_000 };
  assert.deepEqual([0, 1, 2, 3].map((a) => retryWait(p, true, err(503), a)), [500, 1000, 2000, undefined]);
  assert.equal(retryWait({ retries: 3, maxRetryWaitMs: 750 }, true, err(503), 1), 750);
});

test("Retry-After as seconds or an HTTP date", () => {
  const now = new Date(Date.UTC(2025, 0, 1));
  assert.equal(parseRetryAfter("7", now), 7000);
  assert.equal(parseRetryAfter(new Date(now.getTime() + 12_000).toUTCString(), now), 12_000);
  assert.equal(parseRetryAfter("soon", now), undefined);
  const p = { retries: 3, maxRetryWaitMs: 30_000 };
  assert.equal(retryWait(p, true, err(429, 7000), 0), 7000);
  assert.equal(retryWait(p, true, err(503, 31_000), 0), undefined);
});

test("only 429 and 503, only idempotent calls", () => {
  const p = { retries: 3, maxRetryWaitMs: 30_000 };
  assert.equal(retryWait(p, true, err(500), 0), undefined);
  assert.equal(retryWait(p, false, err(503), 0), undefined);
});

test("keys normalise as the server's", () => {
  assert.equal(normalizeKey(" User__Name "), "user-name");
  assert.equal(normalizeKey(" editor//THEME "), "editor/theme");
});

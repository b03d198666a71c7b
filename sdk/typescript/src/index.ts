// @recollect/client: the TypeScript client of Recollect, long-term memory
// for AI agents. ESM, typed, no dependency beyond fetch.

export { Recollect, DEFAULT_BASE_URL, DEFAULT_RETRIES, DEFAULT_MAX_RETRY_WAIT_MS, DEFAULT_TIMEOUT_MS, MAX_EVENTS_BATCH, IMPORT_CHUNK_BYTES } from "./client.js";
export type { ClientOptions } from "./client.js";
export {
  RecollectError,
  APIError,
  InvalidError,
  InvalidRequestError,
  UnauthorizedError,
  NotFoundError,
  UnavailableError,
  RateLimitError,
  ValidationError,
  TransportError,
} from "./errors.js";
export type { APIErrorInit } from "./errors.js";
export { verifyWebhook, WebhookVerificationError, DEFAULT_WEBHOOK_TOLERANCE_S } from "./webhooks.js";
export type { WebhookHeaders, VerifyWebhookOptions } from "./webhooks.js";
export { normalizeKey } from "./keys.js";
export { retryWait, parseRetryAfter } from "./retry.js";
export type * from "./models.js";

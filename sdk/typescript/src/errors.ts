// Errors of the Recollect client. Every answer outside 2xx is an APIError
// subclass chosen by status, as the Go client's errors.Is sentinels;
// `err instanceof InvalidError` covers the client's own checks
// (ValidationError) and the server's 400/422 (InvalidRequestError).

export class RecollectError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message);
    this.name = new.target.name;
    if (options && "cause" in options) (this as { cause?: unknown }).cause = options.cause;
  }
}

/** Refused by the client before anything was sent. */
export class ValidationError extends RecollectError {
  readonly field: string;
  readonly reason: string;
  constructor(field: string, reason: string) {
    super(`${field} ${reason}`);
    this.field = field;
    this.reason = reason;
  }
}

/** The request got no answer (connection refused, timeout, abort). */
export class TransportError extends RecollectError {
  constructor(readonly method: string, readonly path: string, cause: unknown) {
    super(`${method} ${path}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

export interface APIErrorInit {
  method: string;
  path: string;
  status: number;
  message?: string;
  field?: string;
  code?: string;
  /** Milliseconds the server asked to wait (Retry-After of a 429, 503). */
  retryAfterMs?: number;
  body?: string;
}

/** An answer outside 2xx. message is the server's "error" (or the body's
 * text), field the offending field of a 400, code the server's code. */
export class APIError extends RecollectError {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly serverMessage: string;
  field: string;
  readonly code: string;
  readonly retryAfterMs?: number;
  readonly body: string;
  /** A decoded answer, for calls whose errors carry one (import). */
  response?: unknown;

  constructor(init: APIErrorInit) {
    let msg = `${init.method} ${init.path} answered ${init.status}`;
    if (init.message) msg += `: ${init.message}`;
    if (init.retryAfterMs) msg += ` (retry after ${init.retryAfterMs / 1000}s)`;
    super(msg);
    this.method = init.method;
    this.path = init.path;
    this.status = init.status;
    this.serverMessage = init.message ?? "";
    this.field = init.field ?? "";
    this.code = init.code ?? "";
    this.retryAfterMs = init.retryAfterMs;
    this.body = init.body ?? "";
  }
}

/** 400 or 422; field names the offending field. */
export class InvalidRequestError extends APIError {}
/** 401 (no or a wrong API key) or 403 (the key may not act for the tenant). */
export class UnauthorizedError extends APIError {}
export class NotFoundError extends APIError {}
/** 503, and 429 (RateLimitError): try again after retryAfterMs. */
export class UnavailableError extends APIError {}
/** 429: the API key's rate limit. */
export class RateLimitError extends UnavailableError {}

/** Matches ValidationError and InvalidRequestError: `err instanceof
 * InvalidError` covers the client's checks and the server's 400/422. */
export class InvalidError {
  private constructor() {}
  static [Symbol.hasInstance](v: unknown): boolean {
    return v instanceof ValidationError || v instanceof InvalidRequestError;
  }
}

export function errorFor(init: APIErrorInit): APIError {
  switch (init.status) {
    case 400:
    case 422:
      return new InvalidRequestError(init);
    case 401:
    case 403:
      return new UnauthorizedError(init);
    case 404:
      return new NotFoundError(init);
    case 429:
      return new RateLimitError(init);
    case 503:
      return new UnavailableError(init);
    default:
      return new APIError(init);
  }
}

export function retryable(status: number): boolean {
  return status === 429 || status === 503;
}

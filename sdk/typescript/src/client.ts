// The client of one Recollect server over fetch: Node >= 18, Deno, Bun,
// browsers and edge runtimes. No dependency beyond fetch.

import { APIError, InvalidRequestError, NotFoundError, TransportError, ValidationError, errorFor } from "./errors.js";
import { normalizeKey, truncate, uuid } from "./keys.js";
import type * as m from "./models.js";
import { parseRetryAfter, retryWait } from "./retry.js";

export const DEFAULT_BASE_URL = "http://127.0.0.1:7700";
export const DEFAULT_RETRIES = 3;
export const DEFAULT_MAX_RETRY_WAIT_MS = 30_000;
export const DEFAULT_TIMEOUT_MS = 60_000;
/** The server's limit of events per POST /v1/events. */
export const MAX_EVENTS_BATCH = 1000;
/** One POST /v1/import, well under the server's limit. */
export const IMPORT_CHUNK_BYTES = 8 << 20;
const MAX_TAG_CHARS = 32;
const MAX_KEY_CHARS = 128;
const MAX_ERROR_BODY = 64 << 10;
const NDJSON = "application/x-ndjson";
const USER_AGENT = "recollect-ts-client";

export interface ClientOptions {
  /** The server, e.g. "http://127.0.0.1:7700"; a trailing slash is ignored. */
  baseURL?: string;
  /** Sent as "Authorization: Bearer <key>". */
  apiKey?: string;
  /** Fills requests that name no tenant ("" = the server decides). */
  tenant?: string;
  /** Fills requests that name no namespace. */
  namespace?: string;
  /** Resends of an idempotent call after 429 or 503 (default 3; 0 disables). */
  retries?: number;
  /** Longest wait between attempts (default 30 s); a longer Retry-After is the error. */
  maxRetryWaitMs?: number;
  /** Per attempt (default 60 s). */
  timeoutMs?: number;
  userAgent?: string;
  /** Replaces the global fetch. */
  fetch?: typeof fetch;
  /** Waits between attempts (tests inject one that records). */
  sleep?: (ms: number) => Promise<void>;
  /** The clock Retry-After dates are read against. */
  now?: () => Date;
}

interface Call {
  method: string;
  path: string;
  query?: Record<string, string | number | boolean | Date | undefined>;
  body?: string;
  contentType?: string;
  idempotent?: boolean;
  accept?: string;
}

type Source =
  | string
  | Uint8Array
  | Iterable<m.Memory | Record<string, unknown> | string>
  | AsyncIterable<m.Memory | Record<string, unknown> | string>;

const sleepMs = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** A client of one Recollect server; see the package README for the rules. */
export class Recollect {
  readonly baseURL: string;
  readonly apiKey?: string;
  readonly tenant?: string;
  readonly namespace?: string;
  readonly retries: number;
  readonly maxRetryWaitMs: number;
  readonly timeoutMs: number;
  readonly userAgent: string;
  private readonly options: ClientOptions;
  private readonly fetch: typeof fetch;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly now: () => Date;

  constructor(options: ClientOptions = {}) {
    this.options = options;
    this.baseURL = (options.baseURL ?? DEFAULT_BASE_URL).replace(/\/+$/, "");
    this.apiKey = options.apiKey?.trim() || undefined;
    this.tenant = options.tenant || undefined;
    this.namespace = options.namespace || undefined;
    this.retries = Math.max(0, options.retries ?? DEFAULT_RETRIES);
    this.maxRetryWaitMs = options.maxRetryWaitMs && options.maxRetryWaitMs > 0 ? options.maxRetryWaitMs : DEFAULT_MAX_RETRY_WAIT_MS;
    this.timeoutMs = options.timeoutMs && options.timeoutMs > 0 ? options.timeoutMs : DEFAULT_TIMEOUT_MS;
    this.userAgent = options.userAgent || USER_AGENT;
    const f = options.fetch ?? globalThis.fetch;
    if (!f) throw new Error("@recollect/client needs fetch (Node >= 18, Deno, Bun, browsers)");
    this.fetch = f.bind(globalThis);
    this.sleep = options.sleep ?? sleepMs;
    this.now = options.now ?? (() => new Date());
  }

  /** A copy with options changed. */
  withOptions(options: ClientOptions): Recollect {
    return new Recollect({ ...this.options, ...options });
  }

  // Sending.

  private url(call: Call): string {
    let u = this.baseURL + call.path;
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(call.query ?? {})) {
      if (v === undefined || v === "" || v === false) continue;
      q.set(k, v instanceof Date ? v.toISOString() : String(v));
    }
    const s = q.toString();
    if (s) u += "?" + s;
    return u;
  }

  private headers(call: Call): Record<string, string> {
    const h: Record<string, string> = { Accept: call.accept ?? "application/json", "User-Agent": this.userAgent };
    if (call.contentType) h["Content-Type"] = call.contentType;
    if (this.apiKey) h.Authorization = `Bearer ${this.apiKey}`;
    return h;
  }

  /** Sends a call and returns its 2xx answer; resends an idempotent call
   * on 429 and 503 (see retryWait). */
  private async send(call: Call): Promise<Response> {
    for (let attempt = 0; ; attempt++) {
      let resp: Response;
      try {
        resp = await this.fetch(this.url(call), {
          method: call.method,
          headers: this.headers(call),
          body: call.body,
          signal: AbortSignal.timeout(this.timeoutMs),
        });
      } catch (e) {
        throw new TransportError(call.method, call.path, e);
      }
      if (resp.status >= 200 && resp.status < 300) return resp;
      const err = await this.error(call, resp);
      const wait = retryWait(this, call.idempotent ?? false, err, attempt);
      if (wait === undefined) throw err;
      await this.sleep(wait);
    }
  }

  /** Reads an error answer: the server's JSON error ({"error", "field",
   * "code"}) or, from a proxy or an unknown route, its text. */
  private async error(call: Call, resp: Response): Promise<APIError> {
    let body = "";
    try {
      body = (await resp.text()).slice(0, MAX_ERROR_BODY);
    } catch {
      // the status says enough
    }
    let message = body.trim();
    let field = "";
    let code = "";
    try {
      const data = JSON.parse(body);
      if (data && typeof data === "object" && data.error) {
        message = String(data.error);
        field = data.field ? String(data.field) : "";
        code = data.code ? String(data.code) : "";
      }
    } catch {
      // not JSON: keep the text
    }
    return errorFor({
      method: call.method,
      path: call.path,
      status: resp.status,
      message,
      field,
      code,
      retryAfterMs: parseRetryAfter(resp.headers.get("Retry-After"), this.now()),
      body,
    });
  }

  private async do<T>(call: Call): Promise<T> {
    const resp = await this.send(call);
    if (resp.status === 204) return undefined as T;
    const text = await resp.text();
    return (text ? JSON.parse(text) : undefined) as T;
  }

  private json(method: string, path: string, body: unknown, idempotent: boolean): Call {
    return { method, path, body: JSON.stringify(body), contentType: "application/json", idempotent };
  }

  private withTenant<T extends { tenant?: string; namespace?: string }>(req: T, namespace = true): T {
    const out = { ...req, tenant: req.tenant || this.tenant };
    if (namespace) out.namespace = req.namespace || this.namespace;
    return out;
  }

  private tq(tenant?: string, more: Call["query"] = {}): Call["query"] {
    return { tenant: tenant || this.tenant, ...more };
  }

  // Events and memories in.

  /** Publishes conversation events (POST /v1/events) in batches of at most
   * 1000. An event's id makes a resend safe; a missing one is filled in
   * before the first attempt. On an error the batches before it were
   * accepted; err.response holds their sum. */
  async ingest(events: Iterable<m.Event>): Promise<m.EventsResponse> {
    const out: m.EventsResponse = { accepted: 0, ids: [] };
    let batch: m.Event[] = [];
    let start = 0;
    const flush = async () => {
      const call = this.json("POST", "/v1/events", { events: batch }, true);
      try {
        const r = await this.do<m.EventsResponse>(call);
        out.accepted += r.accepted;
        out.ids.push(...r.ids);
      } catch (e) {
        if (e instanceof APIError) {
          e.message = `events ${start}-${start + batch.length - 1}: ${e.message}`;
          e.response = out;
        }
        throw e;
      }
      start += batch.length;
      batch = [];
    };
    for (const ev of events) {
      batch.push(this.withTenant({ ...ev, id: ev.id || uuid() }));
      if (batch.length === MAX_EVENTS_BATCH) await flush();
    }
    if (batch.length > 0) await flush();
    else if (start === 0) throw new ValidationError("events", "is empty");
    return out;
  }

  /** Stores an explicit memory (POST /v1/memories): queued when this
   * resolves, unless wait (then the answer carries the stored memory). */
  learn(content: string | m.LearnRequest, fields: Partial<m.LearnRequest> = {}): Promise<m.LearnResponse> {
    const req: m.LearnRequest = typeof content === "string" ? { ...fields, content } : { ...content, ...fields };
    return this.do(this.json("POST", "/v1/memories", this.withTenant({ ...req, id: req.id || uuid() }), true));
  }

  /** Records an episode: content "<summary>. Outcome: <outcome>", type
   * episode, tags "episode" and "outcome:<outcome>" added. */
  episode(ep: m.Episode): Promise<m.LearnResponse> {
    const summary = ep.summary.trim();
    if (!summary) throw new ValidationError("summary", "is required");
    let content = summary;
    const tags = ["episode", ...(ep.tags ?? [])];
    const o = (ep.outcome ?? "").trim();
    if (o) {
      if (!/[.!?]$/.test(content)) content += ".";
      content += ` Outcome: ${o}`;
      tags.push(truncate(`outcome:${normalizeKey(o)}`, MAX_TAG_CHARS));
    }
    const { summary: _s, outcome: _o, ...rest } = ep;
    return this.learn({ ...rest, content, tags, type: "episode", kind: "episodic" });
  }

  /** Saves a named workflow: content "<name>:\n1. <step>...", type
   * procedure, key "procedure/<name>". */
  procedure(p: m.Procedure): Promise<m.LearnResponse> {
    const name = p.name.trim();
    if (!name) throw new ValidationError("name", "is required");
    const steps = p.steps.map((s) => s.trim()).filter((s) => s);
    if (steps.length === 0) throw new ValidationError("steps", "needs at least one step");
    const content = name + ":" + steps.map((s, i) => `\n${i + 1}. ${s}`).join("");
    const { name: _n, steps: _st, ...rest } = p;
    return this.learn({
      ...rest,
      content,
      key: truncate(`procedure/${normalizeKey(name)}`, MAX_KEY_CHARS),
      tags: ["procedure", ...(p.tags ?? [])],
      type: "procedure",
      kind: "procedural",
    });
  }

  // Reading.

  /** Ranks the tenant's memories for a query (POST /v1/recall). */
  recall(query: string | m.RecallRequest, fields: Partial<m.RecallRequest> = {}): Promise<m.RecallResponse> {
    const req: m.RecallRequest = typeof query === "string" ? { ...fields, query } : { ...query, ...fields };
    return this.do(this.json("POST", "/v1/recall", this.withTenant(req), true));
  }

  /** Assembles a prompt-ready context (POST /v1/context). */
  context(query?: string | m.ContextRequest, fields: Partial<m.ContextRequest> = {}): Promise<m.ContextResponse> {
    const req: m.ContextRequest = typeof query === "string" ? { ...fields, query } : { ...(query ?? {}), ...fields };
    return this.do(this.json("POST", "/v1/context", this.withTenant(req), true));
  }

  /** The session-recovery summary (GET /v1/resume). */
  resume(req: m.ResumeRequest = {}): Promise<m.ResumeResponse> {
    const q = this.tq(req.tenant, { namespace: req.namespace || this.namespace, session_id: req.session_id, budget: req.budget });
    return this.do({ method: "GET", path: "/v1/resume", query: q, idempotent: true });
  }

  /** The topic tree, or the topics named by ids with their memories. */
  topics(req: m.TopicsRequest = {}): Promise<m.TopicsResponse> {
    return this.do(this.json("POST", "/v1/topics", this.withTenant(req, false), true));
  }

  stats(tenant?: string): Promise<m.Stats> {
    return this.do({ method: "GET", path: "/v1/stats", query: this.tq(tenant), idempotent: true });
  }

  /** One memory; a missing one rejects with NotFoundError. */
  getMemory(id: string, opts: { tenant?: string } = {}): Promise<m.Memory> {
    return this.do({ method: "GET", path: `/v1/memories/${encodeURIComponent(id)}`, query: this.tq(opts.tenant), idempotent: true });
  }

  /** A memory's versions with both timelines. */
  history(id: string, opts: { tenant?: string } = {}): Promise<m.History> {
    return this.do({ method: "GET", path: `/v1/memories/${encodeURIComponent(id)}/history`, query: this.tq(opts.tenant), idempotent: true });
  }

  /** One page of memories in id order; next is set when there are more. */
  listMemories(opts: m.ListOptions = {}): Promise<m.ListResponse> {
    const q = this.tq(opts.tenant, {
      namespace: opts.namespace,
      domain: opts.domain,
      limit: opts.limit,
      after: opts.after,
      archived: opts.archived,
      superseded: opts.superseded,
    });
    return this.do({ method: "GET", path: "/v1/memories", query: q, idempotent: true });
  }

  /** Every memory listMemories selects, page by page:
   * `for await (const m of client.memories()) ...` */
  async *memories(opts: m.ListOptions = {}): AsyncGenerator<m.Memory> {
    let after = opts.after;
    for (;;) {
      const page = await this.listMemories({ ...opts, after });
      yield* page.memories;
      if (!page.next) return;
      after = page.next;
    }
  }

  /** The consolidation audit log, newest first. */
  audit(opts: m.AuditOptions = {}): Promise<m.AuditResponse> {
    const q = this.tq(opts.tenant, {
      phase: opts.phase,
      op: opts.op,
      memory: opts.memory_id,
      epoch: opts.epoch,
      since: opts.since,
      until: opts.until,
      limit: opts.limit,
    });
    return this.do({ method: "GET", path: "/v1/audit", query: q, idempotent: true });
  }

  // Lifecycle.

  /** Asks for a consolidation epoch; never resent (each call asks for a new one). */
  consolidate(tenant?: string): Promise<m.ConsolidateResponse> {
    return this.do(this.json("POST", "/v1/consolidate", { tenant: tenant || this.tenant }, false));
  }

  reindex(tenant?: string): Promise<m.ReindexResponse> {
    return this.do(this.json("POST", "/v1/reindex", { tenant: tenant || this.tenant }, true));
  }

  reindexStatus(tenant?: string): Promise<m.ReindexStatus> {
    return this.do({ method: "GET", path: "/v1/reindex", query: this.tq(tenant), idempotent: true });
  }

  // Webhooks.

  /** Registers an endpoint (POST /v1/webhooks). Keep the answer's secret:
   * it is not shown again. Never resent (a resend would register a second
   * endpoint). */
  createWebhook(url: string | m.CreateWebhookRequest, fields: Partial<m.CreateWebhookRequest> = {}): Promise<m.Webhook> {
    const req = typeof url === "string" ? { ...fields, url } : { ...url, ...fields };
    if (!req.url) throw new ValidationError("url", "is required");
    return this.do(this.json("POST", "/v1/webhooks", { ...req, tenant: req.tenant || this.tenant }, false));
  }

  /** The tenant's endpoints, without secrets (GET /v1/webhooks). */
  async webhooks(tenant?: string): Promise<m.Webhook[]> {
    const r = await this.do<{ webhooks: m.Webhook[] | null }>({ method: "GET", path: "/v1/webhooks", query: this.tq(tenant), idempotent: true });
    return r.webhooks ?? [];
  }

  /** Removes an endpoint; an unknown id rejects with NotFoundError. */
  async deleteWebhook(id: string, opts: { tenant?: string } = {}): Promise<void> {
    await this.do({ method: "DELETE", path: `/v1/webhooks/${encodeURIComponent(id)}`, query: this.tq(opts.tenant), idempotent: true });
  }

  /** Makes a new secret (the answer's secret); the old one keeps signing
   * next to it for the server's rotation grace. Never resent (a resend
   * would rotate again). */
  rotateWebhookSecret(id: string, opts: { tenant?: string } = {}): Promise<m.Webhook> {
    return this.do({ method: "POST", path: `/v1/webhooks/${encodeURIComponent(id)}/rotate`, query: this.tq(opts.tenant) });
  }

  // Forgetting.

  /** Deletes one memory; a missing one rejects with NotFoundError. */
  async deleteMemory(id: string, opts: { tenant?: string } = {}): Promise<void> {
    await this.do({ method: "DELETE", path: `/v1/memories/${encodeURIComponent(id)}`, query: this.tq(opts.tenant), idempotent: true });
  }

  /** Hard-deletes everything the tenant holds about a subject, derived
   * memories included (0 when none). A server that keeps erasure receipts
   * adds one (see waitErasure). */
  purge(subject: string, opts: { tenant?: string } = {}): Promise<m.DeleteResponse> {
    if (!subject) throw new ValidationError("subject", "is required");
    return this.do({ method: "DELETE", path: "/v1/memories", query: this.tq(opts.tenant, { subject }), idempotent: true });
  }

  /** A purge's erasure receipt (GET /v1/erasures/{id}). */
  erasure(id: string, opts: { tenant?: string } = {}): Promise<m.ErasureReceipt> {
    return this.do({ method: "GET", path: `/v1/erasures/${encodeURIComponent(id)}`, query: this.tq(opts.tenant), idempotent: true });
  }

  /** Reads the receipt every intervalMs until it is done, or the last one
   * read once timeoutMs has passed. */
  async waitErasure(receipt: m.ErasureReceipt, opts: { tenant?: string; intervalMs?: number; timeoutMs?: number } = {}): Promise<m.ErasureReceipt> {
    const deadline = Date.now() + (opts.timeoutMs ?? 60_000);
    while (receipt.state === "running" && Date.now() < deadline) {
      await sleepMs(opts.intervalMs ?? 500);
      receipt = await this.erasure(receipt.id, opts);
    }
    return receipt;
  }

  /** Deletes a memory by id, every memory with a key (normalised as the
   * server does; it lists the tenant's memories, in namespace or every one,
   * to find them; none matching rejects with NotFoundError), or everything
   * about a subject (purge). Exactly one of id, key, subject. */
  async forget(req: m.ForgetRequest): Promise<m.ForgetResponse> {
    const given = [req.id, req.key, req.subject].filter((v) => v).length;
    if (given !== 1) throw new ValidationError("id", "or key or subject is required, exactly one");
    if (req.id) {
      await this.deleteMemory(req.id, req);
      return { deleted: [req.id], count: 1 };
    }
    if (req.subject) {
      const r = await this.purge(req.subject, req);
      return { deleted: [], count: r.deleted, receipt: r.receipt };
    }
    const key = normalizeKey(req.key ?? "");
    if (!key) throw new ValidationError("key", "is empty once normalised");
    // Collect first, then delete, so that the listing pages over a stable set.
    const ids: string[] = [];
    for await (const x of this.memories({ tenant: req.tenant, namespace: req.namespace || this.namespace, limit: 1000, archived: true, superseded: true })) {
      if (x.key === key) ids.push(x.id);
    }
    if (ids.length === 0) {
      throw new NotFoundError({ method: "DELETE", path: "/v1/memories/{id}", status: 404, message: `forget key "${key}": no memory has it` });
    }
    const out: m.ForgetResponse = { deleted: [], count: 0 };
    for (const id of ids) {
      try {
        await this.deleteMemory(id, req);
      } catch (e) {
        if (e instanceof NotFoundError) continue; // deleted meanwhile: forgotten all the same
        throw e;
      }
      out.deleted.push(id);
    }
    out.count = out.deleted.length;
    return out;
  }

  // Export and import.

  /** Streams the tenant's memories (GET /v1/export), archived ones
   * included, in id order. fetch does not expose the server's completion
   * trailer: compare with stats() when a truncated stream matters. */
  async *exportMemories(opts: m.ExportOptions = {}): AsyncGenerator<m.Memory> {
    const q = this.tq(opts.tenant, { namespace_prefix: opts.namespace_prefix, vectors: opts.vectors });
    const resp = await this.send({ method: "GET", path: "/v1/export", query: q, idempotent: true, accept: NDJSON });
    if (!resp.body) return;
    const reader = resp.body.getReader();
    const dec = new TextDecoder();
    let buf = "";
    try {
      for (;;) {
        const { done, value } = await reader.read();
        buf += done ? dec.decode() : dec.decode(value, { stream: true });
        let nl: number;
        while ((nl = buf.indexOf("\n")) >= 0) {
          const line = buf.slice(0, nl).trim();
          buf = buf.slice(nl + 1);
          if (line) yield JSON.parse(line) as m.Memory;
        }
        if (done) break;
      }
      if (buf.trim()) yield JSON.parse(buf) as m.Memory;
    } finally {
      reader.releaseLock();
      await resp.body.cancel().catch(() => undefined);
    }
  }

  /** Imports NDJSON memories (POST /v1/import) in parts of at most 8 MiB:
   * source is NDJSON text or bytes, or an (async) iterable of memories,
   * objects or lines. A rejected part rejects with InvalidRequestError, its
   * bad lines in err.response.errors numbered as lines of source; parts
   * before it stay imported, and importing again is safe. */
  async importMemories(source: Source, opts: { tenant?: string } = {}): Promise<m.ImportResponse> {
    const total: m.ImportResponse = { imported: 0, skipped: 0, redacted: 0, quarantined: 0, errors: [] };
    const enc = new TextEncoder();
    let part: string[] = [];
    let size = 0;
    let first = 0; // lines before the part
    let n = 0;
    const flush = async () => {
      if (part.length === 0) return;
      const call: Call = { method: "POST", path: "/v1/import", query: this.tq(opts.tenant), body: part.join(""), contentType: NDJSON, idempotent: true };
      try {
        const r = await this.do<m.ImportResponse>(call);
        total.imported += r.imported;
        total.skipped += r.skipped;
        total.redacted = (total.redacted ?? 0) + (r.redacted ?? 0);
        total.quarantined = (total.quarantined ?? 0) + (r.quarantined ?? 0);
        total.errors.push(...(r.errors ?? []));
      } catch (e) {
        if (e instanceof InvalidRequestError) importFailed(e, first, total);
        throw e;
      }
      part = [];
      size = 0;
      first = n;
    };
    for await (const line of importLines(source)) {
      const len = enc.encode(line).length;
      if (part.length > 0 && size + len > IMPORT_CHUNK_BYTES) await flush();
      part.push(line);
      size += len;
      n++;
    }
    await flush();
    return total;
  }

  /** Whether the server answers /readyz with 200. */
  async ready(): Promise<boolean> {
    try {
      const r = await this.fetch(this.baseURL + "/readyz", { signal: AbortSignal.timeout(this.timeoutMs) });
      await r.body?.cancel();
      return r.status === 200;
    } catch {
      return false;
    }
  }
}

/** Reads a rejected import part's bad lines, numbered as lines of the
 * whole input; the error's field names the first. */
function importFailed(err: InvalidRequestError, offset: number, total: m.ImportResponse): void {
  let bad: m.LineError[] = [];
  try {
    bad = ((JSON.parse(err.body) as m.ImportResponse).errors ?? []).map((e) => ({ ...e, line: e.line + offset }));
  } catch {
    // no summary in the answer
  }
  total.errors.push(...bad);
  if (bad.length > 0) err.field = `line ${bad[0].line}`;
  if (offset > 0) err.message += ` (lines counted from line ${offset + 1} of the input)`;
  err.response = total;
}

async function* importLines(source: Source): AsyncGenerator<string> {
  if (typeof source === "string" || source instanceof Uint8Array) {
    const text = typeof source === "string" ? source : new TextDecoder().decode(source);
    for (const l of text.split(/\r?\n/)) if (l.trim()) yield l + "\n";
    return;
  }
  for await (const item of source as AsyncIterable<unknown>) {
    if (typeof item === "string") {
      for (const l of item.split(/\r?\n/)) if (l.trim()) yield l + "\n";
    } else {
      yield JSON.stringify(item) + "\n";
    }
  }
}

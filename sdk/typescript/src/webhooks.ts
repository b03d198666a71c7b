// Verifying a webhook delivery, as the Go client's VerifyWebhook does, with
// WebCrypto (crypto.subtle: Node ≥ 18, Deno, Bun, browsers, edge runtimes).
// A delivery's webhook-signature header holds space-separated "v1,<sig>"
// entries, each the base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>"
// keyed with the base64-decoded part of the secret after "whsec_" (two
// during a rotation). Verify before trusting a body, then deduplicate on
// webhook-id: delivery is at least once.

import { RecollectError } from "./errors.js";

/** Seconds a delivery's timestamp may be off now, by default. */
export const DEFAULT_WEBHOOK_TOLERANCE_S = 300;

/** A delivery without a valid, fresh signature; reason says why. */
export class WebhookVerificationError extends RecollectError {
  constructor(readonly reason: string) {
    super(`webhook signature does not verify: ${reason}`);
  }
}

/** The headers of a delivery: a fetch Headers, or a plain object such as
 * Node's IncomingMessage.headers (names matched without regard to case). */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyWebhookOptions {
  /** Seconds the timestamp may be off now (default 300). */
  toleranceS?: number;
  /** Now, for tests (default the clock). */
  now?: Date;
}

/** WebCrypto's SubtleCrypto: the global one (Node ≥ 19, Deno, Bun,
 * browsers, edge), else Node 18's node:crypto webcrypto (its global needs
 * a flag there). */
async function subtle(): Promise<SubtleCrypto> {
  const g = (globalThis as { crypto?: Crypto }).crypto;
  if (g?.subtle) return g.subtle;
  const name = "node:crypto"; // not resolved by bundlers for runtimes that have the global
  const mod = await import(name);
  return mod.webcrypto.subtle as SubtleCrypto;
}

function header(h: WebhookHeaders, name: string): string {
  if (typeof (h as Headers).get === "function") return (h as Headers).get(name) ?? "";
  const rec = h as Record<string, string | string[] | undefined>;
  let v = rec[name];
  if (v === undefined) {
    for (const k of Object.keys(rec)) {
      if (k.toLowerCase() === name) {
        v = rec[k];
        break;
      }
    }
  }
  if (Array.isArray(v)) v = v[0];
  return v ?? "";
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function fromBase64(s: string): Uint8Array<ArrayBuffer> | undefined {
  if (!BASE64.test(s)) return undefined;
  const bin = atob(s);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** Checks a delivery: its headers and the raw body exactly as received
 * (a string is encoded as UTF-8). Rejects with WebhookVerificationError
 * when webhook-id or webhook-timestamp is missing, the timestamp is more
 * than toleranceS off now, or no v1 signature matches; with a TypeError
 * when the secret is not "whsec_<base64>". */
export async function verifyWebhook(secret: string, headers: WebhookHeaders, body: string | Uint8Array, opts: VerifyWebhookOptions = {}): Promise<void> {
  const id = header(headers, "webhook-id");
  const ts = header(headers, "webhook-timestamp");
  const sigs = header(headers, "webhook-signature");
  if (!id || !/^-?\d+$/.test(ts)) throw new WebhookVerificationError("missing webhook-id or webhook-timestamp");
  const now = (opts.now ?? new Date()).getTime() / 1000;
  if (Math.abs(now - Number(ts)) > (opts.toleranceS ?? DEFAULT_WEBHOOK_TOLERANCE_S)) {
    throw new WebhookVerificationError("timestamp outside the tolerance");
  }
  const key = fromBase64(secret.startsWith("whsec_") ? secret.slice("whsec_".length) : secret);
  if (!key) throw new TypeError("decode webhook secret: not base64");
  const enc = new TextEncoder();
  const prefix = enc.encode(`${id}.${ts}.`);
  const data = typeof body === "string" ? enc.encode(body) : body;
  const msg = new Uint8Array(prefix.length + data.length);
  msg.set(prefix);
  msg.set(data, prefix.length);
  const sc = await subtle();
  const k = await sc.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["verify"]);
  for (const entry of sigs.split(/\s+/)) {
    const comma = entry.indexOf(",");
    if (comma < 0 || entry.slice(0, comma) !== "v1") continue;
    const sig = fromBase64(entry.slice(comma + 1));
    // subtle.verify compares in constant time.
    if (sig && (await sc.verify("HMAC", k, sig, msg))) return;
  }
  throw new WebhookVerificationError("no v1 signature matches");
}

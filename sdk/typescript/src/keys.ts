// Helpers that mirror the server's rules.

/** Normalises a key as the server does: "User Name" = "user-name". */
export function normalizeKey(k: string): string {
  let out = "";
  let last = "";
  for (let r of k.trim().toLowerCase()) {
    if (r === "_" || /\s/u.test(r)) r = "-";
    else if (/\p{Cc}/u.test(r)) continue;
    if ((r === "-" || r === "/") && r === last) continue;
    out += r;
    last = r;
  }
  return out.replace(/^[-/]+|[-/]+$/g, "");
}

/** Cuts s to at most n characters, trimming a trailing - or /. */
export function truncate(s: string, n: number): string {
  const chars = Array.from(s);
  return chars.length <= n ? s : chars.slice(0, n).join("").replace(/[-/]+$/, "");
}

/** A random UUID v4: crypto.randomUUID where the runtime has it. */
export function uuid(): string {
  const c = (globalThis as { crypto?: { randomUUID?: () => string; getRandomValues?: (a: Uint8Array) => Uint8Array } }).crypto;
  if (c?.randomUUID) return c.randomUUID();
  const b = new Uint8Array(16);
  if (c?.getRandomValues) c.getRandomValues(b);
  else for (let i = 0; i < 16; i++) b[i] = Math.floor(Math.random() * 256);
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

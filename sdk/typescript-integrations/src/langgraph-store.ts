// A LangGraph.js BaseStore backed by Recollect. Each item is one memory in
// the store's Recollect namespace: its content is the item as JSON
// ({"langgraph":{"namespace":[...],"key":"..."},"value":{...}}), its key
// a UUID made of the SHA-256 of namespace and key (the server keeps a UUID
// as a key; a long hex or random string it takes for a secret and drops). A put stores a new version
// (the newest wins; an epoch supersedes the older ones by key, with
// history); a delete forgets every version.

import { BaseStore } from "@langchain/langgraph";
import type { Item, Operation, OperationResults, GetOperation, PutOperation, SearchOperation, ListNamespacesOperation, MatchCondition } from "@langchain/langgraph";
import type { Recollect, Memory } from "@recollect/client";

/** An item with its search score (the shape of the checkpoint package's SearchItem). */
type SearchItem = Item & { score?: number };

export interface RecollectStoreOptions {
  /** The Recollect namespace of the store's items (default "langgraph"). */
  namespace?: string;
  /** Recall candidates read for a search with a query (default 100, the server's maximum). */
  searchCandidates?: number;
}

interface Envelope {
  langgraph: { namespace: string[]; key: string };
  value: Record<string, unknown>;
}

/** Parses a memory written by the store; undefined for any other memory. */
function envelope(m: Memory): Envelope | undefined {
  try {
    const e = JSON.parse(m.content) as Envelope;
    if (e && typeof e === "object" && e.langgraph && Array.isArray(e.langgraph.namespace) && typeof e.langgraph.key === "string" && e.value && typeof e.value === "object") return e;
  } catch {
    // not one of the store's items
  }
  return undefined;
}

const same = (a: string[], b: string[]) => a.length === b.length && a.every((x, i) => x === b[i]);
const id = (ns: string[], key: string) => JSON.stringify([ns, key]);

async function memoryKey(ns: string[], key: string): Promise<string> {
  const digest = await globalThis.crypto.subtle.digest("SHA-256", new TextEncoder().encode(id(ns, key)));
  const b = new Uint8Array(digest).slice(0, 16);
  b[6] = (b[6] & 0x0f) | 0x50; // a name-based UUID (v5 layout, SHA-256)
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

function matches(value: Record<string, unknown>, filter?: Record<string, unknown>): boolean {
  if (!filter) return true;
  return Object.entries(filter).every(([k, want]) => {
    const got = value[k];
    if (want && typeof want === "object" && !Array.isArray(want)) {
      const ops = want as Record<string, unknown>;
      return Object.entries(ops).every(([op, v]) => {
        switch (op) {
          case "$eq": return JSON.stringify(got) === JSON.stringify(v);
          case "$ne": return JSON.stringify(got) !== JSON.stringify(v);
          case "$gt": return (got as number) > (v as number);
          case "$gte": return (got as number) >= (v as number);
          case "$lt": return (got as number) < (v as number);
          case "$lte": return (got as number) <= (v as number);
          default: return JSON.stringify(got?.[op as keyof typeof got]) === JSON.stringify(v);
        }
      });
    }
    return JSON.stringify(got) === JSON.stringify(want);
  });
}

function matchesCondition(ns: string[], c: MatchCondition): boolean {
  if (c.path.length > ns.length) return false;
  const part = c.matchType === "prefix" ? ns.slice(0, c.path.length) : ns.slice(ns.length - c.path.length);
  return c.path.every((p, i) => p === "*" || p === part[i]);
}

/** Collapses versions to items: per namespace and key, the newest value,
 * created at the oldest version. */
function toItems(memories: { memory: Memory; score?: number }[]): (SearchItem & { newest: string })[] {
  const byId = new Map<string, SearchItem & { newest: string }>();
  for (const { memory: m, score } of memories) {
    const e = envelope(m);
    if (!e) continue;
    const k = id(e.langgraph.namespace, e.langgraph.key);
    const prev = byId.get(k);
    const created = new Date(m.created_at);
    if (!prev) {
      byId.set(k, { namespace: e.langgraph.namespace, key: e.langgraph.key, value: e.value, createdAt: created, updatedAt: new Date(m.modified_at), newest: m.modified_at, score });
      continue;
    }
    if (created < prev.createdAt) prev.createdAt = created;
    if (m.modified_at > prev.newest) {
      Object.assign(prev, { value: e.value, updatedAt: new Date(m.modified_at), newest: m.modified_at });
    }
    if (score !== undefined && (prev.score === undefined || score > prev.score)) prev.score = score;
  }
  return [...byId.values()];
}

const strip = ({ newest: _n, ...item }: SearchItem & { newest: string }): SearchItem => item;

export class RecollectStore extends BaseStore {
  readonly client: Recollect;
  readonly namespace: string;
  readonly searchCandidates: number;

  constructor(client: Recollect, opts: RecollectStoreOptions = {}) {
    super();
    this.client = client;
    this.namespace = opts.namespace ?? "langgraph";
    this.searchCandidates = opts.searchCandidates ?? 100;
  }

  async batch<Op extends Operation[]>(operations: Op): Promise<OperationResults<Op>> {
    const out: unknown[] = [];
    for (const op of operations) {
      if ("namespacePrefix" in op) out.push(await this.doSearch(op));
      else if ("value" in op) out.push(await this.doPut(op));
      else if ("key" in op) out.push(await this.doGet(op));
      else out.push(await this.doListNamespaces(op as ListNamespacesOperation));
    }
    return out as OperationResults<Op>;
  }

  private async versions(ns: string[], key: string): Promise<Memory[]> {
    const r = await this.client.recall({ query: key, key: await memoryKey(ns, key), namespace: this.namespace });
    return r.memories.filter((x) => x.key_match).map((x) => x.memory).filter((m) => {
      const e = envelope(m);
      return e !== undefined && same(e.langgraph.namespace, ns) && e.langgraph.key === key;
    });
  }

  private async doGet(op: GetOperation): Promise<Item | null> {
    const items = toItems((await this.versions(op.namespace, op.key)).map((memory) => ({ memory })));
    if (items.length === 0) return null;
    const { score: _s, ...item } = strip(items[0]);
    return item;
  }

  private async doPut(op: PutOperation): Promise<void> {
    if (op.namespace.length === 0) throw new Error("langgraph store: namespace is empty");
    if (op.value === null) {
      const k = await memoryKey(op.namespace, op.key);
      try {
        await this.client.forget({ key: k, namespace: this.namespace });
      } catch (err) {
        if ((err as { status?: number }).status !== 404) throw err; // nothing to delete is a delete
      }
      return;
    }
    const content = JSON.stringify({ langgraph: { namespace: op.namespace, key: op.key }, value: op.value });
    await this.client.learn({ content, key: await memoryKey(op.namespace, op.key), namespace: this.namespace, type: "artifact", tags: ["langgraph"], wait: true });
  }

  private async all(): Promise<Memory[]> {
    const out: Memory[] = [];
    for await (const m of this.client.memories({ namespace: this.namespace, limit: 1000 })) out.push(m);
    return out;
  }

  private async doSearch(op: SearchOperation): Promise<SearchItem[]> {
    const limit = op.limit ?? 10;
    const offset = op.offset ?? 0;
    const inPrefix = (ns: string[]) => op.namespacePrefix.every((p, i) => ns[i] === p);
    let items;
    if (op.query) {
      const r = await this.client.recall({ query: op.query, namespace: this.namespace, k: this.searchCandidates });
      items = toItems(r.memories.map((x) => ({ memory: x.memory, score: x.score })));
      items.sort((a, b) => (b.score ?? 0) - (a.score ?? 0));
    } else {
      items = toItems((await this.all()).map((memory) => ({ memory })));
      items.sort((a, b) => b.newest.localeCompare(a.newest));
    }
    return items.filter((x) => inPrefix(x.namespace) && matches(x.value, op.filter)).slice(offset, offset + limit).map(strip);
  }

  private async doListNamespaces(op: ListNamespacesOperation): Promise<string[][]> {
    const seen = new Map<string, string[]>();
    for (const m of await this.all()) {
      const e = envelope(m);
      if (!e) continue;
      let ns = e.langgraph.namespace;
      if (op.matchConditions && !op.matchConditions.every((c) => matchesCondition(ns, c))) continue;
      if (op.maxDepth !== undefined) ns = ns.slice(0, op.maxDepth);
      seen.set(JSON.stringify(ns), ns);
    }
    const all = [...seen.values()].sort((a, b) => a.join("\u0000").localeCompare(b.join("\u0000")));
    return all.slice(op.offset, op.offset + op.limit);
  }
}

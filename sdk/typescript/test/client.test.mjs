// The client against a real `recollect run`.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";

import {
  Recollect,
  InvalidError,
  InvalidRequestError,
  NotFoundError,
  RateLimitError,
  UnauthorizedError,
  UnavailableError,
  ValidationError,
} from "../dist/index.js";
import { startServer, eventually, KEYS } from "./server.mjs";

let server;
const client = (who = "acme", opts = {}) => new Recollect({ baseURL: server.url, apiKey: who ? KEYS[who] : undefined, ...opts });
const stored = (rc, id, opts) => eventually(`memory ${id} stored`, () => rc.getMemory(id, opts));

before(async () => {
  server = await startServer();
});
after(async () => {
  await server?.stop();
});

test("ingest and recall", async () => {
  const rc = client();
  const resp = await rc.ingest([{ id: "turn-1", type: "turn", session_id: "s1", subject: "alice", role: "user", name: "Alice",
    content: "I prefer tabs over spaces, and always run make test before committing" }]);
  assert.deepEqual(resp, { accepted: 1, ids: ["turn-1"] });
  const r = await eventually("recall the tabs preference", async () => {
    const r = await rc.recall("how should I indent code?");
    assert.ok(r.memories.some((x) => x.memory.content.toLowerCase().includes("tabs")), "no tabs memory");
    assert.match(r.context, /## Recalled Context/);
    return r;
  });
  assert.ok(r.memories.every((x) => x.memory.tenant === "acme"));
  assert.deepEqual((await client("globex").recall("how should I indent code?")).memories, []);
});

test("events go in batches of 1000", async () => {
  const rc = client();
  const events = Array.from({ length: 1001 }, (_, i) => ({ type: "feedback", id: `fb-${i}`, feedback: { memory_id: "nope", success: true } }));
  const resp = await rc.ingest(events);
  assert.equal(resp.accepted, 1001);
  assert.equal(resp.ids[0], "fb-0");
  assert.equal(resp.ids[1000], "fb-1000");
  const one = await rc.ingest([{ type: "compaction", session_id: "s2", messages: [{ role: "user", name: "Bob", content: "hello", ts: new Date() }] }]);
  assert.equal(one.accepted, 1);
  assert.equal(one.ids[0].length, 36);
  await assert.rejects(rc.ingest([]), ValidationError);
});

test("learn, get, list, stats, history", async () => {
  const rc = client("acme", { namespace: "proj" });
  const r = await rc.learn("Deploys go to the staging cluster first", { key: "Deploy Target", type: "workflow", importance: 0.8, tags: ["Deploy"], wait: true, timeout: "30s" });
  assert.ok(r.id && r.memory_id && r.stored === true && r.memory);
  const m = await stored(rc, r.memory_id);
  assert.deepEqual([m.tenant, m.namespace, m.key, m.type, m.kind, m.source], ["acme", "proj", "deploy-target", "workflow", "procedural", "api"]);
  assert.ok(m.tags.includes("deploy"));
  const r2 = await rc.learn({ content: "The CI runs on two cores", namespace: "other" });
  await stored(rc, r2.memory_id);
  const st = await rc.stats();
  const listed = [];
  for await (const x of rc.memories({ limit: 1 })) listed.push(x.id);
  assert.equal(st.tenant, "acme");
  assert.equal(listed.length, st.memories);
  assert.deepEqual(listed, [...listed].sort());
  assert.ok(listed.includes(r.memory_id));
  const page = await rc.listMemories({ namespace: "other" });
  assert.deepEqual(page.memories.map((x) => x.id), [r2.memory_id]);
  assert.ok(!page.next);
  const h = await rc.history(r.memory_id);
  assert.deepEqual(h.chain.map((v) => v.id), [r.memory_id]);
});

test("episode and procedure", async () => {
  const rc = client();
  const ep = await rc.episode({ summary: "Rolled back the billing deploy after the health check failed", outcome: "Failure", tags: ["billing"] });
  const pr = await rc.procedure({ name: "Release a version", steps: ["run make test", " ", "tag the commit", "push the tag"] });
  const e = await stored(rc, ep.memory_id);
  assert.equal(e.type, "episode");
  assert.ok(e.content.endsWith("failed. Outcome: Failure"));
  assert.deepEqual(e.tags, ["episode", "billing", "outcome:failure"]);
  const p = await stored(rc, pr.memory_id);
  assert.equal(p.key, "procedure/release-a-version");
  assert.equal(p.content.split(/\s+/).join(" "), "Release a version: 1. run make test 2. tag the commit 3. push the tag");
  assert.throws(() => rc.episode({ summary: " ", outcome: "success" }), InvalidError);
  assert.throws(() => rc.procedure({ name: "x", steps: [" "] }), InvalidError);
});

test("errors", async () => {
  const rc = client();
  await assert.rejects(rc.getMemory("no-such-memory"), (e) => e instanceof NotFoundError && e.status === 404 && e.path === "/v1/memories/no-such-memory");
  await assert.rejects(rc.learn("x", { type: "bogus" }),
    (e) => e instanceof InvalidRequestError && e instanceof InvalidError && e.status === 400 && e.field === "memory.type" && e.code === "invalid_request");
  await assert.rejects(client(null).stats(), (e) => e instanceof UnauthorizedError && e.status === 401);
  await assert.rejects(rc.stats("globex"), (e) => e instanceof UnauthorizedError && e.status === 403);
  assert.equal((await client("admin").stats("globex")).tenant, "globex");
  await assert.rejects(new Recollect({ baseURL: "http://127.0.0.1:1" }).stats(), (e) => e.name === "TransportError");
});

test("as_of and filters", async () => {
  const rc = client();
  const then = new Date(Date.UTC(2024, 4, 1, 12, 30));
  const r = await rc.recall("staging cluster", { as_of: then, filters: { include_archived: true }, k: 3, per_domain: 2 });
  assert.equal(Date.parse(r.time.as_of), then.getTime());
  await assert.rejects(rc.recall("x", { as_of: "1960-01-01T00:00:00Z" }), (e) => e instanceof InvalidRequestError && e.field === "as_of");
  const ctx = await rc.context("deploys", { as_of: then, budget: 200 });
  assert.equal(ctx.budget, 200);
  await assert.rejects(rc.context({ query: "x", as_of: new Date(Date.UTC(1960, 0, 1)) }), (e) => e instanceof InvalidRequestError && e.field === "as_of");
});

test("context, resume, topics, consolidate, audit", async () => {
  const rc = client();
  const r = await rc.learn("The team standup is at 9:30 every weekday", { wait: true });
  await stored(rc, r.memory_id);
  const ctx = await rc.context("when is the standup?", { session_id: "s1" });
  assert.ok(ctx.tokens > 0 && ctx.context && ctx.memories.length > 0);
  const same = await rc.context(undefined, { query: "when is the standup?", session_id: "s1" });
  assert.deepEqual(same.memories.map((x) => x.memory.id), ctx.memories.map((x) => x.memory.id));
  assert.ok((await rc.resume({ session_id: "s1" })).budget > 0);
  await eventually("topic tree built", async () => {
    const t = await rc.topics();
    assert.ok(t.tenant === "acme" && t.memories > 0 && t.topics.length > 0, "no tree yet");
    const one = await rc.topics({ ids: [t.topics[0].id, "nope"] });
    assert.deepEqual(one.topics.map((x) => x.id), [t.topics[0].id]);
    assert.deepEqual(one.missing, ["nope"]);
    assert.ok(one.details[t.topics[0].id].memories.length > 0);
  });
  const ep = await rc.consolidate();
  assert.equal(ep.tenant, "acme");
  assert.ok(ep.epoch.startsWith("manual:"));
  assert.equal((await rc.audit({ limit: 5, since: new Date(0) })).tenant, "acme");
});

test("forget by key, subject and id", async () => {
  const rc = client();
  const a = await rc.learn("The editor theme is solarized dark", { key: "editor/theme" });
  const b = await rc.learn("In the other project the theme is light", { key: "Editor/Theme", namespace: "other" });
  await stored(rc, a.memory_id);
  await stored(rc, b.memory_id);
  const got = await rc.forget({ key: " editor//THEME " });
  assert.deepEqual([...got.deleted].sort(), [a.memory_id, b.memory_id].sort());
  assert.equal(got.count, 2);
  await assert.rejects(rc.getMemory(a.memory_id), NotFoundError);
  await assert.rejects(rc.forget({ key: "editor/theme" }), NotFoundError);
  const c = await rc.learn("Carol's birthday is in March", { subject: "carol" });
  await stored(rc, c.memory_id);
  const purged = await rc.forget({ subject: "carol" });
  assert.ok(purged.count >= 1);
  assert.deepEqual(purged.deleted, []);
  await assert.rejects(rc.getMemory(c.memory_id), NotFoundError);
  assert.equal((await rc.purge("nobody-at-all")).deleted, 0);
  const d = await rc.learn("A memory to forget by id");
  await stored(rc, d.memory_id);
  assert.deepEqual((await rc.forget({ id: d.memory_id })).deleted, [d.memory_id]);
  await assert.rejects(rc.forget({ id: "x", key: "y" }), ValidationError);
});

test("export and import", async () => {
  const admin = client("admin");
  const src = "exp-" + randomUUID().slice(0, 8);
  const dst = "imp-" + randomUUID().slice(0, 8);
  const ids = [];
  for (let i = 0; i < 3; i++) ids.push((await admin.learn(`Export fact number ${i}`, { tenant: src })).memory_id);
  for (const id of ids) await stored(admin, id, { tenant: src });
  const first = [];
  for await (const m of admin.exportMemories({ tenant: src })) first.push(m);
  assert.deepEqual(first.map((m) => m.id).sort(), [...ids].sort());
  const resp = await admin.importMemories(first, { tenant: dst });
  assert.deepEqual([resp.imported, resp.skipped, resp.errors], [3, 0, []]);
  const second = [];
  for await (const m of admin.exportMemories({ tenant: dst })) second.push(m);
  assert.deepEqual(second.map((m) => [m.id, m.content, m.created_at]), first.map((m) => [m.id, m.content, m.created_at]));
  assert.ok(second.every((m) => m.tenant === dst));
  const again = await admin.importMemories(second, { tenant: dst });
  assert.deepEqual([again.imported, again.skipped], [0, 3]);
  const good = '{"id":"new-1","tenant":"x","namespace":"default","content":"fine","domain":"general","type":"fact","kind":"semantic","layer":"working","source":"api","created_at":"2025-01-01T00:00:00Z","modified_at":"2025-01-01T00:00:00Z"}\n';
  await assert.rejects(admin.importMemories(good + "not json\n", { tenant: dst }),
    (e) => e instanceof InvalidRequestError && e.field === "line 2" && e.response.errors.map((x) => x.line).join() === "2");
  await assert.rejects(admin.getMemory("new-1", { tenant: dst }), NotFoundError);
  await assert.rejects(async () => {
    for await (const _ of client("acme").exportMemories({ tenant: dst })) { /* nothing */ }
  }, UnauthorizedError);
});

test("retries: an idempotent call is resent after Retry-After", async () => {
  const waits = [];
  const rc = client("fast", { sleep: async (ms) => { waits.push(ms); await new Promise((r) => setTimeout(r, ms)); } });
  for (let i = 0; i < 5 && waits.length === 0; i++) assert.equal((await rc.stats()).tenant, "fast");
  assert.deepEqual(waits, [1000]);
});

test("retries: consolidate is never resent", async () => {
  const waits = [];
  const rc = client("fast2", { sleep: async (ms) => { waits.push(ms); } });
  await rc.stats();
  await assert.rejects(async () => {
    for (let i = 0; i < 5; i++) await rc.consolidate();
  }, (e) => e instanceof RateLimitError && e instanceof UnavailableError && e.status === 429 && e.code === "rate_limited" && e.retryAfterMs === 1000);
  assert.deepEqual(waits, []);
});

test("retries: a longer Retry-After than allowed is the error", async () => {
  const waits = [];
  const rc = client("slow", { sleep: async (ms) => { waits.push(ms); } });
  await rc.stats();
  await assert.rejects(rc.stats(), (e) => e instanceof RateLimitError && e.retryAfterMs > 30_000);
  await assert.rejects(rc.withOptions({ retries: 0, maxRetryWaitMs: 1_000_000 }).stats(), RateLimitError);
  assert.deepEqual(waits, []);
});

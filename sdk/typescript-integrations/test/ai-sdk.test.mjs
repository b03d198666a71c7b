// The Vercel AI SDK adapter with the real `ai` package (generateText,
// streamText, wrapLanguageModel, its own MockLanguageModelV3: no network)
// against a real `recollect run`.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { generateText, streamText, wrapLanguageModel, stepCountIs, simulateReadableStream } from "ai";
import { MockLanguageModelV3 } from "ai/test";

import { recollectTools, recollectMiddleware } from "../dist/ai-sdk.js";
import { startServer, eventually, clientFor, transcript } from "./helpers.mjs";

let server;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server?.stop();
});

const usage = { inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 5, text: 5, reasoning: 0 } };
const text = (t) => ({ content: [{ type: "text", text: t }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] });
const call = (name, input) => ({
  content: [{ type: "tool-call", toolCallId: `call-${name}`, toolName: name, input: JSON.stringify(input) }],
  finishReason: { unified: "tool-calls", raw: "tool_calls" },
  usage,
  warnings: [],
});
const toolResults = (r) => r.steps.flatMap((s) => s.toolResults);

test("remember and recall tools, called by the model through generateText", async () => {
  const rc = clientFor(server, "ai-tools");
  const tools = recollectTools(rc, { subject: "alice" });
  const remembering = new MockLanguageModelV3({ doGenerate: [call("remember", { content: "Alice deploys to the staging cluster first", key: "deploy/target" }), text("Noted.")] });
  const r1 = await generateText({ model: remembering, tools, stopWhen: stepCountIs(3), prompt: "Remember: I deploy to staging first" });
  assert.equal(r1.text, "Noted.");
  const [stored] = toolResults(r1);
  assert.equal(stored.toolName, "remember");
  assert.equal(stored.output.stored, true);
  const m = await rc.getMemory(stored.output.id);
  assert.deepEqual([m.content, m.key, m.subject], ["Alice deploys to the staging cluster first", "deploy/target", "alice"]);

  const recalling = new MockLanguageModelV3({ doGenerate: [call("recall", { query: "where does Alice deploy?" }), text("To staging.")] });
  const r2 = await generateText({ model: recalling, tools, stopWhen: stepCountIs(3), prompt: "Where do I deploy?" });
  const [found] = toolResults(r2);
  assert.equal(found.toolName, "recall");
  assert.ok(found.output.memories.some((x) => x.id === m.id && x.content.includes("staging")), JSON.stringify(found.output));
  // The model's second step saw the tool's answer.
  const seen = JSON.stringify(recalling.doGenerateCalls[1].prompt);
  assert.ok(seen.includes("staging cluster"), seen);
});

test("middleware: /v1/context goes into the prompt and the turns are published (generateText)", async () => {
  const rc = clientFor(server, "ai-mw");
  await rc.learn("The team deploys to the staging cluster first", { wait: true });
  const mock = new MockLanguageModelV3({ doGenerate: text("Staging first, then production.") });
  const model = wrapLanguageModel({ model: mock, middleware: recollectMiddleware(rc, { sessionId: "chat-1", subject: "alice", userName: "Alice" }) });
  const r = await generateText({ model, system: "You are helpful.", prompt: "Where does the team deploy first?" });
  assert.equal(r.text, "Staging first, then production.");
  const prompt = mock.doGenerateCalls[0].prompt;
  assert.deepEqual(prompt.map((m) => m.role), ["system", "system", "user"]);
  assert.equal(prompt[0].content, "You are helpful.");
  assert.match(prompt[1].content, /## Recalled Context/);
  assert.match(prompt[1].content, /staging cluster/);
  assert.deepEqual(await transcript(rc, "chat-1", 2), ["Alice: Where does the team deploy first?", "assistant: Staging first, then production."]);
});

test("middleware: streamText publishes the streamed answer once the stream ends", async () => {
  const rc = clientFor(server, "ai-stream");
  const chunks = [
    { type: "text-start", id: "t1" },
    { type: "text-delta", id: "t1", delta: "Tabs, " },
    { type: "text-delta", id: "t1", delta: "as you prefer." },
    { type: "text-end", id: "t1" },
    { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage },
  ];
  const mock = new MockLanguageModelV3({ doStream: { stream: simulateReadableStream({ chunks }) } });
  const model = wrapLanguageModel({ model: mock, middleware: recollectMiddleware(rc, { sessionId: "chat-2", subject: "bob" }) });
  const r = streamText({ model, prompt: "I prefer tabs over spaces. Which should I use?" });
  let out = "";
  for await (const t of r.textStream) out += t;
  assert.equal(out, "Tabs, as you prefer.");
  assert.deepEqual(await transcript(rc, "chat-2", 2), ["assistant: Tabs, as you prefer.", "user: I prefer tabs over spaces. Which should I use?"].sort());
  // What the user said is extracted into a memory later calls recall.
  await eventually("the tabs preference recalled", async () => {
    const rec = await rc.recall("how should bob indent code?");
    assert.ok(rec.memories.some((x) => !x.memory.tags?.includes("transcript") && /tabs/i.test(x.memory.content)), "no tabs memory");
  });
});

test("middleware with tools: a tool loop publishes the user's message once", async () => {
  const posted = [];
  const observe = (url, init) => {
    if (String(url).endsWith("/v1/events")) posted.push(...JSON.parse(init.body).events.map((e) => `${e.role}: ${e.content}`));
    return fetch(url, init);
  };
  const rc = clientFor(server, "ai-loop", { fetch: observe });
  const mock = new MockLanguageModelV3({ doGenerate: [call("remember", { content: "Gina's laptop runs NixOS" }), text("Remembered.")] });
  const model = wrapLanguageModel({ model: mock, middleware: recollectMiddleware(rc, { sessionId: "chat-3", subject: "gina" }) });
  const r = await generateText({ model, tools: recollectTools(rc, { subject: "gina" }), stopWhen: stepCountIs(3), prompt: "My laptop runs NixOS" });
  assert.equal(r.text, "Remembered.");
  assert.equal(mock.doGenerateCalls.length, 2);
  assert.deepEqual(posted, ["user: My laptop runs NixOS", "assistant: Remembered."]);
  assert.deepEqual((await transcript(rc, "chat-3", 2)).sort(), ["assistant: Remembered.", "user: My laptop runs NixOS"]);
});

test("middleware: a failing Recollect fails the call unless onError takes it", async () => {
  const rc = clientFor(server, "ai-err", { baseURL: "http://127.0.0.1:1", retries: 0 });
  const mock = new MockLanguageModelV3({ doGenerate: text("ok") });
  const model = wrapLanguageModel({ model: mock, middleware: recollectMiddleware(rc, { sessionId: "s" }) });
  await assert.rejects(generateText({ model, prompt: "hello", maxRetries: 0 }));
  const seen = [];
  const tolerant = wrapLanguageModel({ model: mock, middleware: recollectMiddleware(rc, { sessionId: "s", onError: (_e, during) => seen.push(during) }) });
  const r = await generateText({ model: tolerant, prompt: "hello", maxRetries: 0 });
  assert.equal(r.text, "ok");
  assert.deepEqual(seen, ["context", "publish"]);
});

// The LangGraph.js store and the LangChain.js chat history with the real
// packages (a compiled StateGraph, RunnableWithMessageHistory and
// @langchain/core's own fake chat model: no network) against a real
// `recollect run`.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { StateGraph, Annotation, START, END } from "@langchain/langgraph";
import { RunnableWithMessageHistory } from "@langchain/core/runnables";
import { ChatPromptTemplate, MessagesPlaceholder } from "@langchain/core/prompts";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { HumanMessage, AIMessage } from "@langchain/core/messages";

import { InvalidRequestError } from "@recollect/client";

import { RecollectStore } from "../dist/langgraph-store.js";
import { RecollectChatMessageHistory } from "../dist/langchain-history.js";
import { startServer, clientFor, transcript } from "./helpers.mjs";

let server;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server?.stop();
});

test("store: put, get, update, search with a query, filter and prefix, list namespaces, delete", async () => {
  const rc = clientFor(server, "lg-store");
  const store = new RecollectStore(rc);
  const alice = ["users", "Alice_1", "memories"];
  const bob = ["users", "bob", "memories"];
  assert.equal(await store.get(alice, "food"), null);
  await store.put(alice, "food", { text: "Alice likes sushi and ramen", kind: "food" });
  await store.put(alice, "Editor_Choice", { text: "Alice edits code with vim", kind: "tools", rating: 5 });
  await store.put(bob, "food", { text: "Bob likes pizza", kind: "food" });
  await store.put(["docs"], "readme", { text: "The README explains the setup" });

  const got = await store.get(alice, "food");
  assert.deepEqual([got.namespace, got.key, got.value], [alice, "food", { text: "Alice likes sushi and ramen", kind: "food" }]);
  assert.ok(got.createdAt instanceof Date && got.updatedAt instanceof Date);
  assert.equal((await store.get(alice, "Editor_Choice")).value.rating, 5);

  // An update: the newest value wins; the older one is kept in Recollect.
  await store.put(alice, "food", { text: "Alice now prefers tacos", kind: "food" });
  const updated = await store.get(alice, "food");
  assert.equal(updated.value.text, "Alice now prefers tacos");
  assert.ok(updated.updatedAt >= got.updatedAt);
  const versions = [];
  for await (const m of rc.memories({ namespace: "langgraph", superseded: true, archived: true })) if (m.content.includes("sushi") || m.content.includes("tacos")) versions.push(m.content);
  assert.equal(versions.length, 2);

  const found = await store.search(["users"], { query: "what does Alice eat?", limit: 10 });
  assert.ok(found.length > 0 && found.every((x) => x.namespace[0] === "users" && typeof x.score === "number"), JSON.stringify(found));
  assert.deepEqual(found.map((x) => x.score), found.map((x) => x.score).sort((a, b) => b - a), "best first");
  assert.equal(new Set(found.map((x) => JSON.stringify([x.namespace, x.key]))).size, found.length, "one result per item");
  assert.deepEqual((await store.search(["docs"], { query: "how is the setup explained?" })).map((x) => x.key), ["readme"]);
  assert.equal(found.find((x) => x.key === "food" && x.namespace[1] === "Alice_1").value.text, "Alice now prefers tacos", "a search answers the newest value");
  const aliceFood = await store.search(["users", "Alice_1"], { query: "food", filter: { kind: "food" } });
  assert.deepEqual(aliceFood.map((x) => x.value.text), ["Alice now prefers tacos"]);
  const listed = await store.search(["users"], { limit: 2 });
  assert.equal(listed.length, 2);
  assert.equal(listed[0].value.text, "Alice now prefers tacos", "without a query, newest first");
  assert.deepEqual((await store.search(["users"], { filter: { rating: { $gte: 5 } } })).map((x) => x.key), ["Editor_Choice"]);

  assert.deepEqual(await store.listNamespaces(), [["docs"], alice, bob]);
  assert.deepEqual(await store.listNamespaces({ prefix: ["users"], maxDepth: 2 }), [["users", "Alice_1"], ["users", "bob"]]);
  assert.deepEqual(await store.listNamespaces({ suffix: ["memories"], limit: 1, offset: 1 }), [bob]);

  await store.delete(alice, "food");
  assert.equal(await store.get(alice, "food"), null);
  assert.deepEqual((await store.search(alice)).map((x) => x.key), ["Editor_Choice"]);
  assert.ok((await store.search(alice, { query: "Alice now prefers tacos" })).every((x) => x.key !== "food"), "a deleted item is not found");
  await store.delete(alice, "never-stored"); // deleting nothing is fine
});

test("store: an item too long is refused naming the field; a secret in a value is stored redacted", async () => {
  const store = new RecollectStore(clientFor(server, "lg-limits"));
  await assert.rejects(store.put(["a"], "big", { text: "x ".repeat(5000) }), (e) => e instanceof InvalidRequestError && e.status === 400 && e.field === "memory.content");
  assert.equal(await store.get(["a"], "big"), null);
  await store.put(["a"], "tok", { text: "my github token is ghp_16C7e42F292c6912E7710c838347Ae178B4a" });
  const got = await store.get(["a"], "tok");
  assert.deepEqual(Object.keys(got).sort(), ["createdAt", "key", "namespace", "updatedAt", "value"]);
  assert.equal(got.value.text, "my github token is [redacted:github-token]");
});

test("store: a graph's nodes write and search it through the runtime", async () => {
  const rc = clientFor(server, "lg-graph");
  const State = Annotation.Root({ user: Annotation(), said: Annotation(), recalled: Annotation() });
  const graph = new StateGraph(State)
    .addNode("remember", async (state, config) => {
      await config.store.put(["memories", state.user], "pref-1", { text: state.said });
      return {};
    })
    .addNode("recall", async (state, config) => {
      const items = await config.store.search(["memories", state.user], { query: "how to indent?" });
      return { recalled: items.map((x) => x.value.text) };
    })
    .addEdge(START, "remember")
    .addEdge("remember", "recall")
    .addEdge("recall", END)
    .compile({ store: new RecollectStore(rc, { namespace: "graph" }) });
  const out = await graph.invoke({ user: "carol", said: "Carol indents with tabs" });
  assert.deepEqual(out.recalled, ["Carol indents with tabs"]);
  const stored = await rc.listMemories({ namespace: "graph" });
  assert.equal(stored.memories.length, 1);
  assert.deepEqual(JSON.parse(stored.memories[0].content).langgraph, { namespace: ["memories", "carol"], key: "pref-1" });
});

test("chat history: RunnableWithMessageHistory publishes each exchange as turns; clear ends the session", async () => {
  const rc = clientFor(server, "lc-history");
  const histories = new Map();
  const historyFor = (sessionId) => {
    if (!histories.has(sessionId)) histories.set(sessionId, new RecollectChatMessageHistory(rc, { sessionId, subject: "dave", userName: "Dave" }));
    return histories.get(sessionId);
  };
  const prompt = ChatPromptTemplate.fromMessages([["system", "You are helpful."], new MessagesPlaceholder("history"), ["human", "{input}"]]);
  const chain = new RunnableWithMessageHistory({
    runnable: prompt.pipe(new FakeListChatModel({ responses: ["Noted: tabs.", "You use tabs."] })),
    getMessageHistory: historyFor,
    inputMessagesKey: "input",
    historyMessagesKey: "history",
  });
  const config = { configurable: { sessionId: "lc-1" } };
  assert.equal((await chain.invoke({ input: "I always indent with tabs" }, config)).content, "Noted: tabs.");
  assert.equal((await chain.invoke({ input: "How do I indent?" }, config)).content, "You use tabs.");
  const msgs = await historyFor("lc-1").getMessages();
  assert.deepEqual(msgs.map((m) => m.getType()), ["human", "ai", "human", "ai"]);
  assert.ok(msgs.every((m) => m.id), "every published message has its turn id");
  assert.deepEqual((await transcript(rc, "lc-1", 4)).sort(), ["Dave: How do I indent?", "Dave: I always indent with tabs", "assistant: Noted: tabs.", "assistant: You use tabs."].sort());

  // A resend of the same messages is the same turns (their ids).
  const again = new RecollectChatMessageHistory(rc, { sessionId: "lc-1", userName: "Dave" });
  await again.addMessages(msgs);
  assert.equal((await transcript(rc, "lc-1", 4)).length, 4);

  await historyFor("lc-1").clear();
  assert.deepEqual(await historyFor("lc-1").getMessages(), []);

  // An explicit history keeps the messages; tool-call-only messages publish nothing.
  const h = new RecollectChatMessageHistory(rc, { sessionId: "lc-2" });
  await h.addMessages([new HumanMessage("hello there"), new AIMessage({ content: "", tool_calls: [{ id: "c1", name: "x", args: {} }] })]);
  assert.equal((await h.getMessages()).length, 2);
  assert.deepEqual(await transcript(rc, "lc-2", 1), ["user: hello there"]);
});

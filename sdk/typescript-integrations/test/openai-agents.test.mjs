// The OpenAI Agents SDK adapter with the real @openai/agents runner
// (Agent, run, its tool() and Session interface; the model is a scripted
// implementation of the SDK's Model interface: no network) against a real
// `recollect run`.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { Agent, run, Usage, setTracingDisabled } from "@openai/agents";

import { recollectAgentTools, RecollectSession } from "../dist/openai-agents.js";
import { startServer, clientFor, transcript } from "./helpers.mjs";

setTracingDisabled(true); // no trace export: no network

let server;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server?.stop();
});

/** A Model that answers with the given outputs in turn, recording requests. */
class ScriptedModel {
  constructor(outputs) {
    this.outputs = outputs;
    this.requests = [];
  }
  async getResponse(request) {
    this.requests.push(request);
    const output = this.outputs.shift();
    if (!output) throw new Error("the script is over");
    return { usage: new Usage(), output, responseId: `resp-${this.requests.length}` };
  }
  async *getStreamedResponse() {
    throw new Error("not scripted");
  }
}

const say = (text, n) => [{ type: "message", id: `msg-${n}`, role: "assistant", status: "completed", content: [{ type: "output_text", text }] }];
const callTool = (name, args, n) => [{ type: "function_call", id: `fc-${n}`, callId: `call-${n}`, name, arguments: JSON.stringify(args), status: "completed" }];

test("remember and recall tools, called by an agent's run", async () => {
  const rc = clientFor(server, "oa-tools");
  const model = new ScriptedModel([
    callTool("remember", { content: "Erin's team deploys to the staging cluster first", key: "deploy/target" }, 1),
    say("Noted.", 2),
    callTool("recall", { query: "where does the team deploy?" }, 3),
    say("To staging first.", 4),
  ]);
  const agent = new Agent({ name: "assistant", instructions: "Use memory.", model, tools: recollectAgentTools(rc, { subject: "erin" }) });
  const r1 = await run(agent, "Remember that we deploy to staging first");
  assert.equal(r1.finalOutput, "Noted.");
  const stored = JSON.parse(r1.newItems.find((x) => x.type === "tool_call_output_item").output);
  assert.equal(stored.stored, true);
  const m = await rc.getMemory(stored.id);
  assert.deepEqual([m.content, m.key, m.subject], ["Erin's team deploys to the staging cluster first", "deploy/target", "erin"]);

  const r2 = await run(agent, "Where do we deploy?");
  assert.equal(r2.finalOutput, "To staging first.");
  const found = JSON.parse(r2.newItems.find((x) => x.type === "tool_call_output_item").output);
  assert.ok(found.some((x) => x.id === m.id), JSON.stringify(found));
  // The model's next request carried the tool's answer.
  assert.match(JSON.stringify(model.requests[3].input), /staging cluster/);
});

test("session: a run's user and assistant messages are published as turns; clearSession ends the session", async () => {
  const rc = clientFor(server, "oa-session");
  const model = new ScriptedModel([say("Tabs it is.", 1), say("You indent with tabs.", 2)]);
  const agent = new Agent({ name: "assistant", instructions: "Be brief.", model });
  const session = new RecollectSession(rc, { sessionId: "oa-1", subject: "frank", userName: "Frank" });
  assert.equal((await run(agent, "I indent with tabs", { session })).finalOutput, "Tabs it is.");
  assert.equal((await run(agent, "How do I indent?", { session })).finalOutput, "You indent with tabs.");
  // The second run saw the first exchange through the session.
  assert.match(JSON.stringify(model.requests[1].input), /I indent with tabs/);
  assert.equal((await session.getItems()).length, 4);
  assert.deepEqual((await transcript(rc, "oa-1", 4)).sort(), ["Frank: I indent with tabs", "assistant: Tabs it is.", "Frank: How do I indent?", "assistant: You indent with tabs."].sort());
  await session.clearSession();
  assert.deepEqual(await session.getItems(), []);
});

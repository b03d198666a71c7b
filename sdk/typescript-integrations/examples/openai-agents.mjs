// The OpenAI Agents SDK with Recollect: memory tools and a session that
// publishes the conversation. Run against a server (make run):
// node examples/openai-agents.mjs
// The model is a scripted implementation of the SDK's Model interface so
// that this runs without a key; drop `model` to use OpenAI's default.

import { Agent, run, Usage, setTracingDisabled } from "@openai/agents";
import { Recollect } from "@recollect/client";
import { recollectAgentTools, RecollectSession } from "@recollect/integrations/openai-agents";

setTracingDisabled(true);
const rc = new Recollect({
  baseURL: process.env.RECOLLECT_URL ?? "http://127.0.0.1:7700",
  apiKey: process.env.RECOLLECT_API_KEY,
  tenant: process.env.RECOLLECT_TENANT ?? "example",
});

const script = [
  [{ type: "function_call", callId: "c1", name: "remember", arguments: JSON.stringify({ content: "Hana's deploys need a change ticket", key: "deploy/ticket" }), status: "completed" }],
  [{ type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: "Got it: deploys need a change ticket." }] }],
];
const model = {
  async getResponse() {
    return { usage: new Usage(), output: script.shift() ?? [] };
  },
  async *getStreamedResponse() {
    throw new Error("not scripted");
  },
};

const agent = new Agent({ name: "assistant", instructions: "Remember what matters.", model, tools: recollectAgentTools(rc, { subject: "hana" }) });
const session = new RecollectSession(rc, { sessionId: "example-agents", subject: "hana", userName: "Hana" });
const result = await run(agent, "Every deploy needs a change ticket.", { session });
console.log("assistant:", result.finalOutput);
const found = await rc.recall("what does a deploy need?", { filters: { subjects: ["hana"] } });
console.log("recalled:", found.memories.map((x) => x.memory.content));

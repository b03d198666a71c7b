// The Vercel AI SDK with Recollect: memory tools and the context middleware.
// Run against a server (make run): node examples/ai-sdk.mjs
// The model is the SDK's mock so that this runs without a provider key;
// put a real one in its place, e.g. openai("gpt-4o") from @ai-sdk/openai.

import { generateText, wrapLanguageModel, stepCountIs } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { Recollect } from "@recollect/client";
import { recollectTools, recollectMiddleware } from "@recollect/integrations/ai-sdk";

const rc = new Recollect({
  baseURL: process.env.RECOLLECT_URL ?? "http://127.0.0.1:7700",
  apiKey: process.env.RECOLLECT_API_KEY,
  tenant: process.env.RECOLLECT_TENANT ?? "example",
});

const usage = { inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 0, text: 0, reasoning: 0 } };
const answer = (content, finish = "stop") => ({ content, finishReason: { unified: finish, raw: finish }, usage, warnings: [] });
const model = new MockLanguageModelV3({
  doGenerate: [
    answer([{ type: "tool-call", toolCallId: "c1", toolName: "remember", input: JSON.stringify({ content: "The user's favourite editor is Helix", key: "user/editor" }) }], "tool-calls"),
    answer([{ type: "text", text: "I'll remember that you use Helix." }]),
    answer([{ type: "text", text: "You use Helix." }]),
  ],
});

// 1. Tools: the model decides what to remember and what to look up.
const first = await generateText({ model, tools: recollectTools(rc, { subject: "user" }), stopWhen: stepCountIs(3), prompt: "I use Helix as my editor." });
console.log("assistant:", first.text);

// 2. Middleware: every call gets the memory context; every exchange is published.
const withMemory = wrapLanguageModel({ model, middleware: recollectMiddleware(rc, { sessionId: "example-ai-sdk", subject: "user" }) });
const second = await generateText({ model: withMemory, prompt: "Which editor do I use?" });
console.log("assistant:", second.text);
const system = model.doGenerateCalls.at(-1).prompt.find((m) => m.role === "system");
console.log("context given to the model:\n" + (system?.content ?? "(none)"));

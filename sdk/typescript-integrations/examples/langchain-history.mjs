// LangChain.js: a chat history that publishes every turn to Recollect.
// Run against a server (make run): node examples/langchain-history.mjs
// The model is LangChain's fake so that this runs without a provider key;
// put a real chat model in its place.

import { RunnableWithMessageHistory } from "@langchain/core/runnables";
import { ChatPromptTemplate, MessagesPlaceholder } from "@langchain/core/prompts";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { Recollect } from "@recollect/client";
import { RecollectChatMessageHistory } from "@recollect/integrations/langchain";

const rc = new Recollect({
  baseURL: process.env.RECOLLECT_URL ?? "http://127.0.0.1:7700",
  apiKey: process.env.RECOLLECT_API_KEY,
  tenant: process.env.RECOLLECT_TENANT ?? "example",
});

const histories = new Map();
const chain = new RunnableWithMessageHistory({
  runnable: ChatPromptTemplate.fromMessages([["system", "You are helpful."], new MessagesPlaceholder("history"), ["human", "{input}"]])
    .pipe(new FakeListChatModel({ responses: ["Noted: you prefer dark mode."] })),
  getMessageHistory: (sessionId) => {
    if (!histories.has(sessionId)) histories.set(sessionId, new RecollectChatMessageHistory(rc, { sessionId, subject: "grace", userName: "Grace" }));
    return histories.get(sessionId);
  },
  inputMessagesKey: "input",
  historyMessagesKey: "history",
});

const reply = await chain.invoke({ input: "I prefer dark mode in every editor" }, { configurable: { sessionId: "example-langchain" } });
console.log("assistant:", reply.content);
await histories.get("example-langchain").clear(); // the session ends; Recollect keeps what lasts
console.log("published the turns of session example-langchain");

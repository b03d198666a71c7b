// LangGraph.js with Recollect as the graph's long-term store.
// Run against a server (make run): node examples/langgraph.mjs

import { StateGraph, Annotation, START, END } from "@langchain/langgraph";
import { Recollect } from "@recollect/client";
import { RecollectStore } from "@recollect/integrations/langgraph";

const rc = new Recollect({
  baseURL: process.env.RECOLLECT_URL ?? "http://127.0.0.1:7700",
  apiKey: process.env.RECOLLECT_API_KEY,
  tenant: process.env.RECOLLECT_TENANT ?? "example",
});
const store = new RecollectStore(rc, { namespace: "example-langgraph" });

const State = Annotation.Root({ user: Annotation(), message: Annotation(), memories: Annotation() });
const graph = new StateGraph(State)
  .addNode("remember", async (state, config) => {
    await config.store.put(["memories", state.user], "preference", { text: state.message });
    return {};
  })
  .addNode("recall", async (state, config) => {
    const items = await config.store.search(["memories", state.user], { query: "how does the user indent code?" });
    return { memories: items.map((x) => x.value.text) };
  })
  .addEdge(START, "remember")
  .addEdge("remember", "recall")
  .addEdge("recall", END)
  .compile({ store });

const out = await graph.invoke({ user: "ada", message: "Ada indents with tabs" });
console.log("recalled:", out.memories);
console.log("namespaces:", await store.listNamespaces({ prefix: ["memories"] }));

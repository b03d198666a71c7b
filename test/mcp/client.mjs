// Drives Recollect's MCP server at the URL given as the only argument with
// the official TypeScript SDK: lists the tools, learns a memory, recalls it
// (polling until it is stored), reads the stats and forgets the memory. The
// SDK validates every structured result against the tool's output schema.
// Prints one JSON summary line on success; any failure exits 1.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const want = ["memory_consolidate", "memory_episode", "memory_forget", "memory_learn", "memory_procedure",
  "memory_recall", "memory_resume", "memory_stats", "memory_topic"];

function check(cond, msg) {
  if (!cond) throw new Error(msg);
}

function text(result) {
  return (result.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("\n");
}

async function call(client, name, args) {
  const result = await client.callTool({ name, arguments: args });
  check(!result.isError, `${name} failed: ${text(result)}`);
  check(result.structuredContent && typeof result.structuredContent === "object", `${name} has no structured content`);
  return result;
}

async function main() {
  const url = process.argv[2];
  check(url, "usage: node client.mjs <mcp endpoint URL>");
  const client = new Client({ name: "recollect-node-test", version: "0.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));

  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name).sort();
  check(JSON.stringify(names) === JSON.stringify(want), `tools ${names}`);
  for (const t of tools) {
    check(t.inputSchema?.type === "object" && t.outputSchema?.type === "object", `${t.name} lacks input or output schema`);
  }

  const learned = await call(client, "memory_learn", {
    content: "The release train leaves every Tuesday at noon", type: "decision", key: "release/schedule", tags: ["release"],
  });
  const id = learned.structuredContent.memory_id;
  check(typeof id === "string" && id.length > 0, `learn answered ${JSON.stringify(learned.structuredContent)}`);

  const deadline = Date.now() + 60_000;
  let recalled;
  for (;;) {
    const r = await call(client, "memory_recall", { query: "when does the release train leave?" });
    if (r.structuredContent.memories.some((m) => m.id === id)) {
      recalled = r;
      break;
    }
    check(Date.now() < deadline, `memory ${id} not recalled within 60s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  check(recalled.structuredContent.context.includes("Tuesday"), `context block lacks the memory: ${recalled.structuredContent.context}`);
  check(text(recalled).includes(id), "recall text lacks the memory id");

  const stats = await call(client, "memory_stats", {});
  check(stats.structuredContent.memories === 1, `stats ${JSON.stringify(stats.structuredContent)}`);

  const forgot = await call(client, "memory_forget", { id });
  check(JSON.stringify(forgot.structuredContent.deleted) === JSON.stringify([id]), `forget ${JSON.stringify(forgot.structuredContent)}`);

  const bad = await client.callTool({ name: "memory_learn", arguments: { type: "fact" } });
  check(bad.isError === true, "memory_learn without content succeeded");

  await client.close();
  console.log(JSON.stringify({ ok: true, tools: names.length, memory_id: id, tenant: stats.structuredContent.tenant }));
}

main().catch((err) => {
  console.error(err?.stack ?? String(err));
  process.exit(1);
});

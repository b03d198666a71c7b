// Every example runs to the end against a real `recollect run`.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { fileURLToPath } from "node:url";
import { resolve } from "node:path";

import { startServer } from "./helpers.mjs";
import { KEYS } from "../../typescript/test/server.mjs";

const run = promisify(execFile);
const dir = resolve(fileURLToPath(import.meta.url), "../..");

let server;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server?.stop();
});

const example = async (name) => {
  const { stdout } = await run(process.execPath, [`examples/${name}.mjs`], {
    cwd: dir,
    env: { ...process.env, RECOLLECT_URL: server.url, RECOLLECT_API_KEY: KEYS.admin, RECOLLECT_TENANT: `example-${name}` },
  });
  return stdout;
};

test("examples/ai-sdk.mjs", async () => {
  const out = await example("ai-sdk");
  assert.match(out, /assistant: You use Helix\./);
  assert.match(out, /context given to the model:\n## Recalled Context[\s\S]*Helix/);
});

test("examples/langgraph.mjs", async () => {
  const out = await example("langgraph");
  assert.match(out, /recalled: \[ 'Ada indents with tabs' \]/);
  assert.match(out, /namespaces: \[ \[ 'memories', 'ada' \] \]/);
});

test("examples/langchain-history.mjs", async () => {
  assert.match(await example("langchain-history"), /assistant: Noted: you prefer dark mode\./);
});

test("examples/openai-agents.mjs", async () => {
  const out = await example("openai-agents");
  assert.match(out, /assistant: Got it: deploys need a change ticket\./);
  assert.match(out, /recalled: \[[^\]]*change ticket/);
});

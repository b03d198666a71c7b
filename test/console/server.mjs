// Starts one real `recollect run` for the console test: a free loopback
// port, a temporary data dir, an admin key and two tenant keys. The binary
// is $RECOLLECT_BIN (make builds it), else built from this repository.

import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync, openSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { setTimeout as sleep } from "node:timers/promises";

const repo = resolve(fileURLToPath(import.meta.url), "../../..");

export const WAIT_MS = 120_000; // a loaded 2-core machine is slow, not broken

export const KEYS = {
  acme: "console-acme-key-0123456789",
  globex: "console-globex-key-0123456789",
  admin: "console-admin-key-0123456789",
};

const keysYAML = `
- {key: ${KEYS.acme}, tenant: acme, rate_limit: 0}
- {key: ${KEYS.globex}, tenant: globex, rate_limit: 0}
- {key: ${KEYS.admin}, scopes: [admin], rate_limit: 0}
`;

function freePort() {
  return new Promise((res, rej) => {
    const s = createServer();
    s.once("error", rej);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => res(port));
    });
  });
}

async function ready(url) {
  try {
    const r = await fetch(url + "/readyz");
    await r.body?.cancel();
    return r.status === 200;
  } catch {
    return false;
  }
}

/** Starts the server; resolves to { url, stop, log }. */
export async function startServer() {
  const tmp = mkdtempSync(join(tmpdir(), "recollect-console-"));
  let bin = process.env.RECOLLECT_BIN;
  if (!bin) {
    bin = join(tmp, "recollect");
    execFileSync("go", ["build", "-o", bin, "./cmd/recollect"], { cwd: repo, stdio: "inherit" });
  }
  writeFileSync(join(tmp, "keys.yaml"), keysYAML);
  const logPath = join(tmp, "server.log");
  for (let tries = 0; tries < 3; tries++) {
    const port = await freePort();
    const log = openSync(logPath, "a");
    const proc = spawn(bin, ["run", "--data-dir", join(tmp, "data"), "--http-addr", `127.0.0.1:${port}`,
      "--api-keys-file", join(tmp, "keys.yaml"), "--topiary-debounce", "200ms", "--log-format", "json"],
      { stdio: ["ignore", log, log] });
    let exited = false;
    proc.once("exit", () => { exited = true; });
    const url = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + WAIT_MS;
    while (!exited && Date.now() < deadline && !(await ready(url))) await sleep(100);
    if (exited) continue; // the port was taken meanwhile: try another
    if (!(await ready(url))) {
      proc.kill("SIGKILL");
      throw new Error("recollect run not ready: " + readFileSync(logPath, "utf8").slice(-2000));
    }
    const stop = async () => {
      if (!exited) {
        const gone = new Promise((r) => proc.once("exit", r));
        proc.kill("SIGTERM");
        const t = setTimeout(() => proc.kill("SIGKILL"), 30_000);
        await gone;
        clearTimeout(t);
      }
      rmSync(tmp, { recursive: true, force: true });
    };
    return { url, stop, log: () => readFileSync(logPath, "utf8") };
  }
  throw new Error("recollect run did not start: " + readFileSync(logPath, "utf8").slice(-2000));
}

/** Calls the API with a key; resolves to the decoded JSON answer. */
export async function api(url, key, method, path, body) {
  const r = await fetch(url + path, {
    method,
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await r.text();
  if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

/** Polls cond until it resolves; its value, or the last error. */
export async function eventually(what, cond, timeoutMs = WAIT_MS) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await cond();
    } catch (e) {
      if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms: ${e?.message ?? e}`);
    }
    await sleep(200);
  }
}

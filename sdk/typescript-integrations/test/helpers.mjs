// Shared by the adapters' tests: one real `recollect run` per test file
// (the TypeScript SDK's helper) and a client on a tenant of its own.

import { Recollect } from "@recollect/client";
import { startServer, eventually, KEYS } from "../../typescript/test/server.mjs";

export { startServer, eventually };

/** A client of the server on tenant (the admin key names any tenant). */
export const clientFor = (server, tenant, opts = {}) => new Recollect({ baseURL: server.url, apiKey: KEYS.admin, tenant, ...opts });

/** Polls until the session's turns are stored as transcript memories; their contents. */
export async function transcript(rc, sessionId, want) {
  return eventually(`${want} turns of session ${sessionId} stored`, async () => {
    const got = [];
    for await (const m of rc.memories({ limit: 1000 })) {
      if (m.session === sessionId && m.tags?.includes("transcript")) got.push(m);
    }
    if (got.length < want) throw new Error(`${got.length} turns`);
    return got.sort((a, b) => a.created_at.localeCompare(b.created_at) || a.content.localeCompare(b.content)).map((m) => m.content);
  });
}

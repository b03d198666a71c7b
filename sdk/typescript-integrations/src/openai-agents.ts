// Recollect for the OpenAI Agents SDK (@openai/agents): remember and
// recall as function tools, and a Session that publishes the user's and
// the agent's messages as turns of the session (clearSession ends it). The
// items themselves are kept by another session (a MemorySession unless one
// is given): Recollect is the long-term memory, not the transcript store.

import { tool, MemorySession } from "@openai/agents";
import type { Session, AgentInputItem } from "@openai/agents";
import { z } from "zod";
import type { Recollect, Event, Message } from "@recollect/client";

export interface AgentToolsOptions {
  /** Memories stored by remember go to this subject (e.g. the user). */
  subject?: string;
  /** Results recall returns (default 5). */
  k?: number;
}

/** [remember, recall]: pass them as an Agent's tools. */
export function recollectAgentTools(client: Recollect, opts: AgentToolsOptions = {}) {
  const remember = tool({
    name: "remember",
    description: "Store a fact, preference or decision in long-term memory so it can be recalled in later conversations.",
    parameters: z.object({
      content: z.string().describe("The statement to remember, self-contained"),
      key: z.string().nullable().describe("A stable name for the fact (e.g. user/editor), or null; a newer statement under a key supersedes the older"),
    }),
    execute: async ({ content, key }) => {
      const r = await client.learn({ content, key: key ?? undefined, subject: opts.subject, wait: true });
      return JSON.stringify({ id: r.memory_id, stored: r.stored ?? false, merged: r.merged ?? false });
    },
  });
  const recall = tool({
    name: "recall",
    description: "Search long-term memory for what is known about a question.",
    parameters: z.object({ query: z.string().describe("What to look up") }),
    execute: async ({ query }) => {
      const r = await client.recall(query, { k: opts.k ?? 5 });
      return JSON.stringify(r.memories.map((x) => ({ id: x.memory.id, content: x.memory.content, score: x.score })));
    },
  });
  return [remember, recall];
}

export interface RecollectSessionOptions {
  sessionId: string;
  /** Who the user is (each turn's subject). */
  subject?: string;
  /** The user's display name on their turns. */
  userName?: string;
  /** The agent's name (an event's agent). */
  agent?: string;
  /** Keeps the items; default a MemorySession with sessionId. */
  session?: Session;
}

/** The text of a user, assistant or system message item; "" for any other
 * item (tool calls and their outputs, reasoning). */
export function itemText(item: AgentInputItem): { role: string; text: string } | undefined {
  const m = item as { type?: string; role?: string; content?: unknown };
  if ((m.type !== undefined && m.type !== "message") || !m.role) return undefined;
  let text = "";
  if (typeof m.content === "string") text = m.content;
  else if (Array.isArray(m.content)) {
    text = m.content
      .flatMap((p: { type?: string; text?: string; refusal?: string }) => (p.type === "input_text" || p.type === "output_text" ? [p.text ?? ""] : p.type === "refusal" ? [p.refusal ?? ""] : []))
      .join("\n");
  }
  return text.trim() ? { role: m.role, text } : undefined;
}

export class RecollectSession implements Session {
  readonly client: Recollect;
  readonly opts: RecollectSessionOptions;
  private readonly inner: Session;

  constructor(client: Recollect, opts: RecollectSessionOptions) {
    this.client = client;
    this.opts = opts;
    this.inner = opts.session ?? new MemorySession({ sessionId: opts.sessionId });
  }

  getSessionId(): Promise<string> {
    return Promise.resolve(this.opts.sessionId);
  }

  getItems(limit?: number): Promise<AgentInputItem[]> {
    return this.inner.getItems(limit);
  }

  /** Publishes the message items as turns (one request), then keeps all
   * the items. An item with an id is published under it, so a resend is
   * the same turn. */
  async addItems(items: AgentInputItem[]): Promise<void> {
    const events: Event[] = [];
    for (const item of items) {
      const t = itemText(item);
      if (!t) continue;
      const id = (item as { id?: string }).id;
      events.push({
        type: "turn",
        id,
        session_id: this.opts.sessionId,
        subject: this.opts.subject,
        agent: this.opts.agent,
        role: t.role,
        name: t.role === "user" ? this.opts.userName : undefined,
        content: t.text,
      });
    }
    if (events.length > 0) await this.client.ingest(events);
    await this.inner.addItems(items);
  }

  popItem(): Promise<AgentInputItem | undefined> {
    return this.inner.popItem();
  }

  /** Ends the session in Recollect (a session_end event with its
   * messages), then clears the items. */
  async clearSession(): Promise<void> {
    const messages: Message[] = (await this.inner.getItems()).flatMap((item) => {
      const t = itemText(item);
      return t ? [{ role: t.role, content: t.text, id: (item as { id?: string }).id }] : [];
    });
    await this.client.ingest([{ type: "session_end", session_id: this.opts.sessionId, subject: this.opts.subject, agent: this.opts.agent, messages }]);
    await this.inner.clearSession();
  }
}

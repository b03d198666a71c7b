// A LangChain.js chat-message history that publishes every message to
// Recollect as a turn of the session, and clear() as the session's end.
// The messages themselves are kept by another history (in memory unless
// one is given): Recollect is the long-term memory, not the transcript
// store.

import { BaseListChatMessageHistory, InMemoryChatMessageHistory } from "@langchain/core/chat_history";
import type { BaseMessage } from "@langchain/core/messages";
import type { Recollect, Event, Message } from "@recollect/client";

export interface RecollectChatHistoryOptions {
  sessionId: string;
  /** Who the user is (each turn's subject). */
  subject?: string;
  /** The user's display name on their turns (else a message's name). */
  userName?: string;
  /** The agent's name (an event's agent). */
  agent?: string;
  /** Keeps the messages; default an InMemoryChatMessageHistory. */
  history?: BaseListChatMessageHistory;
}

const ROLES: Record<string, string> = { human: "user", ai: "assistant", system: "system", tool: "tool", generic: "user" };

function text(m: BaseMessage): string {
  return typeof m.content === "string" ? m.content : m.text;
}

export class RecollectChatMessageHistory extends BaseListChatMessageHistory {
  lc_namespace = ["recollect", "chat_history"];
  readonly client: Recollect;
  readonly opts: RecollectChatHistoryOptions;
  private readonly inner: BaseListChatMessageHistory;

  constructor(client: Recollect, opts: RecollectChatHistoryOptions) {
    super();
    this.client = client;
    this.opts = opts;
    this.inner = opts.history ?? new InMemoryChatMessageHistory();
  }

  getMessages(): Promise<BaseMessage[]> {
    return this.inner.getMessages();
  }

  async addMessage(message: BaseMessage): Promise<void> {
    await this.addMessages([message]);
  }

  /** Publishes the messages as turns (one request), then keeps them. A
   * message without an id gets one, so a resend is the same turn. */
  override async addMessages(messages: BaseMessage[]): Promise<void> {
    const events: Event[] = [];
    for (const m of messages) {
      m.id ??= globalThis.crypto.randomUUID();
      const content = text(m);
      if (!content.trim()) continue; // a tool call without text: nothing to remember
      const role = ROLES[m.getType()] ?? "user";
      events.push({
        type: "turn",
        id: m.id,
        session_id: this.opts.sessionId,
        subject: this.opts.subject,
        agent: this.opts.agent,
        role,
        name: role === "user" ? this.opts.userName ?? m.name : m.name,
        content,
      });
    }
    if (events.length > 0) await this.client.ingest(events);
    await this.inner.addMessages(messages);
  }

  /** Ends the session in Recollect (a session_end event with the messages,
   * each stored once under its turn's id), then clears the history. */
  override async clear(): Promise<void> {
    const messages: Message[] = (await this.inner.getMessages())
      .filter((m) => text(m).trim())
      .map((m) => ({ id: m.id, role: ROLES[m.getType()] ?? "user", content: text(m), name: m.name }));
    await this.client.ingest([{ type: "session_end", session_id: this.opts.sessionId, subject: this.opts.subject, agent: this.opts.agent, messages }]);
    await this.inner.clear();
  }
}

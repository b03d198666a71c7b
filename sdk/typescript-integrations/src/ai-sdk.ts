// Recollect for the Vercel AI SDK (`ai`): memory tools built with tool()
// and a language-model middleware that puts /v1/context into the prompt
// and publishes each exchange as turn events.

import { tool } from "ai";
import type { LanguageModelMiddleware } from "ai";
import { z } from "zod";
import type { Recollect, Event } from "@recollect/client";

type CallOptions = Parameters<NonNullable<LanguageModelMiddleware["transformParams"]>>[0]["params"];
type Prompt = CallOptions["prompt"];
type GenerateResult = Awaited<ReturnType<NonNullable<LanguageModelMiddleware["wrapGenerate"]>>>;

export interface MemoryToolsOptions {
  /** Memories stored by remember go to this subject (e.g. the user). */
  subject?: string;
  /** Results recall returns (default 5). */
  k?: number;
}

/** The remember and recall tools: pass them to generateText / streamText
 * as `tools: recollectTools(client)`. */
export function recollectTools(client: Recollect, opts: MemoryToolsOptions = {}) {
  return {
    remember: tool({
      description: "Store a fact, preference or decision in long-term memory so it can be recalled in later conversations.",
      inputSchema: z.object({
        content: z.string().min(1).describe("The statement to remember, self-contained"),
        key: z.string().optional().describe("A stable name for the fact (e.g. user/editor); a newer statement under a key supersedes the older"),
        tags: z.array(z.string()).optional(),
      }),
      execute: async ({ content, key, tags }) => {
        const r = await client.learn({ content, key, tags, subject: opts.subject, wait: true });
        return { id: r.memory_id, stored: r.stored ?? false, merged: r.merged ?? false };
      },
    }),
    recall: tool({
      description: "Search long-term memory for what is known about a question.",
      inputSchema: z.object({ query: z.string().min(1).describe("What to look up") }),
      execute: async ({ query }) => {
        const r = await client.recall(query, { k: opts.k ?? 5 });
        return { memories: r.memories.map((x) => ({ id: x.memory.id, content: x.memory.content, score: x.score })) };
      },
    }),
  };
}

export interface MemoryMiddlewareOptions {
  /** The conversation's id: the session of the turns and of /v1/context. */
  sessionId: string;
  /** Who the user is (a turn's subject). */
  subject?: string;
  /** The user's display name on their turns. */
  userName?: string;
  /** The agent's name (an event's agent). */
  agent?: string;
  /** Token budget of the context (the server's default when unset). */
  budget?: number;
  /** Set false to leave the prompt alone (publish turns only). */
  injectContext?: boolean;
  /** Set false to publish nothing (context only). */
  publishTurns?: boolean;
  /** Called when Recollect fails; without it the error fails the call. */
  onError?: (err: unknown, during: "context" | "publish") => void;
}

/** The text of the last user message: the query of /v1/context. */
export function lastUserText(prompt: Prompt): string {
  for (let i = prompt.length - 1; i >= 0; i--) {
    const m = prompt[i];
    if (m.role !== "user") continue;
    return m.content.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("\n").trim();
  }
  return "";
}

/** A middleware for wrapLanguageModel: before each call it asks Recollect
 * for the context of the last user message and adds it as a system
 * message; after the call it publishes the user message (when the prompt
 * ends with it, so once per tool loop) and the answer's text as turn
 * events of the session. */
export function recollectMiddleware(client: Recollect, opts: MemoryMiddlewareOptions): LanguageModelMiddleware {
  const fail = (err: unknown, during: "context" | "publish") => {
    if (!opts.onError) throw err;
    opts.onError(err, during);
  };
  const publish = async (prompt: Prompt, answer: string) => {
    if (opts.publishTurns === false) return;
    // The user's message is new only when it ends the prompt: the later
    // steps of a tool loop end with tool results and repeat it.
    const question = prompt.at(-1)?.role === "user" ? lastUserText(prompt) : "";
    const base = { type: "turn", session_id: opts.sessionId, subject: opts.subject, agent: opts.agent };
    const events: Event[] = [];
    if (question) events.push({ ...base, role: "user", name: opts.userName, content: question });
    if (answer.trim()) events.push({ ...base, role: "assistant", content: answer });
    if (events.length === 0) return;
    try {
      await client.ingest(events);
    } catch (err) {
      fail(err, "publish");
    }
  };
  return {
    specificationVersion: "v3",
    transformParams: async ({ params }) => {
      if (opts.injectContext === false) return params;
      const query = lastUserText(params.prompt);
      if (!query) return params;
      let text = "";
      try {
        text = (await client.context(query, { session_id: opts.sessionId, subject: opts.subject, budget: opts.budget })).context;
      } catch (err) {
        fail(err, "context");
      }
      if (!text.trim()) return params;
      const system = { role: "system" as const, content: text };
      // After the caller's system messages, before the conversation.
      const at = params.prompt.findIndex((m) => m.role !== "system");
      const prompt = at < 0 ? [...params.prompt, system] : [...params.prompt.slice(0, at), system, ...params.prompt.slice(at)];
      return { ...params, prompt };
    },
    wrapGenerate: async ({ doGenerate, params }) => {
      const result: GenerateResult = await doGenerate();
      const answer = result.content.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("");
      await publish(params.prompt, answer);
      return result;
    },
    wrapStream: async ({ doStream, params }) => {
      const { stream, ...rest } = await doStream();
      let answer = "";
      type Part = typeof stream extends ReadableStream<infer P> ? P : never;
      const collect = new TransformStream<Part, Part>({
        transform(part, controller) {
          if (part.type === "text-delta") answer += part.delta;
          controller.enqueue(part);
        },
        // The stream ends after the turns are published (or the error).
        async flush() {
          await publish(params.prompt, answer);
        },
      });
      return { stream: stream.pipeThrough(collect), ...rest };
    },
  };
}

// Requests and responses of the Recollect HTTP API. Field names are the
// wire's (snake_case). Request fields left undefined are not sent, so the
// server's defaults apply. Times are RFC 3339 strings as the server writes
// them (nanoseconds kept); a request's time may also be a Date.

/** A time given to a request: a Date or an RFC 3339 string. */
export type Instant = Date | string;

export type MemoryType =
  | "policy" | "workflow" | "pitfall" | "architecture" | "decision" | "preference"
  | "fact" | "entity" | "style" | "artifact" | "episode" | "procedure";
export type MemoryKind = "episodic" | "semantic" | "procedural";
export type Layer = "buffer" | "working" | "core";
export type EventType = "turn" | "compaction" | "session_end" | "memory" | "feedback";
export type Role = "user" | "assistant" | "system" | "tool";

// Conversation events (POST /v1/events).

/** One message of a compaction or session_end event. Give a message
 * streamed earlier as a turn that turn's id: it is stored once. */
export interface Message {
  role: Role | string;
  content: string;
  id?: string;
  /** The speaker's display name. */
  name?: string;
  ts?: Instant;
}

/** An explicit memory carried by a memory event. */
export interface MemoryInput {
  content: string;
  key?: string;
  domain?: string;
  type?: MemoryType | string;
  kind?: MemoryKind | string;
  importance?: number;
  tags?: string[];
  scope?: string[];
}

export interface Feedback {
  memory_id: string;
  success: boolean;
}

/** A conversation event. id is the client message id (a resent event is
 * processed once); the client fills in a missing one before the first
 * attempt. */
export interface Event {
  type: EventType | string;
  id?: string;
  tenant?: string;
  namespace?: string;
  session_id?: string;
  subject?: string;
  channel?: string;
  agent?: string;
  role?: Role | string;
  /** The speaker's display name on a turn. */
  name?: string;
  content?: string;
  ts?: Instant;
  messages?: Message[];
  memory?: MemoryInput;
  feedback?: Feedback;
}

/** The answer of POST /v1/events, summed over the batches sent. */
export interface EventsResponse {
  accepted: number;
  ids: string[];
}

// Memories.

export interface Memory {
  id: string;
  tenant: string;
  namespace: string;
  subject?: string;
  channel?: string;
  session?: string;
  key?: string;
  content: string;
  domain: string;
  type: MemoryType | string;
  kind: MemoryKind | string;
  layer: Layer | string;
  importance: number;
  confidence: number;
  access_count: number;
  repetition_count: number;
  success_count: number;
  tags?: string[];
  scope?: string[];
  evidence?: string;
  source_ids?: string[];
  source: string;
  created_at: string;
  modified_at: string;
  last_accessed?: string;
  /** Valid time's start: when the statement became true in the world. */
  valid_from?: string;
  /** Valid time's end, on servers with bitemporal memories. */
  valid_until?: string;
  /** Record time's end: when Recollect learnt otherwise. */
  invalid_at?: string;
  archived?: boolean;
  embedding_model?: string;
  superseded_by?: string;
  quarantined?: string;
  derived_from?: string[];
  epoch?: number;
  vector?: number[];
}

/** The body of POST /v1/memories. With wait, the answer carries the stored
 * memory (timeout is a Go duration such as "10s"). */
export interface LearnRequest extends MemoryInput {
  id?: string;
  tenant?: string;
  namespace?: string;
  subject?: string;
  channel?: string;
  session_id?: string;
  wait?: boolean;
  timeout?: string;
}

export interface LearnResponse {
  id: string;
  memory_id: string;
  stored?: boolean;
  merged?: boolean;
  memory?: Memory;
}

export interface ListOptions {
  tenant?: string;
  /** Empty lists every namespace (the client's default is not applied). */
  namespace?: string;
  domain?: string;
  /** 1-1000; the server's default is 100. */
  limit?: number;
  /** The previous page's next. */
  after?: string;
  archived?: boolean;
  superseded?: boolean;
}

export interface ListResponse {
  memories: Memory[];
  next?: string;
}

export interface ErasurePlace {
  place: string;
  state: "pending" | "erased" | "failed" | "not_erased" | string;
  erased: number;
  note?: string;
}

/** What a subject purge erased, per place; state is running until every
 * place is done. */
export interface ErasureReceipt {
  id: string;
  tenant: string;
  state: "running" | "complete" | "incomplete" | string;
  started: string;
  finished?: string;
  places: ErasurePlace[];
}

/** The answer of a subject purge: the count and, from a server that keeps
 * them, the erasure receipt. */
export interface DeleteResponse {
  deleted: number;
  receipt?: ErasureReceipt;
}

export interface ForgetRequest {
  id?: string;
  key?: string;
  subject?: string;
  tenant?: string;
  namespace?: string;
}

export interface ForgetResponse {
  deleted: string[];
  count: number;
  receipt?: ErasureReceipt;
}

export interface HistoryVersion {
  id: string;
  content: string;
  key?: string;
  layer: string;
  valid_from?: string;
  valid_until?: string;
  invalid_at?: string;
  superseded_by?: string;
  derived_from?: string[];
  archived?: boolean;
  created_at: string;
}

export interface History {
  id: string;
  tenant: string;
  namespace: string;
  source: string;
  origin: string;
  source_ids: string[];
  created_at: string;
  modified_at: string;
  last_accessed?: string;
  valid_from?: string;
  valid_until?: string;
  invalid_at?: string;
  layer: string;
  archived?: boolean;
  repetition_count: number;
  access_count: number;
  success_count: number;
  superseded_by?: string;
  derived_from: string[];
  chain: HistoryVersion[];
  chain_truncated?: boolean;
}

// Recall.

export interface RecallFilters {
  domains?: string[];
  types?: (MemoryType | string)[];
  kinds?: (MemoryKind | string)[];
  layers?: (Layer | string)[];
  tags?: string[];
  subjects?: string[];
  sessions?: string[];
  after?: Instant;
  before?: Instant;
  include_archived?: boolean;
  include_superseded?: boolean;
  include_quarantined?: boolean;
  file_path?: string;
  /** "query": filter by the query's time expressions. */
  time?: "" | "query";
}

/** The body of POST /v1/recall. as_of asks what was true then (valid
 * time), known_at what Recollect knew then (record time). */
export interface RecallRequest {
  query: string;
  tenant?: string;
  namespace?: string;
  key?: string;
  k?: number;
  per_domain?: number;
  channel?: string;
  filters?: RecallFilters;
  dry?: boolean;
  expand?: boolean;
  rerank?: boolean;
  as_of?: Instant;
  known_at?: Instant;
}

export interface RecallStep {
  applied: boolean;
  trigger: string;
  reason?: string;
  queries?: string[];
  reranked?: number;
}

export interface RecallResult {
  memory: Memory;
  score: number;
  relevance: number;
  semantic: number;
  lexical: number;
  importance: number;
  recency: number;
  layer_bonus: number;
  confidence_factor: number;
  channel_factor: number;
  dampening: number;
  information: number;
  expanded?: boolean;
  expanded_query?: string;
  rerank?: number;
  fused_score?: number;
  key_match?: boolean;
  time_factor: number;
  time_match?: number;
  time_window?: string;
  mentions_time?: boolean;
  outranked_by?: string;
  speaker_factor?: number;
  name_factor?: number;
  error_factor?: number;
  session_factor?: number;
}

export interface TimeWindow {
  from?: string;
  to?: string;
  confidence: number;
  text: string;
}

export interface RecallTime {
  as_of: string;
  /** The as_of the candidates were filtered by (valid time). */
  valid_at?: string;
  /** The known_at the candidates were filtered by (record time). */
  known_at?: string;
  windows?: TimeWindow[];
  asks_when?: boolean;
  past?: boolean;
  recent?: boolean;
  terms?: string[];
  filtered?: boolean;
  recency_scale_hours?: number;
  recency_applied: boolean;
  newer_wins?: boolean;
}

export interface RecallResponse {
  query: string;
  weights: { vector: number; text: number };
  memories: RecallResult[];
  context: string;
  expand?: RecallStep;
  rerank?: RecallStep;
  time?: RecallTime;
}

// Context and resume.

export interface ContextRequest {
  query?: string;
  tenant?: string;
  namespace?: string;
  session_id?: string;
  subject?: string;
  file_path?: string;
  /** Tokens (cl100k_base). */
  budget?: number;
  as_of?: Instant;
  known_at?: Instant;
}

export interface IncludedMemory {
  layer: string;
  score: number;
  relevance?: number;
  scope_match?: boolean;
  tokens: number;
  memory: Memory;
}

export interface ContextResponse {
  context: string;
  tokens: number;
  budget: number;
  tokenizer?: string;
  layers: Record<string, number>;
  memories: IncludedMemory[];
}

export interface ResumeRequest {
  tenant?: string;
  namespace?: string;
  session_id?: string;
  budget?: number;
}

export interface TopicSummary {
  id: string;
  name: string;
  size: number;
}

export interface ResumeResponse {
  core: Memory[];
  recent: Memory[];
  topics: TopicSummary[];
  triggers: string[];
  text: string;
  tokens: number;
  budget: number;
  sections: Record<string, number>;
  compressed?: string[];
}

// Topics, consolidation, reindex, stats, audit.

export interface TopicsRequest {
  tenant?: string;
  ids?: string[];
  limit?: number;
}

export interface TopicNode {
  id: string;
  name: string;
  size: number;
  memory_ids: string[];
  children?: TopicNode[];
  domains?: Record<string, number>;
}

export interface TopicDetail {
  name: string;
  memories: Memory[];
  truncated?: boolean;
}

export interface TopicsResponse {
  tenant: string;
  built?: string;
  memories: number;
  topics: TopicNode[];
  missing?: string[];
  details?: Record<string, TopicDetail>;
}

export interface ConsolidateResponse {
  tenant: string;
  epoch: string;
}

export interface ReindexResponse {
  tenant: string;
  reindex: string;
}

export interface ReindexStatus {
  tenant: string;
  id: string;
  state: "queued" | "adopting" | "running" | "done" | "failed" | string;
  done: number;
  total: number;
  error?: string;
  updated_at: string;
}

export interface TranscriptStats {
  memories: number;
  archived: number;
  chars: number;
  sessions: number;
  oldest?: string;
  newest?: string;
}

export interface Stats {
  tenant: string;
  memories: number;
  archived: number;
  superseded: number;
  quarantined: number;
  domains: Record<string, number>;
  types: Record<string, number>;
  kinds: Record<string, number>;
  layers: Record<string, number>;
  chars: number;
  tokens: number;
  domain_tokens: Record<string, number>;
  transcripts?: TranscriptStats;
}

export interface AuditOptions {
  tenant?: string;
  phase?: string;
  op?: string;
  memory_id?: string;
  epoch?: string;
  /** Inclusive. */
  since?: Instant;
  /** Exclusive. */
  until?: Instant;
  limit?: number;
}

export interface AuditEntry {
  time: string;
  tenant: string;
  epoch?: string;
  seq?: number;
  phase: string;
  op: string;
  memory_ids?: string[];
  before?: Memory[];
  after?: Memory[];
  applied: boolean;
  reason?: string;
  decider: string;
  model?: string;
}

export interface AuditResponse {
  tenant: string;
  entries: AuditEntry[];
}

// Export and import.

export interface ExportOptions {
  tenant?: string;
  namespace_prefix?: string;
  vectors?: boolean;
}

export interface LineError {
  line: number;
  field?: string;
  error: string;
}

export interface ImportResponse {
  imported: number;
  skipped: number;
  redacted?: number;
  quarantined?: number;
  errors: LineError[];
}

/** An episode: an event worth remembering with its outcome. */
export interface Episode {
  summary: string;
  outcome?: string;
  tenant?: string;
  namespace?: string;
  subject?: string;
  session_id?: string;
  tags?: string[];
  scope?: string[];
  domain?: string;
  importance?: number;
}

/** A named workflow with its steps. */
export interface Procedure {
  name: string;
  steps: string[];
  tenant?: string;
  namespace?: string;
  subject?: string;
  tags?: string[];
  scope?: string[];
  domain?: string;
  importance?: number;
}

// Webhooks.

/** A registered endpoint. secret ("whsec_…") is set only in the answers of
 * createWebhook and rotateWebhookSecret: keep it, it is not shown again. */
export interface Webhook {
  id: string;
  tenant: string;
  url: string;
  types: string[] | null;
  description?: string;
  created: string;
  secret?: string;
}

/** Registers an endpoint (POST /v1/webhooks); no types receives every
 * event type. */
export interface CreateWebhookRequest {
  url: string;
  tenant?: string;
  types?: string[];
  description?: string;
}

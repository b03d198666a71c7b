"""Requests and responses of the Recollect HTTP API, as dataclasses.

Request fields left None are not sent, so the server's defaults apply.
Response fields the server omits take their zero value; fields a newer
server adds are ignored. Times are timezone-aware datetimes (a naive
datetime given to a request is taken as UTC)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Dict, List, Optional

__all__ = [
    "Message",
    "MemoryInput",
    "Feedback",
    "Event",
    "EventsResponse",
    "Memory",
    "LearnRequest",
    "LearnResponse",
    "ListResponse",
    "ErasurePlace",
    "ErasureReceipt",
    "DeleteResponse",
    "ForgetResponse",
    "HistoryVersion",
    "History",
    "RecallFilters",
    "RecallRequest",
    "Weights",
    "RecallStep",
    "RecallResult",
    "TimeWindow",
    "RecallTime",
    "RecallResponse",
    "ContextRequest",
    "IncludedMemory",
    "ContextResponse",
    "TopicSummary",
    "ResumeResponse",
    "TopicsRequest",
    "TopicNode",
    "TopicDetail",
    "TopicsResponse",
    "ConsolidateResponse",
    "ReindexResponse",
    "ReindexStatus",
    "TranscriptStats",
    "Stats",
    "AuditEntry",
    "AuditResponse",
    "LineError",
    "ImportResponse",
    "Webhook",
    "CreateWebhookRequest",
]

# Conversation events (POST /v1/events).


@dataclass
class Message:
    """One message of a conversation, carried by compaction and session_end
    events. Give a message streamed earlier as a turn event that event's id,
    so that it is stored once whatever the path."""

    role: str
    content: str
    id: Optional[str] = None
    name: Optional[str] = None  # the speaker's display name
    ts: Optional[datetime] = None


@dataclass
class MemoryInput:
    """An explicit memory carried by a memory event."""

    content: str
    key: Optional[str] = None
    domain: Optional[str] = None
    type: Optional[str] = None
    kind: Optional[str] = None
    importance: Optional[float] = None
    tags: Optional[List[str]] = None
    scope: Optional[List[str]] = None


@dataclass
class Feedback:
    """Whether a recalled memory helped, carried by a feedback event."""

    memory_id: str
    success: bool


@dataclass
class Event:
    """A conversation event. id is the client message id: a resent event is
    processed once; the client fills in a missing one before the first
    attempt. type is turn, compaction, session_end, memory or feedback."""

    type: str = "turn"
    id: Optional[str] = None
    tenant: Optional[str] = None
    namespace: Optional[str] = None
    session_id: Optional[str] = None
    subject: Optional[str] = None
    channel: Optional[str] = None
    agent: Optional[str] = None
    role: Optional[str] = None
    name: Optional[str] = None  # the speaker's display name on a turn
    content: Optional[str] = None
    ts: Optional[datetime] = None
    messages: Optional[List[Message]] = None
    memory: Optional[MemoryInput] = None
    feedback: Optional[Feedback] = None


@dataclass
class EventsResponse:
    """The answer of POST /v1/events, summed over the batches sent."""

    accepted: int = 0
    ids: List[str] = field(default_factory=list)


# Memories.


@dataclass
class Memory:
    """A stored memory."""

    id: str = ""
    tenant: str = ""
    namespace: str = ""
    subject: str = ""
    channel: str = ""
    session: str = ""
    key: str = ""
    content: str = ""
    domain: str = ""
    type: str = ""
    kind: str = ""
    layer: str = ""
    importance: float = 0.0
    confidence: float = 0.0
    access_count: int = 0
    repetition_count: int = 0
    success_count: int = 0
    tags: List[str] = field(default_factory=list)
    scope: List[str] = field(default_factory=list)
    evidence: str = ""
    source_ids: List[str] = field(default_factory=list)
    source: str = ""
    created_at: Optional[datetime] = None
    modified_at: Optional[datetime] = None
    last_accessed: Optional[datetime] = None
    valid_from: Optional[datetime] = None
    valid_until: Optional[datetime] = None
    invalid_at: Optional[datetime] = None
    archived: bool = False
    embedding_model: str = ""
    superseded_by: str = ""
    quarantined: str = ""
    derived_from: List[str] = field(default_factory=list)
    epoch: int = 0
    vector: Optional[List[float]] = None


@dataclass
class LearnRequest:
    """The body of POST /v1/memories: an explicit memory. With wait the
    answer carries the stored memory (timeout is a Go duration, e.g. "10s")."""

    content: str
    id: Optional[str] = None
    tenant: Optional[str] = None
    namespace: Optional[str] = None
    subject: Optional[str] = None
    channel: Optional[str] = None
    session_id: Optional[str] = None
    wait: Optional[bool] = None
    timeout: Optional[str] = None
    key: Optional[str] = None
    domain: Optional[str] = None
    type: Optional[str] = None
    kind: Optional[str] = None
    importance: Optional[float] = None
    tags: Optional[List[str]] = None
    scope: Optional[List[str]] = None


@dataclass
class LearnResponse:
    """The event id and the id the memory will have once stored; with wait,
    the stored memory (stored False if the timeout ran out first)."""

    id: str = ""
    memory_id: str = ""
    stored: Optional[bool] = None
    merged: bool = False
    memory: Optional[Memory] = None


@dataclass
class ListResponse:
    """One page of GET /v1/memories; next is set when there are more."""

    memories: List[Memory] = field(default_factory=list)
    next: str = ""


@dataclass
class ErasurePlace:
    """One place of an erasure receipt: store, store-files, audit, streams,
    topics, embedding-cache, ...; state pending, erased, failed or
    not_erased."""

    place: str = ""
    state: str = ""
    erased: int = 0
    note: str = ""


@dataclass
class ErasureReceipt:
    """What a subject purge erased, per place; state is running until every
    place is done, then complete or incomplete."""

    id: str = ""
    tenant: str = ""
    state: str = ""
    started: Optional[datetime] = None
    finished: Optional[datetime] = None
    places: List[ErasurePlace] = field(default_factory=list)

    @property
    def done(self) -> bool:
        return self.state not in ("", "running")


@dataclass
class DeleteResponse:
    """The answer of DELETE /v1/memories?subject=: how many were deleted and,
    from a server that keeps them, the erasure receipt."""

    deleted: int = 0
    receipt: Optional[ErasureReceipt] = None


@dataclass
class ForgetResponse:
    """The ids deleted by id or key, and their count; a purge of a subject
    only counts, and carries its erasure receipt."""

    deleted: List[str] = field(default_factory=list)
    count: int = 0
    receipt: Optional[ErasureReceipt] = None


@dataclass
class HistoryVersion:
    """One version of a fact in a memory's history."""

    id: str = ""
    content: str = ""
    key: str = ""
    layer: str = ""
    valid_from: Optional[datetime] = None
    valid_until: Optional[datetime] = None
    invalid_at: Optional[datetime] = None
    superseded_by: str = ""
    derived_from: List[str] = field(default_factory=list)
    archived: bool = False
    created_at: Optional[datetime] = None


@dataclass
class History:
    """A memory's provenance and every version of its fact, oldest first."""

    id: str = ""
    tenant: str = ""
    namespace: str = ""
    source: str = ""
    origin: str = ""
    source_ids: List[str] = field(default_factory=list)
    created_at: Optional[datetime] = None
    modified_at: Optional[datetime] = None
    last_accessed: Optional[datetime] = None
    valid_from: Optional[datetime] = None
    valid_until: Optional[datetime] = None
    invalid_at: Optional[datetime] = None
    layer: str = ""
    archived: bool = False
    repetition_count: int = 0
    access_count: int = 0
    success_count: int = 0
    superseded_by: str = ""
    derived_from: List[str] = field(default_factory=list)
    chain: List[HistoryVersion] = field(default_factory=list)
    chain_truncated: bool = False


# Recall (POST /v1/recall).


@dataclass
class RecallFilters:
    domains: Optional[List[str]] = None
    types: Optional[List[str]] = None
    kinds: Optional[List[str]] = None
    layers: Optional[List[str]] = None
    tags: Optional[List[str]] = None
    subjects: Optional[List[str]] = None
    sessions: Optional[List[str]] = None
    after: Optional[datetime] = None
    before: Optional[datetime] = None
    include_archived: Optional[bool] = None
    include_superseded: Optional[bool] = None
    include_quarantined: Optional[bool] = None
    file_path: Optional[str] = None
    time: Optional[str] = None  # "query": filter by the query's time expressions


@dataclass
class RecallRequest:
    """The body of POST /v1/recall. as_of asks what was true then (valid
    time), known_at what Recollect knew then (record time)."""

    query: str = ""
    tenant: Optional[str] = None
    namespace: Optional[str] = None
    key: Optional[str] = None
    k: Optional[int] = None
    per_domain: Optional[int] = None
    channel: Optional[str] = None
    filters: Optional[RecallFilters] = None
    dry: Optional[bool] = None
    expand: Optional[bool] = None
    rerank: Optional[bool] = None
    as_of: Optional[datetime] = None
    known_at: Optional[datetime] = None


@dataclass
class Weights:
    vector: float = 0.0
    text: float = 0.0


@dataclass
class RecallStep:
    """Whether query expansion or reranking ran, and why not."""

    applied: bool = False
    trigger: str = ""
    reason: str = ""
    queries: List[str] = field(default_factory=list)
    reranked: int = 0


@dataclass
class RecallResult:
    """A recalled memory with every part of its score."""

    memory: Memory = field(default_factory=Memory)
    score: float = 0.0
    relevance: float = 0.0
    semantic: float = 0.0
    lexical: float = 0.0
    importance: float = 0.0
    recency: float = 0.0
    layer_bonus: float = 0.0
    confidence_factor: float = 0.0
    channel_factor: float = 0.0
    dampening: float = 0.0
    information: float = 0.0
    expanded: bool = False
    expanded_query: str = ""
    rerank: Optional[float] = None
    fused_score: Optional[float] = None
    key_match: bool = False
    time_factor: float = 0.0
    time_match: float = 0.0
    time_window: str = ""
    mentions_time: bool = False
    outranked_by: str = ""
    speaker_factor: Optional[float] = None
    name_factor: Optional[float] = None
    error_factor: Optional[float] = None
    session_factor: Optional[float] = None


@dataclass
class TimeWindow:
    confidence: float = 0.0
    text: str = ""
    start: Optional[datetime] = field(default=None, metadata={"json": "from"})
    to: Optional[datetime] = None


@dataclass
class RecallTime:
    """How recall read time: the as_of asked at, the query's time windows,
    and the valid_at / known_at the candidates were filtered by."""

    as_of: Optional[datetime] = None
    valid_at: Optional[datetime] = None
    known_at: Optional[datetime] = None
    windows: List[TimeWindow] = field(default_factory=list)
    asks_when: bool = False
    past: bool = False
    recent: bool = False
    terms: List[str] = field(default_factory=list)
    filtered: bool = False
    recency_scale_hours: float = 0.0
    recency_applied: bool = False
    newer_wins: bool = False


@dataclass
class RecallResponse:
    """Ranked memories and the prompt-ready "Recalled Context" block."""

    query: str = ""
    weights: Weights = field(default_factory=Weights)
    memories: List[RecallResult] = field(default_factory=list)
    context: str = ""
    expand: Optional[RecallStep] = None
    rerank: Optional[RecallStep] = None
    time: Optional[RecallTime] = None


# Context and resume.


@dataclass
class ContextRequest:
    """The body of POST /v1/context; budget in tokens (cl100k_base)."""

    query: Optional[str] = None
    tenant: Optional[str] = None
    namespace: Optional[str] = None
    session_id: Optional[str] = None
    subject: Optional[str] = None
    file_path: Optional[str] = None
    budget: Optional[int] = None
    as_of: Optional[datetime] = None
    known_at: Optional[datetime] = None


@dataclass
class IncludedMemory:
    layer: str = ""
    score: float = 0.0
    relevance: float = 0.0
    scope_match: bool = False
    tokens: int = 0
    memory: Memory = field(default_factory=Memory)


@dataclass
class ContextResponse:
    context: str = ""
    tokens: int = 0
    budget: int = 0
    tokenizer: str = ""
    layers: Dict[str, int] = field(default_factory=dict)
    memories: List[IncludedMemory] = field(default_factory=list)


@dataclass
class TopicSummary:
    id: str = ""
    name: str = ""
    size: int = 0


@dataclass
class ResumeResponse:
    """What an agent needs to pick up where it left off."""

    core: List[Memory] = field(default_factory=list)
    recent: List[Memory] = field(default_factory=list)
    topics: List[TopicSummary] = field(default_factory=list)
    triggers: List[str] = field(default_factory=list)
    text: str = ""
    tokens: int = 0
    budget: int = 0
    sections: Dict[str, int] = field(default_factory=dict)
    compressed: List[str] = field(default_factory=list)


# Topics, consolidation, reindex.


@dataclass
class TopicsRequest:
    tenant: Optional[str] = None
    ids: Optional[List[str]] = None
    limit: Optional[int] = None


@dataclass
class TopicNode:
    id: str = ""
    name: str = ""
    size: int = 0
    memory_ids: List[str] = field(default_factory=list)
    children: List[TopicNode] = field(default_factory=list)
    domains: Dict[str, int] = field(default_factory=dict)


@dataclass
class TopicDetail:
    name: str = ""
    memories: List[Memory] = field(default_factory=list)
    truncated: bool = False


@dataclass
class TopicsResponse:
    tenant: str = ""
    built: Optional[datetime] = None
    memories: int = 0
    topics: List[TopicNode] = field(default_factory=list)
    missing: List[str] = field(default_factory=list)
    details: Dict[str, TopicDetail] = field(default_factory=dict)


@dataclass
class ConsolidateResponse:
    tenant: str = ""
    epoch: str = ""


@dataclass
class ReindexResponse:
    tenant: str = ""
    reindex: str = ""


@dataclass
class ReindexStatus:
    tenant: str = ""
    id: str = ""
    state: str = ""
    done: int = 0
    total: int = 0
    error: str = ""
    updated_at: Optional[datetime] = None


# Stats and audit.


@dataclass
class TranscriptStats:
    memories: int = 0
    archived: int = 0
    chars: int = 0
    sessions: int = 0
    oldest: Optional[datetime] = None
    newest: Optional[datetime] = None


@dataclass
class Stats:
    tenant: str = ""
    memories: int = 0
    archived: int = 0
    superseded: int = 0
    quarantined: int = 0
    domains: Dict[str, int] = field(default_factory=dict)
    types: Dict[str, int] = field(default_factory=dict)
    kinds: Dict[str, int] = field(default_factory=dict)
    layers: Dict[str, int] = field(default_factory=dict)
    chars: int = 0
    tokens: int = 0
    domain_tokens: Dict[str, int] = field(default_factory=dict)
    transcripts: Optional[TranscriptStats] = None


@dataclass
class AuditEntry:
    time: Optional[datetime] = None
    tenant: str = ""
    epoch: str = ""
    seq: int = 0
    phase: str = ""
    op: str = ""
    memory_ids: List[str] = field(default_factory=list)
    before: List[Memory] = field(default_factory=list)
    after: List[Memory] = field(default_factory=list)
    applied: bool = False
    reason: str = ""
    decider: str = ""
    model: str = ""


@dataclass
class AuditResponse:
    tenant: str = ""
    entries: List[AuditEntry] = field(default_factory=list)


# Export and import.


@dataclass
class LineError:
    line: int = 0
    error: str = ""
    field: str = ""


@dataclass
class ImportResponse:
    imported: int = 0
    skipped: int = 0
    redacted: int = 0
    quarantined: int = 0
    errors: List[LineError] = field(default_factory=list)


# Webhooks.


@dataclass
class Webhook:
    """A registered endpoint. secret ("whsec_...") is set only in the answers
    of create_webhook and rotate_webhook_secret: keep it, it is not shown
    again."""

    id: str = ""
    tenant: str = ""
    url: str = ""
    types: List[str] = field(default_factory=list)
    description: str = ""
    created: Optional[datetime] = None
    secret: str = ""


@dataclass
class CreateWebhookRequest:
    """Registers an endpoint (POST /v1/webhooks); types None receives every
    event type."""

    url: str
    tenant: Optional[str] = None
    types: Optional[List[str]] = None
    description: Optional[str] = None

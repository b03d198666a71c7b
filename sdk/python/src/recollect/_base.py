"""What the sync and the async client share: configuration, the requests
each call sends, error answers and the retry rule. Only sending differs."""

from __future__ import annotations

import dataclasses
import json
import re
import time
import unicodedata
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Tuple, Type, TypeVar, Union

from . import models as m
from ._codec import format_time, from_dict, to_dict
from .errors import APIError, ValidationError, error_class, retryable

T = TypeVar("T")

DEFAULT_BASE_URL = "http://127.0.0.1:7700"
DEFAULT_RETRIES = 3
DEFAULT_MAX_RETRY_WAIT = 30.0  # seconds
DEFAULT_TIMEOUT = 60.0  # seconds
FIRST_BACKOFF = 0.5  # seconds; doubles with every attempt
MAX_EVENTS_BATCH = 1000  # the server's limit per POST /v1/events
IMPORT_CHUNK_BYTES = 8 << 20  # one POST /v1/import, well under the server's limit
MAX_ERROR_BODY = 64 << 10
MAX_TAG_CHARS = 32
MAX_KEY_CHARS = 128
USER_AGENT = "recollect-python-client"
NDJSON = "application/x-ndjson"


@dataclass
class Call:
    """One API request."""

    method: str
    path: str
    query: Dict[str, str] = field(default_factory=dict)
    body: Optional[bytes] = None
    content_type: Optional[str] = None
    idempotent: bool = False
    accept: str = "application/json"


def json_body(obj: Any) -> bytes:
    return json.dumps(to_dict(obj) if not isinstance(obj, (list, str)) else obj, separators=(",", ":")).encode()


def normalize_key(k: str) -> str:
    """Normalises a key as the server does: "User Name" = "user-name"."""
    out: List[str] = []
    last = ""
    for r in k.strip().lower():
        if r == "_" or r.isspace():
            r = "-"
        elif unicodedata.category(r) == "Cc":
            continue
        if r in "-/" and r == last:
            continue
        out.append(r)
        last = r
    return "".join(out).strip("-/")


def truncate(s: str, n: int) -> str:
    return s if len(s) <= n else s[:n].rstrip("-/")


class Base:
    """Configuration and request building of a client."""

    def __init__(
        self,
        base_url: str = DEFAULT_BASE_URL,
        *,
        api_key: Optional[str] = None,
        tenant: Optional[str] = None,
        namespace: Optional[str] = None,
        timeout: float = DEFAULT_TIMEOUT,
        retries: int = DEFAULT_RETRIES,
        max_retry_wait: float = DEFAULT_MAX_RETRY_WAIT,
        user_agent: str = USER_AGENT,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.api_key = (api_key or "").strip() or None
        self.tenant = tenant or None
        self.namespace = namespace or None
        self.timeout = timeout
        self.retries = max(0, retries)
        self.max_retry_wait = max_retry_wait if max_retry_wait > 0 else DEFAULT_MAX_RETRY_WAIT
        self.user_agent = user_agent or USER_AGENT
        self._now: Callable[[], datetime] = lambda: datetime.now(timezone.utc)

    # Defaults.

    def _tenant_or(self, t: Optional[str]) -> Optional[str]:
        return t or self.tenant

    def _namespace_or(self, ns: Optional[str]) -> Optional[str]:
        return ns or self.namespace

    def _tenant_query(self, tenant: Optional[str], **more: Any) -> Dict[str, str]:
        q: Dict[str, str] = {}
        t = self._tenant_or(tenant)
        if t:
            q["tenant"] = t
        for k, v in more.items():
            if v is None or v is False or v == "":
                continue
            if v is True:
                v = "true"
            elif isinstance(v, datetime):
                v = format_time(v)
            q[k] = str(v)
        return q

    def _headers(self, call: Call) -> Dict[str, str]:
        h = {"User-Agent": self.user_agent, "Accept": call.accept}
        if call.content_type:
            h["Content-Type"] = call.content_type
        if self.api_key:
            h["Authorization"] = "Bearer " + self.api_key
        return h

    def _url(self, call: Call) -> str:
        return self.base_url + call.path

    # Answers and retries.

    def _error(self, call: Call, status: int, headers: Any, body: bytes) -> APIError:
        """Reads an error answer: the server's JSON error ({"error", "field",
        "code"}) or, from a proxy or an unknown route, its text."""
        body = body[:MAX_ERROR_BODY]
        message, fld, code = "", "", ""
        try:
            data = json.loads(body)
        except ValueError:
            data = None
        if isinstance(data, dict) and data.get("error"):
            message, fld, code = str(data["error"]), str(data.get("field") or ""), str(data.get("code") or "")
        else:
            message = body.decode("utf-8", "replace").strip()
        cls = error_class(status)
        return cls(call.method, call.path, status, message, fld, code, self._retry_after(headers.get("Retry-After")), body)

    def _retry_after(self, v: Optional[str]) -> Optional[float]:
        """Parses Retry-After: delay seconds or an HTTP date."""
        v = (v or "").strip()
        if not v:
            return None
        if re.fullmatch(r"-?\d+", v):
            return max(0.0, float(int(v)))
        try:
            t = parsedate_to_datetime(v)
        except (TypeError, ValueError):
            return None
        if t.tzinfo is None:
            t = t.replace(tzinfo=timezone.utc)
        return max(0.0, (t - self._now()).total_seconds())

    def _retry_wait(self, call: Call, err: APIError, attempt: int) -> Optional[float]:
        """The wait before resending call after err on the given attempt
        (0-based), or None to give up: only idempotent calls are resent,
        only on 429 and 503, at most retries times, after Retry-After (else
        a doubling backoff), never waiting longer than max_retry_wait."""
        if not call.idempotent or attempt >= self.retries or not retryable(err.status):
            return None
        wait = err.retry_after
        if not wait:
            wait = min(FIRST_BACKOFF * (2 ** attempt), self.max_retry_wait)
        if wait > self.max_retry_wait:
            return None
        return wait

    @staticmethod
    def _decode(cls: Type[T], body: bytes) -> T:
        return from_dict(cls, json.loads(body))

    # Requests.

    def _event_batches(self, events: Iterable[Union[m.Event, Dict[str, Any]]]) -> Iterator[Tuple[int, int, Call]]:
        """Splits events into POST /v1/events calls of at most
        MAX_EVENTS_BATCH, with the client's tenant and namespace filled in
        and missing ids set, so that a resend is the same event."""
        batch: List[Dict[str, Any]] = []
        start = 0
        for ev in events:
            d = to_dict(ev)
            if not d.get("id"):
                d["id"] = str(uuid.uuid4())
            for k, v in (("tenant", self.tenant), ("namespace", self.namespace)):
                if not d.get(k) and v:
                    d[k] = v
            batch.append(d)
            if len(batch) == MAX_EVENTS_BATCH:
                yield start, len(batch), Call("POST", "/v1/events", body=json_body({"events": batch}), content_type="application/json", idempotent=True)
                start += len(batch)
                batch = []
        if batch:
            yield start, len(batch), Call("POST", "/v1/events", body=json_body({"events": batch}), content_type="application/json", idempotent=True)
        elif start == 0:
            raise ValidationError("events", "is empty")

    def _learn_call(self, req: Union[str, m.LearnRequest], fields: Dict[str, Any]) -> Call:
        r = m.LearnRequest(content=req, **fields) if isinstance(req, str) else dataclasses.replace(req, **fields)
        if not r.id:
            r.id = str(uuid.uuid4())
        r.tenant = self._tenant_or(r.tenant)
        r.namespace = self._namespace_or(r.namespace)
        return Call("POST", "/v1/memories", body=json_body(r), content_type="application/json", idempotent=True)

    def _episode_call(self, summary: str, outcome: Optional[str], fields: Dict[str, Any]) -> Call:
        summary = summary.strip()
        if not summary:
            raise ValidationError("summary", "is required")
        content = summary
        tags = ["episode"] + list(fields.pop("tags", None) or [])
        o = (outcome or "").strip()
        if o:
            if content[-1] not in ".!?":
                content += "."
            content += " Outcome: " + o
            tags.append(truncate("outcome:" + normalize_key(o), MAX_TAG_CHARS))
        return self._learn_call(m.LearnRequest(content=content, type="episode", kind="episodic", tags=tags), fields)

    def _procedure_call(self, name: str, steps: Iterable[str], fields: Dict[str, Any]) -> Call:
        name = name.strip()
        if not name:
            raise ValidationError("name", "is required")
        lines = [s.strip() for s in steps if s.strip()]
        if not lines:
            raise ValidationError("steps", "needs at least one step")
        content = name + ":" + "".join("\n%d. %s" % (i + 1, s) for i, s in enumerate(lines))
        tags = ["procedure"] + list(fields.pop("tags", None) or [])
        key = truncate("procedure/" + normalize_key(name), MAX_KEY_CHARS)
        return self._learn_call(m.LearnRequest(content=content, key=key, type="procedure", kind="procedural", tags=tags), fields)

    def _recall_call(self, req: Union[str, m.RecallRequest], fields: Dict[str, Any]) -> Call:
        r = m.RecallRequest(query=req, **fields) if isinstance(req, str) else dataclasses.replace(req, **fields)
        r.tenant = self._tenant_or(r.tenant)
        r.namespace = self._namespace_or(r.namespace)
        return Call("POST", "/v1/recall", body=json_body(r), content_type="application/json", idempotent=True)

    def _context_call(self, req: Union[None, str, m.ContextRequest], fields: Dict[str, Any]) -> Call:
        if isinstance(req, m.ContextRequest):
            r = dataclasses.replace(req, **fields)
        elif req is None:
            r = m.ContextRequest(**fields)
        else:
            r = m.ContextRequest(query=req, **fields)
        r.tenant = self._tenant_or(r.tenant)
        r.namespace = self._namespace_or(r.namespace)
        return Call("POST", "/v1/context", body=json_body(r), content_type="application/json", idempotent=True)

    def _resume_call(self, tenant: Optional[str], namespace: Optional[str], session_id: Optional[str], budget: Optional[int]) -> Call:
        q = self._tenant_query(tenant, namespace=self._namespace_or(namespace), session_id=session_id, budget=budget)
        return Call("GET", "/v1/resume", query=q, idempotent=True)

    def _topics_call(self, ids: Optional[List[str]], tenant: Optional[str], limit: Optional[int]) -> Call:
        r = m.TopicsRequest(tenant=self._tenant_or(tenant), ids=ids, limit=limit)
        return Call("POST", "/v1/topics", body=json_body(r), content_type="application/json", idempotent=True)

    def _consolidate_call(self, tenant: Optional[str]) -> Call:
        # Never resent: each call asks for a new epoch.
        return Call("POST", "/v1/consolidate", body=json_body({"tenant": self._tenant_or(tenant)}), content_type="application/json")

    def _reindex_call(self, tenant: Optional[str]) -> Call:
        return Call("POST", "/v1/reindex", body=json_body({"tenant": self._tenant_or(tenant)}), content_type="application/json", idempotent=True)

    def _create_webhook_call(self, req: Union[str, m.CreateWebhookRequest], fields: Dict[str, Any]) -> Call:
        r = m.CreateWebhookRequest(url=req, **fields) if isinstance(req, str) else dataclasses.replace(req, **fields)
        if not r.url:
            raise ValidationError("url", "is required")
        r.tenant = self._tenant_or(r.tenant)
        # Never resent: a resend would register a second endpoint.
        return Call("POST", "/v1/webhooks", body=json_body(r), content_type="application/json")

    def _delete_webhook_call(self, id: str, tenant: Optional[str]) -> Call:
        return Call("DELETE", "/v1/webhooks/" + _escape(id), query=self._tenant_query(tenant), idempotent=True)

    def _rotate_webhook_call(self, id: str, tenant: Optional[str]) -> Call:
        # Never resent: a resend would rotate again.
        return Call("POST", "/v1/webhooks/" + _escape(id) + "/rotate", query=self._tenant_query(tenant))

    def _get_call(self, path: str, tenant: Optional[str], **query: Any) -> Call:
        return Call("GET", path, query=self._tenant_query(tenant, **query), idempotent=True)

    def _list_call(
        self,
        tenant: Optional[str],
        namespace: Optional[str],
        domain: Optional[str],
        limit: Optional[int],
        after: Optional[str],
        archived: bool,
        superseded: bool,
    ) -> Call:
        # An empty namespace lists every namespace: the client's default is not applied.
        q = self._tenant_query(tenant, namespace=namespace, domain=domain, limit=limit, after=after, archived=archived, superseded=superseded)
        return Call("GET", "/v1/memories", query=q, idempotent=True)

    def _delete_call(self, id: str, tenant: Optional[str]) -> Call:
        return Call("DELETE", "/v1/memories/" + _escape(id), query=self._tenant_query(tenant), idempotent=True)

    def _purge_call(self, subject: str, tenant: Optional[str]) -> Call:
        if not subject:
            raise ValidationError("subject", "is required")
        return Call("DELETE", "/v1/memories", query=self._tenant_query(tenant, subject=subject), idempotent=True)

    def _audit_call(
        self,
        tenant: Optional[str],
        phase: Optional[str],
        op: Optional[str],
        memory_id: Optional[str],
        epoch: Optional[str],
        since: Optional[datetime],
        until: Optional[datetime],
        limit: Optional[int],
    ) -> Call:
        q = self._tenant_query(tenant, phase=phase, op=op, memory=memory_id, epoch=epoch, since=since, until=until, limit=limit)
        return Call("GET", "/v1/audit", query=q, idempotent=True)

    def _export_call(self, tenant: Optional[str], namespace_prefix: Optional[str], vectors: bool) -> Call:
        q = self._tenant_query(tenant, namespace_prefix=namespace_prefix, vectors=vectors)
        return Call("GET", "/v1/export", query=q, idempotent=True, accept=NDJSON)

    def _import_call(self, tenant: Optional[str], part: bytes) -> Call:
        return Call("POST", "/v1/import", query=self._tenant_query(tenant), body=part, content_type=NDJSON, idempotent=True)

    @staticmethod
    def _forget_target(id: Optional[str], key: Optional[str], subject: Optional[str]) -> str:
        given = [n for n, v in (("id", id), ("key", key), ("subject", subject)) if v]
        if len(given) != 1:
            raise ValidationError("id", "or key or subject is required, exactly one")
        return given[0]

    @staticmethod
    def _import_failed(err: APIError, offset: int) -> m.ImportResponse:
        """Reads a rejected import part's bad lines, numbered as lines of the
        whole input; the error's field names the first."""
        out = m.ImportResponse()
        try:
            out = from_dict(m.ImportResponse, json.loads(err.body))
        except ValueError:
            pass
        for e in out.errors:
            e.line += offset
        if out.errors:
            err.field = "line %d" % out.errors[0].line
        if offset:
            err.message += " (lines counted from line %d of the input)" % (offset + 1)
        out.imported, out.skipped = 0, 0
        err.response = out
        return out


def _escape(segment: str) -> str:
    from urllib.parse import quote

    return quote(segment, safe="")


def import_lines(source: Any) -> Iterator[bytes]:
    """The NDJSON lines of an import source: a file (binary or text), bytes
    or str of NDJSON, or an iterable of Memory, dict or line."""
    if isinstance(source, (bytes, str)):
        source = [source]
    elif hasattr(source, "read") and not hasattr(source, "__iter__"):
        source = [source.read()]
    for item in source:
        if isinstance(item, m.Memory) or isinstance(item, dict):
            yield json.dumps(to_dict(item), separators=(",", ":")).encode() + b"\n"
            continue
        if isinstance(item, str):
            item = item.encode()
        for line in item.splitlines(keepends=True):
            if not line.endswith(b"\n"):
                line += b"\n"
            yield line


def import_parts(source: Any) -> Iterator[Tuple[int, bytes]]:
    """Groups the lines of source into parts of at most IMPORT_CHUNK_BYTES,
    each with the number of lines before it."""
    part: List[bytes] = []
    size, first, n = 0, 0, 0
    for line in import_lines(source):
        if part and size + len(line) > IMPORT_CHUNK_BYTES:
            yield first, b"".join(part)
            part, size, first = [], 0, n
        part.append(line)
        size += len(line)
        n += 1
    if part:
        yield first, b"".join(part)


def sleep_seconds(d: float) -> None:
    time.sleep(d)

"""The synchronous client."""

from __future__ import annotations

import json
import time
from datetime import datetime
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Union

import httpx

from . import models as m
from ._base import (
    DEFAULT_BASE_URL,
    DEFAULT_MAX_RETRY_WAIT,
    DEFAULT_RETRIES,
    DEFAULT_TIMEOUT,
    USER_AGENT,
    Base,
    Call,
    import_parts,
    normalize_key,
)
from ._codec import from_dict
from .errors import APIError, InvalidRequestError, NotFoundError, TransportError


class Recollect(Base):
    """A client of one Recollect server, safe to share between threads.

    A request's empty tenant and namespace are filled from tenant= and
    namespace=; when neither names one the server decides (the API key's
    tenant, else "default"). Idempotent calls are resent on 429 and 503 (see
    the package documentation). Close it, or use it as a context manager."""

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
        http_client: Optional[httpx.Client] = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        super().__init__(base_url, api_key=api_key, tenant=tenant, namespace=namespace, timeout=timeout,
                         retries=retries, max_retry_wait=max_retry_wait, user_agent=user_agent)
        self._own = http_client is None
        self._http = http_client or httpx.Client(timeout=self.timeout)
        self._sleep = sleep

    def with_options(self, **options: Any) -> "Recollect":
        """A copy with options changed (api_key, tenant, namespace, retries,
        max_retry_wait, user_agent), sharing this client's connections."""
        cp = Recollect.__new__(Recollect)
        cp.__dict__.update(self.__dict__)
        cp._own = False
        for k, v in options.items():
            if k not in ("api_key", "tenant", "namespace", "retries", "max_retry_wait", "user_agent"):
                raise TypeError("unknown option %r" % k)
            setattr(cp, k, v)
        return cp

    def close(self) -> None:
        if self._own:
            self._http.close()

    def __enter__(self) -> "Recollect":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # Sending.

    def _send(self, call: Call, stream: bool = False) -> httpx.Response:
        attempt = 0
        while True:
            req = self._http.build_request(call.method, self._url(call), params=call.query, content=call.body, headers=self._headers(call))
            try:
                resp = self._http.send(req, stream=stream)
            except httpx.HTTPError as e:
                raise TransportError(call.method, call.path, e) from e
            if 200 <= resp.status_code < 300:
                return resp
            try:
                body = resp.read()
            finally:
                resp.close()
            err = self._error(call, resp.status_code, resp.headers, body)
            wait = self._retry_wait(call, err, attempt)
            if wait is None:
                raise err
            self._sleep(wait)
            attempt += 1

    def _do(self, call: Call, out: Any = None) -> Any:
        resp = self._send(call)
        if out is None or resp.status_code == 204:
            return None
        return from_dict(out, resp.json())

    # Events and memories in.

    def ingest(self, events: Iterable[Union[m.Event, Dict[str, Any]]]) -> m.EventsResponse:
        """Publishes conversation events (POST /v1/events) in batches of at
        most 1000. An event's id makes a resend safe; a missing one is
        filled in before the first attempt. On an error the batches before
        it were accepted (the error's message says which failed)."""
        out = m.EventsResponse()
        for start, n, call in self._event_batches(events):
            try:
                r = self._do(call, m.EventsResponse)
            except APIError as e:
                e.message = "events %d-%d: %s" % (start, start + n - 1, e.message)
                e.response = out
                raise
            out.accepted += r.accepted
            out.ids.extend(r.ids)
        return out

    def learn(self, content: Union[str, m.LearnRequest], **fields: Any) -> m.LearnResponse:
        """Stores an explicit memory (POST /v1/memories): queued when this
        returns, unless wait=True (then the answer carries the stored
        memory). fields are LearnRequest's (key, type, tags, importance...)."""
        return self._do(self._learn_call(content, fields), m.LearnResponse)

    def episode(self, summary: str, outcome: Optional[str] = None, **fields: Any) -> m.LearnResponse:
        """Records an episode: content "<summary>. Outcome: <outcome>", type
        episode, tags "episode" and "outcome:<outcome>" added."""
        return self._do(self._episode_call(summary, outcome, fields), m.LearnResponse)

    def procedure(self, name: str, steps: Iterable[str], **fields: Any) -> m.LearnResponse:
        """Saves a named workflow: content "<name>:\\n1. <step>...", type
        procedure, key "procedure/<name>"."""
        return self._do(self._procedure_call(name, steps, fields), m.LearnResponse)

    # Reading.

    def recall(self, query: Union[str, m.RecallRequest], **fields: Any) -> m.RecallResponse:
        """Ranks the tenant's memories for a query (POST /v1/recall). fields
        are RecallRequest's: k, per_domain, filters, as_of, known_at..."""
        return self._do(self._recall_call(query, fields), m.RecallResponse)

    def context(self, query: Union[None, str, m.ContextRequest] = None, **fields: Any) -> m.ContextResponse:
        """Assembles a prompt-ready context (POST /v1/context)."""
        return self._do(self._context_call(query, fields), m.ContextResponse)

    def resume(self, *, session_id: Optional[str] = None, tenant: Optional[str] = None, namespace: Optional[str] = None, budget: Optional[int] = None) -> m.ResumeResponse:
        """The session-recovery summary (GET /v1/resume)."""
        return self._do(self._resume_call(tenant, namespace, session_id, budget), m.ResumeResponse)

    def topics(self, ids: Optional[List[str]] = None, *, tenant: Optional[str] = None, limit: Optional[int] = None) -> m.TopicsResponse:
        """The topic tree, or the topics named by ids with their memories."""
        return self._do(self._topics_call(ids, tenant, limit), m.TopicsResponse)

    def stats(self, tenant: Optional[str] = None) -> m.Stats:
        return self._do(self._get_call("/v1/stats", tenant), m.Stats)

    def get_memory(self, id: str, *, tenant: Optional[str] = None) -> m.Memory:
        """One memory; a missing one raises NotFoundError."""
        return self._do(self._get_call("/v1/memories/" + _seg(id), tenant), m.Memory)

    def history(self, id: str, *, tenant: Optional[str] = None) -> m.History:
        """A memory's versions with both timelines."""
        return self._do(self._get_call("/v1/memories/" + _seg(id) + "/history", tenant), m.History)

    def list_memories(
        self,
        *,
        tenant: Optional[str] = None,
        namespace: Optional[str] = None,
        domain: Optional[str] = None,
        limit: Optional[int] = None,
        after: Optional[str] = None,
        archived: bool = False,
        superseded: bool = False,
    ) -> m.ListResponse:
        """One page of memories in id order; next is set when there are
        more. An empty namespace lists every namespace."""
        return self._do(self._list_call(tenant, namespace, domain, limit, after, archived, superseded), m.ListResponse)

    def memories(self, *, after: Optional[str] = None, **options: Any) -> Iterator[m.Memory]:
        """Iterates over every memory list_memories selects, page by page."""
        while True:
            page = self.list_memories(after=after, **options)
            yield from page.memories
            if not page.next:
                return
            after = page.next

    def audit(
        self,
        *,
        tenant: Optional[str] = None,
        phase: Optional[str] = None,
        op: Optional[str] = None,
        memory_id: Optional[str] = None,
        epoch: Optional[str] = None,
        since: Optional[datetime] = None,
        until: Optional[datetime] = None,
        limit: Optional[int] = None,
    ) -> m.AuditResponse:
        """The consolidation audit log, newest first."""
        return self._do(self._audit_call(tenant, phase, op, memory_id, epoch, since, until, limit), m.AuditResponse)

    # Lifecycle.

    def consolidate(self, tenant: Optional[str] = None) -> m.ConsolidateResponse:
        """Asks for a consolidation epoch; never resent."""
        return self._do(self._consolidate_call(tenant), m.ConsolidateResponse)

    def reindex(self, tenant: Optional[str] = None) -> m.ReindexResponse:
        return self._do(self._reindex_call(tenant), m.ReindexResponse)

    def reindex_status(self, tenant: Optional[str] = None) -> m.ReindexStatus:
        return self._do(self._get_call("/v1/reindex", tenant), m.ReindexStatus)

    # Forgetting.

    def delete_memory(self, id: str, *, tenant: Optional[str] = None) -> None:
        """Deletes one memory; a missing one raises NotFoundError."""
        self._do(self._delete_call(id, tenant))

    def purge(self, subject: str, *, tenant: Optional[str] = None) -> m.DeleteResponse:
        """Hard-deletes everything the tenant holds about a subject, derived
        memories included; a subject with none is a count of 0. A server
        that keeps erasure receipts adds one (see wait_erasure)."""
        return self._do(self._purge_call(subject, tenant), m.DeleteResponse)

    def erasure(self, id: str, *, tenant: Optional[str] = None) -> m.ErasureReceipt:
        """A purge's erasure receipt (GET /v1/erasures/{id})."""
        return self._do(self._get_call("/v1/erasures/" + _seg(id), tenant), m.ErasureReceipt)

    def wait_erasure(self, receipt: m.ErasureReceipt, *, tenant: Optional[str] = None, interval: float = 0.5, timeout: float = 60.0) -> m.ErasureReceipt:
        """Reads the receipt every interval until it is done; the last one
        read when timeout passes first."""
        deadline = time.monotonic() + timeout
        while not receipt.done and time.monotonic() < deadline:
            time.sleep(interval)
            receipt = self.erasure(receipt.id, tenant=tenant)
        return receipt

    def forget(self, *, id: Optional[str] = None, key: Optional[str] = None, subject: Optional[str] = None, tenant: Optional[str] = None, namespace: Optional[str] = None) -> m.ForgetResponse:
        """Deletes a memory by id, every memory with a key (normalised as the
        server does; it lists the tenant's memories, in namespace or every
        one, to find them; none matching raises NotFoundError), or
        everything about a subject (purge)."""
        which = self._forget_target(id, key, subject)
        if which == "id":
            self.delete_memory(id or "", tenant=tenant)
            return m.ForgetResponse(deleted=[id or ""], count=1)
        if which == "subject":
            r = self.purge(subject or "", tenant=tenant)
            return m.ForgetResponse(deleted=[], count=r.deleted, receipt=r.receipt)
        k = normalize_key(key or "")
        # Collect first, then delete, so that the listing pages over a stable set.
        ids = [x.id for x in self.memories(tenant=tenant, namespace=self._namespace_or(namespace), limit=1000, archived=True, superseded=True) if x.key == k]
        if not ids:
            raise NotFoundError("DELETE", "/v1/memories/{id}", 404, "forget key %r: no memory has it" % k)
        out = m.ForgetResponse()
        for i in ids:
            try:
                self.delete_memory(i, tenant=tenant)
            except NotFoundError:
                continue  # deleted meanwhile: forgotten all the same
            out.deleted.append(i)
        out.count = len(out.deleted)
        return out

    # Webhooks.

    def create_webhook(self, url: Union[str, m.CreateWebhookRequest], **fields: Any) -> m.Webhook:
        """Registers an endpoint (POST /v1/webhooks); fields are
        CreateWebhookRequest's (types, description, tenant). Keep the
        answer's secret: it is not shown again. Never resent (a resend
        would register a second endpoint)."""
        return self._do(self._create_webhook_call(url, fields), m.Webhook)

    def webhooks(self, tenant: Optional[str] = None) -> List[m.Webhook]:
        """The tenant's endpoints, without secrets (GET /v1/webhooks)."""
        r = self._send(self._get_call("/v1/webhooks", tenant))
        return [from_dict(m.Webhook, w) for w in (r.json().get("webhooks") or [])]

    def delete_webhook(self, id: str, *, tenant: Optional[str] = None) -> None:
        """Removes an endpoint; an unknown id raises NotFoundError."""
        self._do(self._delete_webhook_call(id, tenant))

    def rotate_webhook_secret(self, id: str, *, tenant: Optional[str] = None) -> m.Webhook:
        """Makes a new secret (the answer's secret); the old one keeps
        signing next to it for the server's rotation grace. Never resent (a
        resend would rotate again)."""
        return self._do(self._rotate_webhook_call(id, tenant), m.Webhook)

    # Export and import.

    def export_memories(self, *, tenant: Optional[str] = None, namespace_prefix: Optional[str] = None, vectors: bool = False) -> Iterator[m.Memory]:
        """Streams the tenant's memories (GET /v1/export), archived ones
        included, in id order. The server's completion count travels in an
        HTTP trailer, which httpx does not expose: compare with stats() when
        a truncated stream matters."""
        resp = self._send(self._export_call(tenant, namespace_prefix, vectors), stream=True)
        try:
            for line in resp.iter_lines():
                if line.strip():
                    yield from_dict(m.Memory, json.loads(line))
        finally:
            resp.close()

    def import_memories(self, source: Any, *, tenant: Optional[str] = None) -> m.ImportResponse:
        """Imports NDJSON memories (POST /v1/import) in parts of at most
        8 MiB: source is a file, bytes or str of NDJSON, or an iterable of
        Memory, dict or lines. A rejected part raises InvalidRequestError,
        its bad lines in err.response.errors numbered as lines of source;
        parts before it stay imported, and importing again is safe."""
        total = m.ImportResponse()
        for offset, part in import_parts(source):
            try:
                r = self._do(self._import_call(tenant, part), m.ImportResponse)
            except InvalidRequestError as e:
                failed = self._import_failed(e, offset)
                total.errors.extend(failed.errors)
                e.response = total
                raise
            total.imported += r.imported
            total.skipped += r.skipped
            total.redacted += r.redacted
            total.quarantined += r.quarantined
            total.errors.extend(r.errors)
        return total

    # Probes.

    def ready(self) -> bool:
        """Whether the server answers /readyz with 200."""
        try:
            return self._http.get(self.base_url + "/readyz", headers={"User-Agent": self.user_agent}).status_code == 200
        except httpx.HTTPError:
            return False


def _seg(s: str) -> str:
    from urllib.parse import quote

    return quote(s, safe="")

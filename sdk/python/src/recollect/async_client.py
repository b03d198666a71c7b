"""The asyncio client: Recollect's methods as coroutines."""

from __future__ import annotations

import asyncio
import json
import time
from datetime import datetime
from typing import Any, AsyncIterator, Awaitable, Callable, Dict, Iterable, List, Optional, Union

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


class AsyncRecollect(Base):
    """The asyncio client; see Recollect for the rules. Close it with
    aclose(), or use it as an async context manager."""

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
        http_client: Optional[httpx.AsyncClient] = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        super().__init__(base_url, api_key=api_key, tenant=tenant, namespace=namespace, timeout=timeout,
                         retries=retries, max_retry_wait=max_retry_wait, user_agent=user_agent)
        self._own = http_client is None
        self._http = http_client or httpx.AsyncClient(timeout=self.timeout)
        self._sleep = sleep

    def with_options(self, **options: Any) -> "AsyncRecollect":
        """A copy with options changed, sharing this client's connections."""
        cp = AsyncRecollect.__new__(AsyncRecollect)
        cp.__dict__.update(self.__dict__)
        cp._own = False
        for k, v in options.items():
            if k not in ("api_key", "tenant", "namespace", "retries", "max_retry_wait", "user_agent"):
                raise TypeError("unknown option %r" % k)
            setattr(cp, k, v)
        return cp

    async def aclose(self) -> None:
        if self._own:
            await self._http.aclose()

    async def __aenter__(self) -> "AsyncRecollect":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.aclose()

    # Sending.

    async def _send(self, call: Call, stream: bool = False) -> httpx.Response:
        attempt = 0
        while True:
            req = self._http.build_request(call.method, self._url(call), params=call.query, content=call.body, headers=self._headers(call))
            try:
                resp = await self._http.send(req, stream=stream)
            except httpx.HTTPError as e:
                raise TransportError(call.method, call.path, e) from e
            if 200 <= resp.status_code < 300:
                return resp
            try:
                body = await resp.aread()
            finally:
                await resp.aclose()
            err = self._error(call, resp.status_code, resp.headers, body)
            wait = self._retry_wait(call, err, attempt)
            if wait is None:
                raise err
            await self._sleep(wait)
            attempt += 1

    async def _do(self, call: Call, out: Any = None) -> Any:
        resp = await self._send(call)
        if out is None or resp.status_code == 204:
            return None
        return from_dict(out, resp.json())

    # Events and memories in.

    async def ingest(self, events: Iterable[Union[m.Event, Dict[str, Any]]]) -> m.EventsResponse:
        out = m.EventsResponse()
        for start, n, call in self._event_batches(events):
            try:
                r = await self._do(call, m.EventsResponse)
            except APIError as e:
                e.message = "events %d-%d: %s" % (start, start + n - 1, e.message)
                e.response = out
                raise
            out.accepted += r.accepted
            out.ids.extend(r.ids)
        return out

    async def learn(self, content: Union[str, m.LearnRequest], **fields: Any) -> m.LearnResponse:
        return await self._do(self._learn_call(content, fields), m.LearnResponse)

    async def episode(self, summary: str, outcome: Optional[str] = None, **fields: Any) -> m.LearnResponse:
        return await self._do(self._episode_call(summary, outcome, fields), m.LearnResponse)

    async def procedure(self, name: str, steps: Iterable[str], **fields: Any) -> m.LearnResponse:
        return await self._do(self._procedure_call(name, steps, fields), m.LearnResponse)

    # Reading.

    async def recall(self, query: Union[str, m.RecallRequest], **fields: Any) -> m.RecallResponse:
        return await self._do(self._recall_call(query, fields), m.RecallResponse)

    async def context(self, query: Union[None, str, m.ContextRequest] = None, **fields: Any) -> m.ContextResponse:
        return await self._do(self._context_call(query, fields), m.ContextResponse)

    async def resume(self, *, session_id: Optional[str] = None, tenant: Optional[str] = None, namespace: Optional[str] = None, budget: Optional[int] = None) -> m.ResumeResponse:
        return await self._do(self._resume_call(tenant, namespace, session_id, budget), m.ResumeResponse)

    async def topics(self, ids: Optional[List[str]] = None, *, tenant: Optional[str] = None, limit: Optional[int] = None) -> m.TopicsResponse:
        return await self._do(self._topics_call(ids, tenant, limit), m.TopicsResponse)

    async def stats(self, tenant: Optional[str] = None) -> m.Stats:
        return await self._do(self._get_call("/v1/stats", tenant), m.Stats)

    async def get_memory(self, id: str, *, tenant: Optional[str] = None) -> m.Memory:
        return await self._do(self._get_call("/v1/memories/" + _seg(id), tenant), m.Memory)

    async def history(self, id: str, *, tenant: Optional[str] = None) -> m.History:
        return await self._do(self._get_call("/v1/memories/" + _seg(id) + "/history", tenant), m.History)

    async def list_memories(
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
        return await self._do(self._list_call(tenant, namespace, domain, limit, after, archived, superseded), m.ListResponse)

    async def memories(self, *, after: Optional[str] = None, **options: Any) -> AsyncIterator[m.Memory]:
        """Iterates over every memory list_memories selects, page by page:
        async for memory in client.memories(): ..."""
        while True:
            page = await self.list_memories(after=after, **options)
            for x in page.memories:
                yield x
            if not page.next:
                return
            after = page.next

    async def audit(
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
        return await self._do(self._audit_call(tenant, phase, op, memory_id, epoch, since, until, limit), m.AuditResponse)

    # Lifecycle.

    async def consolidate(self, tenant: Optional[str] = None) -> m.ConsolidateResponse:
        return await self._do(self._consolidate_call(tenant), m.ConsolidateResponse)

    async def reindex(self, tenant: Optional[str] = None) -> m.ReindexResponse:
        return await self._do(self._reindex_call(tenant), m.ReindexResponse)

    async def reindex_status(self, tenant: Optional[str] = None) -> m.ReindexStatus:
        return await self._do(self._get_call("/v1/reindex", tenant), m.ReindexStatus)

    # Forgetting.

    async def delete_memory(self, id: str, *, tenant: Optional[str] = None) -> None:
        await self._do(self._delete_call(id, tenant))

    async def purge(self, subject: str, *, tenant: Optional[str] = None) -> m.DeleteResponse:
        return await self._do(self._purge_call(subject, tenant), m.DeleteResponse)

    async def erasure(self, id: str, *, tenant: Optional[str] = None) -> m.ErasureReceipt:
        return await self._do(self._get_call("/v1/erasures/" + _seg(id), tenant), m.ErasureReceipt)

    async def wait_erasure(self, receipt: m.ErasureReceipt, *, tenant: Optional[str] = None, interval: float = 0.5, timeout: float = 60.0) -> m.ErasureReceipt:
        deadline = time.monotonic() + timeout
        while not receipt.done and time.monotonic() < deadline:
            await asyncio.sleep(interval)
            receipt = await self.erasure(receipt.id, tenant=tenant)
        return receipt

    async def forget(self, *, id: Optional[str] = None, key: Optional[str] = None, subject: Optional[str] = None, tenant: Optional[str] = None, namespace: Optional[str] = None) -> m.ForgetResponse:
        which = self._forget_target(id, key, subject)
        if which == "id":
            await self.delete_memory(id or "", tenant=tenant)
            return m.ForgetResponse(deleted=[id or ""], count=1)
        if which == "subject":
            r = await self.purge(subject or "", tenant=tenant)
            return m.ForgetResponse(deleted=[], count=r.deleted, receipt=r.receipt)
        k = normalize_key(key or "")
        ids = [x.id async for x in self.memories(tenant=tenant, namespace=self._namespace_or(namespace), limit=1000, archived=True, superseded=True) if x.key == k]
        if not ids:
            raise NotFoundError("DELETE", "/v1/memories/{id}", 404, "forget key %r: no memory has it" % k)
        out = m.ForgetResponse()
        for i in ids:
            try:
                await self.delete_memory(i, tenant=tenant)
            except NotFoundError:
                continue
            out.deleted.append(i)
        out.count = len(out.deleted)
        return out

    # Webhooks.

    async def create_webhook(self, url: Union[str, m.CreateWebhookRequest], **fields: Any) -> m.Webhook:
        return await self._do(self._create_webhook_call(url, fields), m.Webhook)

    async def webhooks(self, tenant: Optional[str] = None) -> List[m.Webhook]:
        r = await self._send(self._get_call("/v1/webhooks", tenant))
        return [from_dict(m.Webhook, w) for w in (r.json().get("webhooks") or [])]

    async def delete_webhook(self, id: str, *, tenant: Optional[str] = None) -> None:
        await self._do(self._delete_webhook_call(id, tenant))

    async def rotate_webhook_secret(self, id: str, *, tenant: Optional[str] = None) -> m.Webhook:
        return await self._do(self._rotate_webhook_call(id, tenant), m.Webhook)

    # Export and import.

    async def export_memories(self, *, tenant: Optional[str] = None, namespace_prefix: Optional[str] = None, vectors: bool = False) -> AsyncIterator[m.Memory]:
        resp = await self._send(self._export_call(tenant, namespace_prefix, vectors), stream=True)
        try:
            async for line in resp.aiter_lines():
                if line.strip():
                    yield from_dict(m.Memory, json.loads(line))
        finally:
            await resp.aclose()

    async def import_memories(self, source: Any, *, tenant: Optional[str] = None) -> m.ImportResponse:
        total = m.ImportResponse()
        for offset, part in import_parts(source):
            try:
                r = await self._do(self._import_call(tenant, part), m.ImportResponse)
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

    async def ready(self) -> bool:
        try:
            r = await self._http.get(self.base_url + "/readyz", headers={"User-Agent": self.user_agent})
            return r.status_code == 200
        except httpx.HTTPError:
            return False


def _seg(s: str) -> str:
    from urllib.parse import quote

    return quote(s, safe="")

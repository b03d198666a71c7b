"""The asyncio client against the same real server, driven by asyncio.run."""

from __future__ import annotations

import asyncio
from datetime import datetime, timezone
from typing import List

import pytest
from conftest import KEYS, WAIT, Server

from recollect import AsyncRecollect, Event, InvalidRequestError, NotFoundError, RateLimitError


async def eventually_async(what: str, cond, timeout: float = WAIT):
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        try:
            return await cond()
        except Exception as e:  # noqa: BLE001
            if loop.time() > deadline:
                raise AssertionError("%s: not within %ss: %s" % (what, timeout, e)) from e
        await asyncio.sleep(0.05)


def test_async_client(server: Server) -> None:
    async def run() -> None:
        async with AsyncRecollect(server.url, api_key=KEYS["globex"], namespace="async") as rc:
            resp = await rc.ingest([Event(type="turn", session_id="a1", role="user", name="Dana",
                                          content="Our production database is PostgreSQL 16 on the primary host")])
            assert resp.accepted == 1
            learned = await rc.learn("The on-call rotation changes every Monday", key="oncall", wait=True)
            assert learned.stored is True

            async def found():
                r = await rc.recall("which database do we run in production?", as_of=datetime.now(timezone.utc))
                assert any("postgresql" in x.memory.content.lower() for x in r.memories)
                return r

            r = await eventually_async("recall the database", found)
            assert r.time is not None and r.time.as_of is not None
            page_ids: List[str] = []
            async for m in rc.memories(limit=1):
                page_ids.append(m.id)
            st = await rc.stats()
            assert len(page_ids) == st.memories and page_ids == sorted(page_ids)
            assert (await rc.get_memory(learned.memory_id)).key == "oncall"
            with pytest.raises(NotFoundError):
                await rc.get_memory("missing")
            with pytest.raises(InvalidRequestError) as bad:
                await rc.recall("x", as_of=datetime(1960, 1, 1))
            assert bad.value.field == "as_of"
            ctx = await rc.context("database")
            assert ctx.tokens > 0
            exported = [m async for m in rc.export_memories()]
            assert sorted(m.id for m in exported) == sorted(page_ids)
            imp = await rc.import_memories(exported)
            assert imp.imported + imp.skipped == len(exported) and imp.errors == []
            got = await rc.forget(key="OnCall")
            assert got.deleted == [learned.memory_id]

        waits: List[float] = []

        async def sleep(d: float) -> None:
            waits.append(d)
            await asyncio.sleep(d)

        async with AsyncRecollect(server.url, api_key=KEYS["fast3"], sleep=sleep) as fast:
            for _ in range(5):
                assert (await fast.stats()).tenant == "fast3"
                if waits:
                    break
            assert waits == [1.0]
            with pytest.raises(RateLimitError):
                for _ in range(5):
                    await fast.consolidate()
            assert waits == [1.0]

    asyncio.run(run())

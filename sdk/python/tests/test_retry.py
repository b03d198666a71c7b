"""Retries as the Go client: idempotent calls only, on 429 and 503, after
Retry-After, never longer than max_retry_wait. Rate-limited API keys of the
real server give the 429s."""

from __future__ import annotations

import time
from datetime import datetime, timedelta, timezone
from typing import List

import pytest
from conftest import Server

from recollect import RateLimitError, Recollect, UnavailableError
from recollect._base import Call


class Sleeps:
    """Records the waits between attempts, and waits them."""

    def __init__(self) -> None:
        self.waits: List[float] = []

    def __call__(self, d: float) -> None:
        self.waits.append(d)
        time.sleep(d)


def test_idempotent_call_is_resent_after_retry_after(server: Server) -> None:
    sleeps = Sleeps()
    rc = server.client("fast", sleep=sleeps)  # one request a second
    for _ in range(5):  # until the limit is hit once; every call succeeds
        assert rc.stats().tenant == "fast"
        if sleeps.waits:
            break
    assert sleeps.waits == [1.0]


def test_consolidate_is_never_resent(server: Server) -> None:
    sleeps = Sleeps()
    rc = server.client("fast2", sleep=sleeps)
    rc.stats()
    with pytest.raises(RateLimitError) as e:
        for _ in range(5):
            rc.consolidate()
    assert e.value.status == 429 and e.value.code == "rate_limited" and e.value.retry_after == 1.0
    assert isinstance(e.value, UnavailableError) and sleeps.waits == []


def test_a_longer_retry_after_than_allowed_is_the_error(server: Server) -> None:
    sleeps = Sleeps()
    rc = server.client("slow", sleep=sleeps)  # one request per 100 s
    rc.stats()
    with pytest.raises(RateLimitError) as e:
        rc.stats()
    assert e.value.retry_after is not None and e.value.retry_after > 30 and sleeps.waits == []
    # retries=0 sends once, whatever the wait.
    with pytest.raises(RateLimitError):
        rc.with_options(retries=0, max_retry_wait=1000).stats()
    assert sleeps.waits == []


def test_retry_rule() -> None:
    rc = Recollect("http://127.0.0.1:1", retries=3, max_retry_wait=30)
    get = Call("GET", "/v1/stats", idempotent=True)
    post = Call("POST", "/v1/consolidate")
    now = datetime(2025, 1, 1, tzinfo=timezone.utc)
    rc._now = lambda: now

    def err(status: int, retry_after: str = ""):
        return rc._error(get, status, {"Retry-After": retry_after} if retry_after else {}, b'{"error":"busy","code":"unavailable"}')

    # No Retry-After: a doubling backoff from 0.5 s, capped by max_retry_wait.
    assert [rc._retry_wait(get, err(503), a) for a in range(4)] == [0.5, 1.0, 2.0, None]
    assert rc.with_options(max_retry_wait=0.75)._retry_wait(get, err(503), 1) == 0.75
    # Retry-After as seconds or as an HTTP date.
    assert rc._retry_wait(get, err(429, "7"), 0) == 7.0
    date = (now + timedelta(seconds=12)).strftime("%a, %d %b %Y %H:%M:%S GMT")
    assert err(503, date).retry_after == 12.0
    assert rc._retry_wait(get, err(503, "31"), 0) is None
    # Only 429 and 503, and only idempotent calls.
    assert rc._retry_wait(get, err(500), 0) is None
    assert rc._retry_wait(post, err(503), 0) is None
    e = err(503)
    assert isinstance(e, UnavailableError) and e.message == "busy" and e.code == "unavailable"
    proxy = rc._error(get, 502, {}, b"bad gateway\n")
    assert proxy.message == "bad gateway" and type(proxy).__name__ == "APIError"

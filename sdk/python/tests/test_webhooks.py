"""Webhooks: registering, a signed delivery to a receiver in the test,
verify_webhook on it, rotation and deletion, against the real server; and
verify_webhook on a fixed vector made with the Go client's logic."""

from __future__ import annotations

import asyncio
import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Dict, Iterator, List, Tuple

import pytest
from conftest import KEYS, Server, eventually

from recollect import AsyncRecollect, NotFoundError, WebhookVerificationError, verify_webhook

# Made with pkg/client.VerifyWebhook's HMAC: the Standard Webhooks example
# secret, id and timestamp.
SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LKLtQZ8s0eF+C8AvM="
VECTOR = {
    "webhook-id": "msg_p5jXN8AQM9LWM0D4loKWxJek",
    "webhook-timestamp": "1614265330",
    "webhook-signature": "v1,bm9wZQ== v1,rSEZPOUkDyYkwvi3bMJHaYHJiR/O8sVElhcEGP0dJ1o=",
}
BODY = b'{"test": 2432232314}'
SENT = 1614265330


def test_verify_fixed_vector() -> None:
    verify_webhook(SECRET, VECTOR, BODY, now=SENT)
    verify_webhook(SECRET, {k.upper(): v for k, v in VECTOR.items()}, BODY.decode(), now=SENT + 300)
    with pytest.raises(WebhookVerificationError, match="tolerance"):
        verify_webhook(SECRET, VECTOR, BODY, now=SENT + 301)
    with pytest.raises(WebhookVerificationError, match="tolerance"):
        verify_webhook(SECRET, VECTOR, BODY, now=SENT - 301)
    verify_webhook(SECRET, VECTOR, BODY, tolerance=3600, now=SENT + 301)
    with pytest.raises(WebhookVerificationError, match="no v1 signature"):
        verify_webhook(SECRET, VECTOR, BODY + b" ", now=SENT)
    with pytest.raises(WebhookVerificationError, match="no v1 signature"):
        verify_webhook("whsec_" + "A" * 44, VECTOR, BODY, now=SENT)
    with pytest.raises(WebhookVerificationError, match="no v1 signature"):
        verify_webhook(SECRET, dict(VECTOR, **{"webhook-signature": VECTOR["webhook-signature"].replace("v1,", "v2,")}), BODY, now=SENT)
    with pytest.raises(WebhookVerificationError, match="missing"):
        verify_webhook(SECRET, {k: v for k, v in VECTOR.items() if k != "webhook-id"}, BODY, now=SENT)
    with pytest.raises(ValueError):
        verify_webhook("whsec_not base64!", VECTOR, BODY, now=SENT)


class Receiver:
    """A loopback HTTP server keeping every POST it gets."""

    def __init__(self) -> None:
        self.got: List[Tuple[Dict[str, str], bytes]] = []
        self.lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                with outer.lock:
                    outer.got.append(({k.lower(): v for k, v in self.headers.items()}, body))
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = HTTPServer(("127.0.0.1", 0), Handler)
        self.url = "http://127.0.0.1:%d/hooks" % self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def stored(self, memory_id: str) -> Tuple[Dict[str, str], bytes]:
        with self.lock:
            for h, body in self.got:
                ev = json.loads(body)
                if ev.get("type") == "memory.stored" and ev["data"]["id"] == memory_id:
                    return h, body
        raise AssertionError("no memory.stored of %s among %d deliveries" % (memory_id, len(self.got)))

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    r = Receiver()
    try:
        yield r
    finally:
        r.close()


def test_webhook_delivery_verifies(server: Server, receiver: Receiver) -> None:
    rc = server.client("globex", namespace="hooks")
    wh = rc.create_webhook(receiver.url, types=["memory.stored"], description="python sdk")
    assert wh.id and wh.secret.startswith("whsec_") and wh.url == receiver.url
    assert (wh.tenant, wh.types, wh.description) == ("globex", ["memory.stored"], "python sdk")
    assert wh.created is not None
    listed = rc.webhooks()
    assert [w.id for w in listed] == [wh.id] and listed[0].secret == ""
    assert wh.id not in [w.id for w in server.client("acme").webhooks()]

    learned = rc.learn("The release train leaves every other Thursday", wait=True)
    headers, body = eventually("memory.stored delivered", lambda: receiver.stored(learned.memory_id))
    verify_webhook(wh.secret, headers, body)
    ev = json.loads(body)
    assert ev["data"]["tenant"] == "globex" and "release train" in ev["data"]["memory"]["content"]
    tampered = body.replace(b"release train", b"release trail")
    assert tampered != body
    with pytest.raises(WebhookVerificationError):
        verify_webhook(wh.secret, headers, tampered)

    rotated = rc.rotate_webhook_secret(wh.id)
    assert rotated.id == wh.id and rotated.secret.startswith("whsec_") and rotated.secret != wh.secret
    # Signed with both during the grace: a delivery after the rotation verifies with either.
    again = rc.learn("The release train is paused in December", wait=True)
    headers, body = eventually("memory.stored after rotation", lambda: receiver.stored(again.memory_id))
    verify_webhook(rotated.secret, headers, body)
    verify_webhook(wh.secret, headers, body)

    rc.delete_webhook(wh.id)
    assert rc.webhooks() == []
    with pytest.raises(NotFoundError):
        rc.delete_webhook(wh.id)
    with pytest.raises(NotFoundError):
        rc.rotate_webhook_secret(wh.id)


def test_async_webhooks(server: Server, receiver: Receiver) -> None:
    async def run() -> None:
        async with AsyncRecollect(server.url, api_key=KEYS["acme"], namespace="ahooks") as rc:
            wh = await rc.create_webhook(receiver.url)
            assert wh.secret.startswith("whsec_") and wh.tenant == "acme"
            assert [w.id for w in await rc.webhooks()] == [wh.id]
            learned = await rc.learn("Async hooks see the canary deploys", wait=True)
            loop = asyncio.get_running_loop()
            deadline = loop.time() + 60
            while True:
                try:
                    headers, body = receiver.stored(learned.memory_id)
                    break
                except AssertionError:
                    if loop.time() > deadline:
                        raise
                    await asyncio.sleep(0.05)
            verify_webhook(wh.secret, headers, body)
            rotated = await rc.rotate_webhook_secret(wh.id)
            assert rotated.secret != wh.secret
            await rc.delete_webhook(wh.id)
            assert await rc.webhooks() == []

    asyncio.run(run())

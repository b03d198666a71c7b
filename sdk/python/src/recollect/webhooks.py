"""Verifying a webhook delivery, as the Go client's VerifyWebhook does.

A delivery's webhook-signature header holds space-separated "v1,<sig>"
entries, each the base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>"
keyed with the base64-decoded part of the secret after "whsec_" (two during
a rotation). Verify before trusting a body, then deduplicate on webhook-id:
delivery is at least once."""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import time
from typing import Any, Mapping, Optional, Union

from .errors import RecollectError

DEFAULT_TOLERANCE = 300  # seconds a delivery's timestamp may be off now


class WebhookVerificationError(RecollectError):
    """A delivery without a valid, fresh signature; reason says why."""

    def __init__(self, reason: str) -> None:
        super().__init__("webhook signature does not verify: " + reason)
        self.reason = reason


def _header(headers: Mapping[str, Any], name: str) -> str:
    v = headers.get(name)
    if v is None:
        for k, x in headers.items():
            if k.lower() == name:
                v = x
                break
    if isinstance(v, (list, tuple)):
        v = v[0] if v else None
    if isinstance(v, bytes):
        v = v.decode("latin-1")
    return "" if v is None else str(v)


def verify_webhook(
    secret: str,
    headers: Mapping[str, Any],
    body: Union[bytes, str],
    tolerance: float = DEFAULT_TOLERANCE,
    now: Optional[float] = None,
) -> None:
    """Checks a delivery: headers (any mapping; names matched without
    regard to case) and the raw body as received. Raises
    WebhookVerificationError when webhook-id or webhook-timestamp is
    missing, the timestamp is more than tolerance seconds off now (Unix
    seconds, default the clock), or no v1 signature matches; a secret that
    is not "whsec_<base64>" raises ValueError."""
    msg_id = _header(headers, "webhook-id")
    ts = _header(headers, "webhook-timestamp")
    sigs = _header(headers, "webhook-signature")
    try:
        sent = int(ts)
    except ValueError:
        sent = None
    if not msg_id or sent is None:
        raise WebhookVerificationError("missing webhook-id or webhook-timestamp")
    if abs((time.time() if now is None else now) - sent) > tolerance:
        raise WebhookVerificationError("timestamp outside the tolerance")
    raw = secret[len("whsec_"):] if secret.startswith("whsec_") else secret
    try:
        key = base64.b64decode(raw, validate=True)
    except (binascii.Error, ValueError) as e:
        raise ValueError("decode webhook secret: %s" % e) from e
    if isinstance(body, str):
        body = body.encode()
    want = hmac.new(key, ("%s.%s." % (msg_id, ts)).encode() + body, hashlib.sha256).digest()
    for entry in sigs.split():
        version, _, sig = entry.partition(",")
        if version != "v1" or not sig:
            continue
        try:
            got = base64.b64decode(sig, validate=True)
        except (binascii.Error, ValueError):
            continue
        if hmac.compare_digest(got, want):
            return
    raise WebhookVerificationError("no v1 signature matches")

"""Recollect: long-term memory for AI agents. The Python client.

    from recollect import Recollect

    with Recollect("http://127.0.0.1:7700", tenant="acme") as rc:
        rc.learn("Deploys go to the staging cluster first", wait=True)
        print(rc.recall("where do deploys go?").context)

Recollect is the synchronous client, AsyncRecollect the asyncio one; both
have the same methods. Errors: every answer outside 2xx raises an APIError
subclass by status (NotFoundError, UnauthorizedError, InvalidRequestError,
UnavailableError, RateLimitError). Retries: only idempotent calls (reads,
recall, context, deletes, ingest and learn, whose event ids make a resend
the same event) are resent on 429 and 503, after Retry-After (else a
doubling backoff from 0.5 s), at most retries times (default 3), never
waiting longer than max_retry_wait (default 30 s) at once. consolidate is
never resent: each call asks for a new epoch."""

from ._base import normalize_key
from ._codec import format_time, parse_time
from .async_client import AsyncRecollect
from .client import Recollect
from .errors import (
    APIError,
    InvalidError,
    InvalidRequestError,
    NotFoundError,
    RateLimitError,
    RecollectError,
    TransportError,
    UnauthorizedError,
    UnavailableError,
    ValidationError,
)
from .webhooks import WebhookVerificationError, verify_webhook
from .models import *  # noqa: F401,F403
from .models import __all__ as _models

__version__ = "0.1.0"

__all__ = [
    "Recollect",
    "AsyncRecollect",
    "APIError",
    "InvalidError",
    "InvalidRequestError",
    "NotFoundError",
    "RateLimitError",
    "RecollectError",
    "TransportError",
    "UnauthorizedError",
    "UnavailableError",
    "ValidationError",
    "WebhookVerificationError",
    "verify_webhook",
    "normalize_key",
    "parse_time",
    "format_time",
] + list(_models)

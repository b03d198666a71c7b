"""Errors of the Recollect client.

Every answer outside 2xx raises an APIError subclass chosen by status, as
the Go client's errors.Is sentinels: NotFoundError (404), UnauthorizedError
(401, 403), InvalidRequestError (400, 422), UnavailableError (503) and its
RateLimitError (429). Client-side validation raises ValidationError; both
it and InvalidRequestError are InvalidError (and ValueError), so one except
clause covers both sides."""

from __future__ import annotations

from typing import Any, Optional


class RecollectError(Exception):
    """Base of every error the client raises."""


class InvalidError(RecollectError, ValueError):
    """A request the client or the server refused as invalid; field names
    the offending field when known."""

    field: str = ""


class ValidationError(InvalidError):
    """Refused by the client before anything was sent."""

    def __init__(self, field: str, reason: str) -> None:
        super().__init__("%s %s" % (field, reason))
        self.field = field
        self.reason = reason


class TransportError(RecollectError):
    """The request did not get an answer (connection refused, timeout...)."""

    def __init__(self, method: str, path: str, cause: BaseException) -> None:
        super().__init__("%s %s: %s" % (method, path, cause))
        self.method = method
        self.path = path
        self.__cause__ = cause


class APIError(RecollectError):
    """An answer outside 2xx. message is the server's "error" (or the body's
    text), field the offending field of a 400, code the server's code (e.g.
    "invalid_request", "rate_limited"), retry_after the wait in seconds the
    server asked for (429, 503), else None."""

    def __init__(
        self,
        method: str,
        path: str,
        status: int,
        message: str = "",
        field: str = "",
        code: str = "",
        retry_after: Optional[float] = None,
        body: bytes = b"",
    ) -> None:
        self.method = method
        self.path = path
        self.status = status
        self.message = message
        self.field = field
        self.code = code
        self.retry_after = retry_after
        self.body = body
        self.response: Any = None  # a decoded answer, for calls whose errors carry one
        super().__init__(str(self))

    def __str__(self) -> str:
        out = "%s %s answered %d" % (self.method, self.path, self.status)
        if self.message:
            out += ": " + self.message
        if self.retry_after:
            out += " (retry after %gs)" % self.retry_after
        return out


class InvalidRequestError(APIError, InvalidError):
    """400 or 422: the request was refused; field names the offending field."""


class UnauthorizedError(APIError):
    """401 (no or a wrong API key) or 403 (the key may not act for the tenant)."""


class NotFoundError(APIError):
    """404."""


class UnavailableError(APIError):
    """503, and 429 (RateLimitError): try again after retry_after."""


class RateLimitError(UnavailableError):
    """429: the API key's rate limit."""


def error_class(status: int) -> type:
    if status in (400, 422):
        return InvalidRequestError
    if status in (401, 403):
        return UnauthorizedError
    if status == 404:
        return NotFoundError
    if status == 429:
        return RateLimitError
    if status == 503:
        return UnavailableError
    return APIError


def retryable(status: int) -> bool:
    return status in (429, 503)

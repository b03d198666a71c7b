"""Wire encoding: RFC 3339 times and dataclasses to and from JSON objects."""

from __future__ import annotations

import dataclasses
import re
import sys
import typing
from datetime import datetime, timedelta, timezone
from typing import Any, Dict, Optional, Type, TypeVar, Union

T = TypeVar("T")

_RFC3339 = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?([Zz]|[+-]\d{2}:\d{2})$"
)


def parse_time(s: str) -> datetime:
    """Parses an RFC 3339 time as the server writes it (nanoseconds are cut
    to microseconds); the result is timezone-aware."""
    m = _RFC3339.match(s.strip())
    if not m:
        raise ValueError("not an RFC 3339 time: %r" % s)
    year, month, day, hour, minute, second = (int(g) for g in m.groups()[:6])
    frac = (m.group(7) or "")[:6].ljust(6, "0")
    zone = m.group(8)
    if zone in ("Z", "z"):
        tz = timezone.utc
    else:
        sign = 1 if zone[0] == "+" else -1
        tz = timezone(sign * timedelta(hours=int(zone[1:3]), minutes=int(zone[4:6])))
    return datetime(year, month, day, hour, minute, second, int(frac), tzinfo=tz)


def format_time(t: Union[datetime, str]) -> str:
    """Formats a time as RFC 3339 in UTC; a naive datetime is taken as UTC.
    A string is sent as it is."""
    if isinstance(t, str):
        return t
    if t.tzinfo is None:
        t = t.replace(tzinfo=timezone.utc)
    t = t.astimezone(timezone.utc)
    out = t.strftime("%Y-%m-%dT%H:%M:%S")
    if t.microsecond:
        out += (".%06d" % t.microsecond).rstrip("0")
    return out + "Z"


_hints_cache: Dict[type, Dict[str, Any]] = {}


def _hints(cls: type) -> Dict[str, Any]:
    h = _hints_cache.get(cls)
    if h is None:
        module = sys.modules[cls.__module__]
        h = typing.get_type_hints(cls, vars(module))
        _hints_cache[cls] = h
    return h


def _strip_optional(tp: Any) -> Any:
    if typing.get_origin(tp) is Union:
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        if len(args) == 1:
            return args[0]
    return tp


def _decode(tp: Any, v: Any) -> Any:
    if v is None:
        return None
    tp = _strip_optional(tp)
    origin = typing.get_origin(tp)
    if origin in (list, typing.List):
        (item,) = typing.get_args(tp) or (Any,)
        return [_decode(item, x) for x in v]
    if origin in (dict, typing.Dict):
        _, item = typing.get_args(tp) or (str, Any)
        return {k: _decode(item, x) for k, x in v.items()}
    if tp is datetime:
        return parse_time(v) if isinstance(v, str) else v
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return from_dict(tp, v) if isinstance(v, dict) else v
    if tp is float and isinstance(v, int) and not isinstance(v, bool):
        return float(v)
    return v


def from_dict(cls: Type[T], data: Dict[str, Any]) -> T:
    """Builds dataclass cls from a decoded JSON object. Fields the server
    added after this SDK are ignored; missing ones take their defaults."""
    hints = _hints(cls)
    kwargs = {}
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        name = f.metadata.get("json", f.name)
        if name in data:
            kwargs[f.name] = _decode(hints[f.name], data[name])
    return cls(**kwargs)


def _encode(v: Any) -> Any:
    if isinstance(v, datetime):
        return format_time(v)
    if dataclasses.is_dataclass(v) and not isinstance(v, type):
        return to_dict(v)
    if isinstance(v, (list, tuple)):
        return [_encode(x) for x in v]
    if isinstance(v, dict):
        return {k: _encode(x) for k, x in v.items()}
    return v


def to_dict(obj: Any) -> Dict[str, Any]:
    """Encodes a dataclass as a JSON object, leaving out fields that are None
    (the server's defaults apply to them)."""
    if isinstance(obj, dict):
        return {k: _encode(v) for k, v in obj.items() if v is not None}
    out: Dict[str, Any] = {}
    for f in dataclasses.fields(obj):
        v = getattr(obj, f.name)
        if v is None:
            continue
        out[f.metadata.get("json", f.name)] = _encode(v)
    return out


def optional_time(t: Optional[Union[datetime, str]]) -> Optional[str]:
    return None if t is None else format_time(t)

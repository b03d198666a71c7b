"""Starts one real `recollect run` for the suite: a free loopback port, a
temporary data dir, API keys (two rate-limited ones for the retry tests).
The binary is $RECOLLECT_BIN, else built from this repository with go."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, Iterator, Optional, TypeVar

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from recollect import Recollect  # noqa: E402

T = TypeVar("T")

REPO = Path(__file__).resolve().parents[3]
KEYS = {
    "acme": "acme-key-0123456789abcdef",
    "globex": "globex-key-0123456789abcdef",
    "admin": "admin-key-0123456789abcdef",
    "fast": "fast-key-0123456789abcdef",  # one request a second: Retry-After 1
    "fast2": "fast2-key-0123456789abcdef",
    "fast3": "fast3-key-0123456789abcdef",
    "slow": "slow-key-0123456789abcdef",  # one request per 100 s: Retry-After 100
}
KEYS_YAML = """
- {key: %(acme)s, tenant: acme, rate_limit: 0}
- {key: %(globex)s, tenant: globex, rate_limit: 0}
- {key: %(admin)s, scopes: [admin], rate_limit: 0}
- {key: %(fast)s, tenant: fast, rate_limit: 1, rate_burst: 1}
- {key: %(fast2)s, tenant: fast2, rate_limit: 1, rate_burst: 1}
- {key: %(fast3)s, tenant: fast3, rate_limit: 1, rate_burst: 1}
- {key: %(slow)s, tenant: slow, rate_limit: 0.01, rate_burst: 1}
""" % KEYS

WAIT = 60.0  # seconds for the pipeline to store what was sent


def eventually(what: str, cond: Callable[[], T], timeout: float = WAIT) -> T:
    """Polls cond every 50 ms until it returns without raising; its value."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            return cond()
        except Exception as e:  # noqa: BLE001 - the last one is reported
            if time.monotonic() > deadline:
                raise AssertionError("%s: not within %ss: %s" % (what, timeout, e)) from e
        time.sleep(0.05)


def _binary(tmp: Path) -> str:
    b = os.environ.get("RECOLLECT_BIN")
    if b:
        return b
    out = tmp / "recollect"
    subprocess.run(["go", "build", "-o", str(out), "./cmd/recollect"], cwd=REPO, check=True)
    return str(out)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, url: str, data_dir: Path) -> None:
        self.url = url
        self.data_dir = data_dir

    def client(self, who: Optional[str] = "acme", **options: object) -> Recollect:
        return Recollect(self.url, api_key=KEYS[who] if who else None, **options)  # type: ignore[arg-type]


@pytest.fixture(scope="session")
def server() -> Iterator[Server]:
    with tempfile.TemporaryDirectory(prefix="recollect-py-") as d:
        tmp = Path(d)
        keys = tmp / "keys.yaml"
        keys.write_text(KEYS_YAML)
        data = tmp / "data"
        log = open(tmp / "server.log", "wb")
        for _ in range(3):  # a port taken between probe and bind is retried
            port = _free_port()
            proc = subprocess.Popen(
                [_binary(tmp), "run", "--data-dir", str(data), "--http-addr", "127.0.0.1:%d" % port,
                 "--api-keys-file", str(keys), "--topiary-debounce", "200ms", "--log-format", "json",
                 "--webhook-allow-private"],  # the webhook tests' receivers listen on loopback
                stdout=log, stderr=subprocess.STDOUT,
            )
            srv = Server("http://127.0.0.1:%d" % port, data)
            probe = Recollect(srv.url)
            deadline = time.monotonic() + WAIT
            while proc.poll() is None and not probe.ready() and time.monotonic() < deadline:
                time.sleep(0.1)
            probe.close()
            if proc.poll() is None:
                break
        else:
            raise RuntimeError("recollect run did not start: " + (tmp / "server.log").read_text()[-2000:])
        try:
            yield srv
        finally:
            proc.terminate()
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            log.close()

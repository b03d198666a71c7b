"""The synchronous client against a real server."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta, timezone

import pytest
from conftest import KEYS, Server, eventually

from recollect import (
    Event,
    InvalidError,
    InvalidRequestError,
    LearnRequest,
    Memory,
    Message,
    NotFoundError,
    RecallFilters,
    Recollect,
    UnauthorizedError,
    ValidationError,
    normalize_key,
)


def stored(rc: Recollect, id: str) -> Memory:
    return eventually("memory %s stored" % id, lambda: rc.get_memory(id))


def test_ingest_and_recall(server: Server) -> None:
    rc = server.client()
    resp = rc.ingest([Event(id="turn-1", type="turn", session_id="s1", subject="alice", role="user", name="Alice",
                            content="I prefer tabs over spaces, and always run make test before committing")])
    assert resp.accepted == 1 and resp.ids == ["turn-1"]

    def top():
        r = rc.recall("how should I indent code?")
        assert r.memories, "nothing recalled"
        assert any("tabs" in x.memory.content.lower() for x in r.memories)
        assert "## Recalled Context" in r.context
        return r

    r = eventually("recall the tabs preference", top)
    assert all(x.memory.tenant == "acme" for x in r.memories)
    assert isinstance(r.memories[0].memory.created_at, datetime)
    # Another tenant sees nothing.
    assert server.client("globex").recall("how should I indent code?").memories == []


def test_events_go_in_batches(server: Server) -> None:
    # 1001 events: more than one POST /v1/events takes (1000).
    rc = server.client()
    events = [Event(type="feedback", id="fb-%d" % i, feedback={"memory_id": "nope", "success": True}) for i in range(1001)]  # type: ignore[arg-type]
    resp = rc.ingest(events)
    assert resp.accepted == 1001 and resp.ids[0] == "fb-0" and resp.ids[-1] == "fb-1000"
    # Missing ids are filled in; dicts are events too.
    resp = rc.ingest([{"type": "compaction", "session_id": "s2", "messages": [Message(role="user", name="Bob", content="hello")]}])
    assert resp.accepted == 1 and len(resp.ids[0]) == 36
    with pytest.raises(ValidationError):
        rc.ingest([])


def test_learn_get_list_stats_history(server: Server) -> None:
    rc = server.client(namespace="proj")
    r = rc.learn("Deploys go to the staging cluster first", key="Deploy Target", type="workflow", importance=0.8, tags=["Deploy"], wait=True, timeout="30s")
    assert r.id and r.memory_id and r.stored is True and r.memory is not None
    m = stored(rc, r.memory_id)
    assert (m.tenant, m.namespace, m.key, m.type, m.kind, m.source) == ("acme", "proj", "deploy-target", "workflow", "procedural", "api")
    assert "deploy" in m.tags
    r2 = rc.learn(LearnRequest(content="The CI runs on two cores"), namespace="other")
    stored(rc, r2.memory_id)

    st = rc.stats()
    listed = [x.id for x in rc.memories(limit=1)]
    assert st.tenant == "acme" and st.memories >= 2
    assert len(listed) == st.memories and listed == sorted(listed) and r.memory_id in listed
    page = rc.list_memories(namespace="other")
    assert [x.id for x in page.memories] == [r2.memory_id] and page.next == ""
    h = rc.history(r.memory_id)
    assert h.id == r.memory_id and [v.id for v in h.chain] == [r.memory_id]


def test_episode_and_procedure(server: Server) -> None:
    rc = server.client()
    ep = rc.episode("Rolled back the billing deploy after the health check failed", "Failure", tags=["billing"])
    pr = rc.procedure("Release a version", ["run make test", " ", "tag the commit", "push the tag"])
    e = stored(rc, ep.memory_id)
    assert e.type == "episode" and e.content.endswith("failed. Outcome: Failure")
    assert e.tags == ["episode", "billing", "outcome:failure"]
    p = stored(rc, pr.memory_id)
    assert p.type == "procedure" and p.key == "procedure/release-a-version"
    assert " ".join(p.content.split()) == "Release a version: 1. run make test 2. tag the commit 3. push the tag"
    for bad in (lambda: rc.episode(" ", "success"), lambda: rc.procedure("x", [" "])):
        with pytest.raises(InvalidError):
            bad()


def test_errors(server: Server) -> None:
    rc = server.client()
    with pytest.raises(NotFoundError) as nf:
        rc.get_memory("no-such-memory")
    assert nf.value.status == 404 and nf.value.path == "/v1/memories/no-such-memory"
    with pytest.raises(InvalidRequestError) as bad:
        rc.learn("x", type="bogus")
    assert bad.value.status == 400 and bad.value.field == "memory.type" and bad.value.code == "invalid_request"
    assert isinstance(bad.value, ValueError)
    with pytest.raises(UnauthorizedError) as unauth:
        server.client(None).stats()
    assert unauth.value.status == 401
    with pytest.raises(UnauthorizedError) as forbidden:
        rc.stats("globex")
    assert forbidden.value.status == 403
    # An admin key may act for any tenant.
    assert server.client("admin").stats("globex").tenant == "globex"


def test_as_of_and_filters(server: Server) -> None:
    rc = server.client()
    then = datetime(2024, 5, 1, 12, 30, tzinfo=timezone.utc)
    r = rc.recall("staging cluster", as_of=then, filters=RecallFilters(include_archived=True), k=3, per_domain=2)
    assert r.time is not None and r.time.as_of == then
    # A naive datetime is UTC; a time before 1970 is refused by the server, naming the field.
    with pytest.raises(InvalidRequestError) as bad:
        rc.recall("x", as_of=datetime(1960, 1, 1))
    assert bad.value.field == "as_of"
    ctx = rc.context("deploys", as_of=then, budget=200)
    assert ctx.budget == 200
    with pytest.raises(InvalidRequestError) as bad:
        rc.context("x", as_of=datetime(1960, 1, 1))
    assert bad.value.field == "as_of"


def test_context_resume_topics_consolidate_audit(server: Server) -> None:
    rc = server.client()
    r = rc.learn("The team standup is at 9:30 every weekday", wait=True)
    stored(rc, r.memory_id)
    ctx = rc.context("when is the standup?", session_id="s1")
    assert ctx.tokens > 0 and ctx.context and any(x.memory.id for x in ctx.memories)
    same = rc.context(query="when is the standup?", session_id="s1")
    assert [x.memory.id for x in same.memories] == [x.memory.id for x in ctx.memories]
    res = rc.resume(session_id="s1")
    assert res.budget > 0

    def tree():
        t = rc.topics()
        assert t.tenant == "acme" and t.memories > 0 and t.topics
        one = rc.topics([t.topics[0].id, "nope"])
        assert [x.id for x in one.topics] == [t.topics[0].id] and one.missing == ["nope"]
        assert one.details[t.topics[0].id].memories
        return t

    eventually("topic tree built", tree)
    ep = rc.consolidate()
    assert ep.tenant == "acme" and ep.epoch.startswith("manual:")
    assert rc.audit(limit=5).tenant == "acme"


def test_forget(server: Server) -> None:
    rc = server.client()
    a = rc.learn("The editor theme is solarized dark", key="editor/theme")
    b = rc.learn("In the other project the theme is light", key="Editor/Theme", namespace="other")
    stored(rc, a.memory_id)
    stored(rc, b.memory_id)
    got = rc.forget(key=" editor//THEME ")
    assert sorted(got.deleted) == sorted([a.memory_id, b.memory_id]) and got.count == 2
    with pytest.raises(NotFoundError):
        rc.get_memory(a.memory_id)
    with pytest.raises(NotFoundError):
        rc.forget(key="editor/theme")
    c = rc.learn("Carol's birthday is in March", subject="carol")
    stored(rc, c.memory_id)
    purged = rc.forget(subject="carol")
    assert purged.count >= 1 and purged.deleted == []
    with pytest.raises(NotFoundError):
        rc.get_memory(c.memory_id)
    assert rc.purge("nobody-at-all").deleted == 0
    d = rc.learn("A memory to forget by id")
    stored(rc, d.memory_id)
    assert rc.forget(id=d.memory_id).deleted == [d.memory_id]
    with pytest.raises(ValidationError):
        rc.forget(id="x", key="y")
    assert normalize_key(" User__Name ") == "user-name"


def test_export_import(server: Server) -> None:
    admin = server.client("admin")
    src = "exp-" + uuid.uuid4().hex[:8]
    dst = "imp-" + uuid.uuid4().hex[:8]
    ids = [admin.learn("Export fact number %d" % i, tenant=src).memory_id for i in range(3)]
    for i in ids:
        eventually("memory stored", lambda i=i: admin.get_memory(i, tenant=src))
    first = list(admin.export_memories(tenant=src))
    assert sorted(x.id for x in first) == sorted(ids)
    resp = admin.import_memories(first, tenant=dst)
    assert resp.imported == 3 and resp.skipped == 0 and resp.errors == []
    second = list(admin.export_memories(tenant=dst))
    assert [(x.id, x.content, x.created_at) for x in second] == [(x.id, x.content, x.created_at) for x in first]
    assert all(x.tenant == dst for x in second)
    again = admin.import_memories(second, tenant=dst)
    assert again.imported == 0 and again.skipped == 3
    # A bad line: nothing of the part is written, the lines are numbered.
    good = '{"id":"new-1","tenant":"x","namespace":"default","content":"fine","domain":"general","type":"fact","kind":"semantic","layer":"working","source":"api","created_at":"2025-01-01T00:00:00Z","modified_at":"2025-01-01T00:00:00Z"}\n'
    with pytest.raises(InvalidRequestError) as bad:
        admin.import_memories(good + "not json\n", tenant=dst)
    assert bad.value.field == "line 2" and [e.line for e in bad.value.response.errors] == [2]
    with pytest.raises(NotFoundError):
        admin.get_memory("new-1", tenant=dst)
    with pytest.raises(UnauthorizedError):
        list(server.client("acme").export_memories(tenant=dst))


def test_with_options(server: Server) -> None:
    rc = server.client(None)
    acme = rc.with_options(api_key=KEYS["acme"], tenant="acme")
    assert acme.stats().tenant == "acme"
    with pytest.raises(UnauthorizedError):
        rc.stats()
    with pytest.raises(TypeError):
        rc.with_options(nope=1)
    assert (datetime.now(timezone.utc) - timedelta(seconds=1)).tzinfo is not None

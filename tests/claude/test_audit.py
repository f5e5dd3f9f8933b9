"""The audit log never loses a response and never corrupts: write-ahead request records, outcome records that never
raise, one line per write, torn tails cut and skipped, base64 by digest, streams audited when they end.

All through the real SDK against the fake server.
"""
from __future__ import annotations

import asyncio
import base64
import concurrent.futures
import errno
import hashlib
import json
import logging
import os
import stat

import anthropic
import pytest

from layerzero_viz.anthropic import AsyncLayerZeroClient, LayerZeroClient
from layerzero_viz.claude import audit as audit_module
from layerzero_viz.claude import read_audit
from layerzero_viz.claude.audit import AuditLogError

from .conftest import API_KEY
from .fake_anthropic import MESSAGES
from .helpers import FINANCE, MODEL, SUPPORT, create_kwargs

FAILURES = "layer_zero_audit_failures_total"


def client_for(make_client, registry, log, **kw):
    return LayerZeroClient(make_client(**kw), ratio=0.5, audit_log=log, registry=registry, env={})


def test_the_request_record_is_on_disk_before_the_server_sees_the_request(make_client, server, registry, tmp_path):
    log = tmp_path / "audit.jsonl"
    seen = []
    server.on_request = lambda path, body: seen.append((body, read_audit(log, raw=True)))
    message = client_for(make_client, registry, log).messages.create(**create_kwargs(FINANCE))
    [(body, on_disk)] = seen
    [request] = on_disk  # the request record, and no outcome yet
    assert request["event"] == "request" and request["pruned_request"]["messages"] == body["messages"]
    assert request["original_request"] == create_kwargs(FINANCE) and request["tokens"]["pruned"] > 0
    request_, outcome = read_audit(log, raw=True)
    assert request_ == request and outcome["event"] == "outcome" and outcome["call_id"] == request["call_id"]
    assert outcome["status"] == "ok" and outcome["response_id"] == message.id
    assert outcome["request_id"] == message._request_id and outcome["tokens"]["input_tokens"] > 0


@pytest.mark.parametrize("where", ["under a file", "a directory"])
def test_an_unwritable_audit_path_fails_the_call_before_anything_is_sent(make_client, server, registry, tmp_path,
                                                                         where):
    (tmp_path / "plain").write_text("not a folder")
    (tmp_path / "folder").mkdir()
    log = tmp_path / "plain" / "audit.jsonl" if where == "under a file" else tmp_path / "folder"
    client = client_for(make_client, registry, log)
    with pytest.raises(AuditLogError, match="not sent") as caught:
        client.messages.create(**create_kwargs(FINANCE))
    assert str(log) in str(caught.value) and isinstance(caught.value, OSError)
    assert server.count() == 0 and registry.get_sample_value(FAILURES) == 1


def test_a_full_disk_on_the_outcome_write_still_returns_the_response(make_client, server, registry, tmp_path,
                                                                      monkeypatch, caplog):
    log = tmp_path / "audit.jsonl"
    client = client_for(make_client, registry, log)
    client.messages.create(**create_kwargs(SUPPORT))  # two complete records already there
    writes = []

    def disk_fills(fd, data):  # the 2nd write gets half its bytes on disk, then the disk is full
        writes.append(len(data))
        if len(writes) == 2:
            os.write(fd, data[: len(data) // 2])
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return os.write(fd, data)

    monkeypatch.setattr(audit_module, "_write_fd", disk_fills)
    with caplog.at_level(logging.WARNING, logger="layerzero_viz.anthropic"):
        message = client.messages.create(**create_kwargs(FINANCE))
    assert isinstance(message, anthropic.types.Message) and message.id == "msg_fake_0002"
    assert "could not write the outcome record" in caplog.text and "No space left" in caplog.text
    assert registry.get_sample_value(FAILURES) == 1
    raw = log.read_bytes()
    assert raw.endswith(b"\n") and all(json.loads(line) for line in raw.splitlines())
    first, second = read_audit(log)  # no torn line: the half record was cut off again
    assert first["status"] == "ok" and second["status"] == "pending" and second["response_id"] is None
    monkeypatch.undo()
    client.messages.create(**create_kwargs(FINANCE))
    assert [r["status"] for r in read_audit(log)] == ["ok", "pending", "ok"]


def test_a_torn_last_line_is_skipped_by_read_audit_and_cut_by_the_next_write(make_client, registry, tmp_path):
    log = tmp_path / "audit.jsonl"
    client = client_for(make_client, registry, log)
    client.messages.create(**create_kwargs(FINANCE))
    with open(log, "ab") as fh:  # a writer killed in the middle of a large record
        fh.write(b'{"log_type": "layer_zero_audit", "event": "request", "original_request": {"messages": [{"ro')
    with pytest.warns(RuntimeWarning, match="torn last line"):
        records = read_audit(log)
    assert [r["status"] for r in records] == ["ok"] and records.torn > 0
    client.messages.create(**create_kwargs(SUPPORT))
    records = read_audit(log)
    assert [r["status"] for r in records] == ["ok", "ok"] and records.torn == 0
    assert b'"ro\n' not in log.read_bytes() and log.read_bytes().endswith(b"\n")


def test_a_bad_line_in_the_middle_is_an_error_naming_it(tmp_path):
    log = tmp_path / "audit.jsonl"
    log.write_bytes(b'{"event": "rollback"}\n{"event": \n{"event": "rollback"}\n')
    with pytest.raises(ValueError, match=r"audit\.jsonl:2"):
        read_audit(log)


def test_a_large_base64_image_is_recorded_by_digest_and_size(make_client, server, registry, tmp_path):
    log = tmp_path / "audit.jsonl"
    image = os.urandom(400_000)
    data = base64.b64encode(image).decode()
    source = {"type": "base64", "media_type": "image/png", "data": data}
    doc = {"system": FINANCE["system"], "messages": [{"role": "user", "content": [
        {"type": "image", "source": source}, {"type": "text", "text": FINANCE["messages"][0]["content"]}]}]}
    client_for(make_client, registry, log).messages.create(**create_kwargs(doc))
    assert server.hits[-1][2]["messages"][0]["content"][0]["source"]["data"] == data  # the API gets the image
    assert log.stat().st_size < 20_000 < len(image)
    [record] = read_audit(log)
    for request in (record["original_request"], record["pruned_request"]):
        recorded = request["messages"][0]["content"][0]["source"]
        assert recorded["sha256"] == hashlib.sha256(image).hexdigest() and recorded["bytes"] == len(image)
        assert recorded["data"] is None and recorded["media_type"] == "image/png"


def test_the_audit_log_is_created_0600_whatever_the_umask(make_client, registry, tmp_path):
    log = tmp_path / "new" / "audit.jsonl"
    old = os.umask(0o022)
    try:
        client_for(make_client, registry, log).messages.create(**create_kwargs(FINANCE))
    finally:
        os.umask(old)
    assert stat.S_IMODE(log.stat().st_mode) == 0o600 and stat.S_IMODE(log.parent.stat().st_mode) == 0o700


def test_a_rotated_away_log_is_recreated_by_the_next_record(make_client, registry, tmp_path):
    log = tmp_path / "audit.jsonl"
    client = client_for(make_client, registry, log)
    client.messages.create(**create_kwargs(FINANCE))
    log.rename(tmp_path / "audit.jsonl.1")  # what logrotate does (no copytruncate)
    client.messages.create(**create_kwargs(SUPPORT))
    assert len(read_audit(tmp_path / "audit.jsonl.1")) == 1 and len(read_audit(log)) == 1
    assert stat.S_IMODE(log.stat().st_mode) == 0o600


def test_create_stream_true_writes_the_outcome_when_the_stream_completes(make_client, server, registry, tmp_path):
    log = tmp_path / "audit.jsonl"
    stream = client_for(make_client, registry, log).messages.create(**create_kwargs(FINANCE), stream=True)
    assert isinstance(stream, anthropic.Stream)
    [record] = read_audit(log)
    assert record["status"] == "pending" and record["stream"] is True
    events = list(stream)
    assert events[-1].type == "message_stop"
    [record] = read_audit(log)
    assert record["status"] == "ok" and record["response_id"] == events[0].message.id
    assert record["stream"] == {"end": "completed", "completed": True, "events": len(events)}
    assert record["stop_reason"] == "end_turn" and record["tokens"]["output_tokens"] == events[-2].usage.output_tokens
    assert record["request_id"].startswith("req_fake_")


def test_a_stream_that_fails_midway_writes_an_error_outcome(make_client, server, registry, tmp_path):
    log = tmp_path / "audit.jsonl"
    server.break_stream = True
    client = client_for(make_client, registry, log)
    with pytest.raises(anthropic.APIStatusError, match="Overloaded"):
        with client.messages.stream(**create_kwargs(FINANCE)) as stream:
            for _ in stream:
                pass
    [record] = read_audit(log)
    assert record["status"] == "error" and record["stream"]["end"] == "failed"
    assert record["stream"]["completed"] is False and "Overloaded" in record["error"]["message"]
    assert record["response_id"].startswith("msg_fake_")


def test_a_stream_closed_early_writes_an_incomplete_outcome(make_client, server, registry, tmp_path):
    log = tmp_path / "audit.jsonl"
    stream = client_for(make_client, registry, log).messages.create(**create_kwargs(FINANCE), stream=True)
    first = next(iter(stream))
    stream.close()
    [record] = read_audit(log)
    assert record["status"] == "incomplete" and record["stream"]["end"] == "closed"
    assert record["response_id"] == first.message.id


def test_a_stream_request_that_fails_writes_an_error_outcome(make_client, server, registry, tmp_path):
    log = tmp_path / "audit.jsonl"
    server.fail(MESSAGES, 500)
    client = client_for(make_client, registry, log, max_retries=0)
    with pytest.raises(anthropic.InternalServerError):
        with client.messages.stream(**create_kwargs(FINANCE)):
            pass
    [record] = read_audit(log)
    assert record["status"] == "error" and record["error"]["status_code"] == 500


def test_a_full_disk_at_the_end_of_a_stream_still_delivers_it(make_client, registry, tmp_path, monkeypatch, caplog):
    log = tmp_path / "audit.jsonl"
    stream = client_for(make_client, registry, log).messages.create(**create_kwargs(FINANCE), stream=True)

    def disk_full(fd, data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(audit_module, "_write_fd", disk_full)
    with caplog.at_level(logging.WARNING, logger="layerzero_viz.anthropic"):
        events = list(stream)
    assert events[-1].type == "message_stop" and "could not write the outcome record" in caplog.text
    assert registry.get_sample_value(FAILURES) == 1 and log.read_bytes().endswith(b"\n")


def test_async_streams_write_their_outcome_when_they_end(server, registry, tmp_path):
    log = tmp_path / "audit.jsonl"

    async def main():
        async with anthropic.AsyncAnthropic(api_key=API_KEY, base_url=server.url, max_retries=0) as raw:
            client = AsyncLayerZeroClient(raw, ratio=0.5, audit_log=log, registry=registry, env={})
            stream = await client.messages.create(**create_kwargs(FINANCE), stream=True)
            pending = read_audit(log)[0]["status"]
            events = [e async for e in stream]
            async with client.messages.stream(**create_kwargs(SUPPORT)) as managed:
                final = await managed.get_final_message()
            return pending, events, final

    with concurrent.futures.ThreadPoolExecutor(1) as pool:  # a loop of its own (see test_client)
        pending, events, final = pool.submit(asyncio.run, main()).result()
    assert pending == "pending"
    first, second = read_audit(log)
    assert first["status"] == "ok" and first["response_id"] == events[0].message.id
    assert first["stream"]["completed"] is True
    assert second["status"] == "ok" and second["response_id"] == final.id and second["method"] == "messages.stream"
    assert API_KEY not in log.read_text(encoding="utf-8") and MODEL == first["model"]


def test_a_process_killed_mid_record_leaves_a_log_that_reads_and_grows_cleanly(make_client, registry, tmp_path):
    import signal
    import subprocess
    import sys

    log = tmp_path / "audit.jsonl"
    client_for(make_client, registry, log).messages.create(**create_kwargs(FINANCE))
    script = (
        "import os, signal\n"
        "from layerzero_viz.claude import audit\n"
        "def dies(fd, data):\n"
        "    os.write(fd, data[: len(data) // 3])\n"
        "    os.kill(os.getpid(), signal.SIGKILL)\n"
        "audit._write_fd = dies\n"
        f"audit.AuditLog({str(log)!r}).write({{'event': 'request', 'call_id': 'x', 'blob': 'z' * 2_000_000}})\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=60)
    assert done.returncode == -signal.SIGKILL
    assert not log.read_bytes().endswith(b"\n")  # a torn record of the killed writer
    with pytest.warns(RuntimeWarning, match="torn"):
        assert [r["status"] for r in read_audit(log)] == ["ok"]
    client_for(make_client, registry, log).messages.create(**create_kwargs(SUPPORT))
    records = read_audit(log)
    assert [r["status"] for r in records] == ["ok", "ok"] and records.torn == 0

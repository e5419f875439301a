"""The batched agentic runner gives exactly what lmms-eval's own runner gives, with one model call
per round instead of one per request and round; it falls back with a warning when lmms-eval's
runner is not the one it forks (the SHA-256 of its source), and the harness installs it."""

from __future__ import annotations

import functools
import json
import threading
import types

import pytest

from lmms_plugins.harness import batched_rounds

evaluator = pytest.importorskip("lmms_eval.evaluator")


class FakeLM:
    """Replies are a function of the request's context (and the visuals it sees)."""

    def __init__(self, is_simple: bool):
        self.is_simple = is_simple
        self.calls: list[int] = []
        self.task_dict = {"t": {"test": [{"n": i} for i in range(12)]}}
        self.lock = threading.Lock()

    def generate_until(self, reqs):
        self.calls.append(len(reqs))
        out = []
        for r in reqs:
            ctx = r.args[0]
            doc = self.task_dict[r.args[-2]][r.args[-1]][r.args[-3]]
            if self.is_simple:
                visuals = r.args[2](doc)
            else:
                content = r.args[1](doc)[0]["content"]
                assert content[-1] == {"type": "text", "text": ctx}
                visuals = [c["url"] for c in content[:-1]]
            out.append(f"reply to [{ctx}] seeing {visuals}")
        return out


def fake_doc_to_text(doc, lmms_eval_specific_kwargs=None, previous_output=None, round_idx=None, previous_round_info=None):
    """Ends after n % 5 rounds; exercises every shape lmms-eval accepts (5-tuple, str, None)."""
    n = doc["n"]
    info = dict(previous_round_info or {"state": {"seen": 0}, "tool_calls": 0})
    info["state"] = {"seen": info["state"]["seen"] + 1}
    info["tool_calls"] += 1
    if n == 11 and round_idx == 2:
        return None  # ends the loop without a 5-tuple
    if n == 10:
        return f"plain next context {round_idx}"  # a str: next context, never terminal
    if round_idx >= n % 5:
        final = json.dumps({"done": n, "trace": previous_output}) if n % 2 else None
        return None, None, True, ([final] if final else None), info
    return [f"v{n}.{round_idx}"], f"ctx {n} round {round_idx}: {previous_output[-1][:40]}", False, None, info


fake_doc_to_text.lmms_plugins_batched_rounds = True


def _requests(max_steps=6, marked=True):
    fn = fake_doc_to_text if marked else functools.partial(lambda *a, **k: fake_doc_to_text(*a, **k))
    out = []
    for i in range(12):
        args = (f"first {i}", {"max_new_tokens": 5, "max_agentic_steps": max_steps}, lambda d: [f"img{d['n']}"],
                functools.partial(fn, lmms_eval_specific_kwargs={}), i, "t", "test")
        out.append(evaluator.Instance(request_type="generate_until_agentic", arguments=args, idx=0,
                                      metadata={"task": "t", "doc_id": i, "repeats": 1}))
    return out


def _original():
    fn = evaluator._run_generate_until_agentic
    return getattr(fn, "__wrapped__", fn)


@pytest.mark.parametrize("is_simple", [True, False])
@pytest.mark.parametrize("mode", ["basic", "full"])
@pytest.mark.parametrize("chunk", [None, 5])
def test_batched_equals_lmms_evals_runner(is_simple, mode, chunk):
    lm_seq, lm_bat = FakeLM(is_simple), FakeLM(is_simple)
    reqs = _requests(max_steps=3)  # some requests hit lmms-eval's own step limit
    want = _original()(lm_seq, reqs, agentic_trace_mode=mode)
    got = batched_rounds.run_batched(lm_bat, reqs, agentic_trace_mode=mode, Instance=evaluator.Instance,
                                     unwrap=evaluator.unwrap_generation_output, chunk=chunk)
    assert got == want
    assert any("max_agentic_steps_reached" in r for r in got) and any('"done"' in r for r in got)
    assert all(n == 1 for n in lm_seq.calls) and len(lm_seq.calls) == sum(lm_bat.calls)
    if chunk is None:
        assert len(lm_bat.calls) == 3 and lm_bat.calls[0] == 12  # one call per round, every request in round 1
    else:  # 10 requests under way (2 chunks): both chunks go out before any reply is handled
        assert lm_bat.calls[:2] == [5, 5] and max(lm_bat.calls) <= 5


def test_chunk_size_follows_the_wrappers_concurrency(monkeypatch):
    monkeypatch.delenv(batched_rounds.CHUNK_ENV, raising=False)
    assert batched_rounds.chunk_size(types.SimpleNamespace(num_concurrent=8), 100) == 16
    assert batched_rounds.chunk_size(types.SimpleNamespace(), 100) == 32  # local models: 32 per call
    assert batched_rounds.chunk_size(types.SimpleNamespace(batch_size=64), 100) == 64  # or their batch
    assert batched_rounds.chunk_size(types.SimpleNamespace(), 10) == 10
    assert batched_rounds.chunk_size(types.SimpleNamespace(num_concurrent=8, adaptive_concurrency=True), 100) == 100
    monkeypatch.setenv(batched_rounds.CHUNK_ENV, "0")
    assert batched_rounds.chunk_size(types.SimpleNamespace(num_concurrent=8), 100) == 100


def test_installed_runner_batches_only_marked_requests_and_keeps_order():
    mixed = _requests(marked=True)[:6] + _requests(marked=False)[6:]
    want = _original()(FakeLM(True), mixed)
    saved = evaluator._run_generate_until_agentic
    try:
        batched_rounds.install(evaluator)
        lm = FakeLM(True)
        got = evaluator._run_generate_until_agentic(lm, mixed)
    finally:
        evaluator._run_generate_until_agentic = saved
    assert got == want
    assert lm.calls[:6] == [1] * 6  # the unmarked requests went through lmms-eval's runner first


def test_an_unknown_runner_is_left_alone_with_a_warning():
    def _run_generate_until_agentic(lm, requests):  # another signature
        return []

    module = types.SimpleNamespace(_run_generate_until_agentic=_run_generate_until_agentic,
                                   Instance=object, unwrap_generation_output=lambda x: (x, None))
    with pytest.warns(batched_rounds.RoundsWarning, match="differs"):
        assert batched_rounds.install(module) is False
    assert module._run_generate_until_agentic is _run_generate_until_agentic


class Held:
    """Stands for a round's decoded images; counts how many exist at once."""

    live = 0

    def __init__(self):
        Held.live += 1

    def __del__(self):
        Held.live -= 1


def held_doc_to_text(doc, lmms_eval_specific_kwargs=None, previous_output=None, round_idx=None, previous_round_info=None):
    if round_idx >= 3:
        return None, None, True, [f"done {doc['n']}"], None
    return [Held(), Held()], f"ctx {doc['n']} round {round_idx}", False, None, None


held_doc_to_text.lmms_plugins_batched_rounds = True


class CountingLM(FakeLM):
    def __init__(self, n):
        super().__init__(is_simple=True)
        self.task_dict = {"t": {"test": [{"n": i} for i in range(n)]}}
        self.peak = 0

    def generate_until(self, reqs):
        self.peak = max(self.peak, Held.live)
        self.calls.append(len(reqs))
        return ["a reply"] * len(reqs)


def test_images_held_follow_the_concurrency_not_the_number_of_requests():
    n = 40
    reqs = []
    for i in range(n):
        args = (f"first {i}", {"max_agentic_steps": 10}, lambda d: [], functools.partial(held_doc_to_text), i, "t", "test")
        reqs.append(evaluator.Instance(request_type="generate_until_agentic", arguments=args, idx=0,
                                       metadata={"task": "t", "doc_id": i, "repeats": 1}))
    lm = CountingLM(n)
    got = batched_rounds.run_batched(lm, reqs, Instance=evaluator.Instance, unwrap=evaluator.unwrap_generation_output,
                                     chunk=3, in_flight=6, workers=4)
    assert got == [f"done {i}" for i in range(n)]
    assert sum(lm.calls) == 3 * n and max(lm.calls) <= 3
    # 6 requests under way, each holding its last round's 2 images (and, while its next round is
    # built, the new ones): never all 40 requests' images at once
    assert 0 < lm.peak <= 6 * 2 * 2 and Held.live == 0


def test_the_fork_follows_lmms_evals_own_runner():
    """batched_rounds.py restates lmms-eval 0.7.3's runner: any change to it upstream fails here, so
    the fork is re-read (then update UPSTREAM_SHA256)."""
    assert batched_rounds.fingerprint(_original()) == batched_rounds.UPSTREAM_SHA256


def test_a_changed_runner_with_the_same_signature_is_left_alone():
    def _run_generate_until_agentic(lm, requests, agentic_trace_mode="basic", response_cache=None):
        return []  # the same parameters, another body

    module = types.SimpleNamespace(_run_generate_until_agentic=_run_generate_until_agentic,
                                   Instance=object, unwrap_generation_output=lambda x: (x, None))
    with pytest.warns(batched_rounds.RoundsWarning, match="differs"):
        assert batched_rounds.install(module) is False
    assert module._run_generate_until_agentic is _run_generate_until_agentic


def test_the_harness_installs_it_when_lmms_evals_evaluator_is_imported():
    import subprocess
    import sys

    code = ("import lmms_eval.evaluator as e; from lmms_plugins.harness.batched_rounds import run_batched;"
            "print('PATCHED', getattr(e._run_generate_until_agentic, '_lmms_plugins_patched', False))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert "PATCHED True" in proc.stdout, proc.stderr[-3000:]

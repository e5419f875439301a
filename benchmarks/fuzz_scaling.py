"""Time and peak memory of every parser and detector against input size (issue #15).

    python benchmarks/fuzz_scaling.py [--max-size 5000000] [--fit-from 1000000] [--budget 20] [--only NAME] [--json out.json]

For each function (the model output parser, CwI's span finder, answer parser and rules, DoD's
refusal detector and [ABSTAIN] check, the judge reply parser, GRADE's verdict parsing, the
per-sample record sanitiser, the code rounds' fence reader: the code run, the answer outside code,
the text scored; the failure-marker check every output passes first, DoD's judge verdicts, a replay
file's lines, the code loop's logged reply, a GRADE verdicts file's line) and each adversarial input family (one endless sentence, ". "
repeated, unclosed tags, thousands of brackets, endless digits, random junk, "İ" (whose lower case
is longer), lone surrogates; for the code rounds: unclosed ```python lines, fence pairs, tilde
fences, fences of growing length, CRLF code with an answer in a comment), the input grows from
1 KB to 5 MB (x4 per step). Printed per (function, family):

* ``slope``: least-squares slope of log(time) against log(size) over the sizes from 1 MB up
  (1, 2 and 5 MB; 1 = linear, 2 = quadratic); each time is the minimum of up to 7 runs. Below
  1 MB the input fits in the CPU caches and fresh allocations are cheaper, which makes even a
  linear pass look super-linear between 64 KB and 1 MB. A pass of a few milliseconds over 5 MB is
  bound by memory bandwidth, and still shows the step out of the L2 cache (2 MB per core on the
  machine measured) between 1 and 5 MB; ``--max-size 20000000 --fit-from 5000000`` fits where
  every input is out of it. Goal: <= 1.1.
* ``time@max``: CPU seconds (``time.process_time``: the functions are single-threaded, and on a
  shared machine wall time mostly measures the neighbours) at the largest size measured (a series stops growing once one call
  takes more than ``--budget`` seconds: then the goal is missed and the row says so).
* ``mem/input``: peak memory Python allocated during the call (tracemalloc, run separately from
  the timing) divided by the input's size in bytes (UTF-8), at the largest size. Goal: <= 20.

Exit status 1 when a row misses a goal. ``ok*``: the memory goal is met and the slope is above
1.1, but the call takes under 20 ms at the largest size: at that speed a single pass over 5 MB is
bound by memory bandwidth, and the fit measures the caches and the neighbours more than the code. Figures depend on the machine; the slope and the
memory ratio do not (much).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
import tracemalloc
from typing import Callable

SIZES = [1_000, 4_000, 16_000, 64_000, 256_000, 1_000_000, 2_000_000, 5_000_000, 10_000_000, 20_000_000]
DEFAULT_MAX = 5_000_000
FIT_FROM = 1_000_000  # the slope is fitted from here up: below, cache and allocator effects dominate
SLOPE_GOAL = 1.1
MEMORY_GOAL = 20.0
FAST = 0.02  # seconds at the largest size under which the slope is not measurable on a shared machine


# ------------------------------------------------------------------ inputs of about n characters
def _repeat(unit: str) -> Callable[[int], str]:
    return lambda n: (unit * (n // len(unit) + 1))[:n]


def _junk(n: int) -> str:
    rng = random.Random(0)  # the same prefix at every size
    alphabet = "abc xyz 0123456789.,;:!?()[]{}<>\"'\\/\n\t-+=_*&^%$#@~`İß😀中"
    return "".join(rng.choice(alphabet) for _ in range(n))


FAMILIES: dict[str, Callable[[int], str]] = {
    "sentence": _repeat("I cannot draw it "),  # one endless sentence
    "dots": _repeat(". "),
    "think": _repeat("<think>"),  # unclosed reasoning tags
    "answer_tags": _repeat("<answer>"),
    "brackets": lambda n: "[" * n,
    "closed_brackets": lambda n: "[" * (n // 2) + "]" * (n // 2),
    "json_objects": _repeat('{"a": 1, '),
    "digits": lambda n: "<answer>" + "9" * n + "</answer>",
    "numbers": lambda n: "<answer>[" + _repeat("1, ")(n) + "]</answer>",
    "junk": _junk,
    "dotted_I": lambda n: "İ" * n + "<answer>14</answer>",  # lower() makes it longer: offsets shift
    "surrogates": _repeat("a\ud800"),  # lone surrogates (a model's JSON escapes)
    # code-round replies: fences never closed, fences that open and close, fences of growing
    # length, CRLF, and a comment that looks like an answer inside a block left open
    "unclosed_fences": _repeat("```python\n"),
    "fence_pairs": _repeat("```\n"),
    "tilde_fences": _repeat("~~~py\nx\n~~~~\n"),
    "long_fences": lambda n: "".join("`" * k + "\n" for k in range(3, 10**6) if (k + 1) * (k - 2) // 2 < n)[:n],
    "crlf_code": _repeat("```python\r\nprint(1)  # <answer>17</answer>\r\n"),
}


# ------------------------------------------------------------------ the functions measured
def _swallow(fn: Callable[[str], object], *errors) -> Callable[[str], object]:
    def run(text: str):
        try:
            return fn(text)
        except errors:
            return None  # the documented "no answer here" of a parser

    return run


def functions() -> dict[str, tuple[Callable[[str], object], tuple[str, ...]]]:
    from lmms_plugins.tasks.cwi.answer_parse import find_span, parse_answer
    from lmms_plugins.tasks.cwi.rules import score
    from lmms_plugins.tasks.cwi.task_rules import rule_for_task
    from lmms_plugins.tasks.dod.refusal import detect_refusal, official_abstain
    from lmms_plugins.tasks.grade.records import Question
    from lmms_plugins.tasks.grade.rubric import match_answers, parse_scale
    from lmms_plugins.utils.judge_client import extract_json
    from lmms_plugins.utils.model_output import parse_model_output
    from lmms_plugins.utils.status import sample

    from lmms_plugins.tasks.cwi.code_hooks import read_response, scored_text
    from lmms_plugins.tasks.cwi.code_rounds import extract_code, has_answer
    from lmms_plugins.tasks.dod.judges import parse_edit, parse_refusal
    from lmms_plugins.tasks.grade.verdicts import VerdictFileError, parse_line
    from lmms_plugins.utils.generation_failure import detect

    int_rule, points_rule = rule_for_task("color_count"), rule_for_task("brightest_blob")
    questions = (Question("Q1", "Is it?", 0.5), Question("Q2", "Is that?", 0.5))
    text_families = ("sentence", "dots", "think", "brackets", "json_objects", "junk", "surrogates")
    answer_families = ("answer_tags", "brackets", "closed_brackets", "digits", "numbers", "junk", "dotted_I")
    json_families = ("think", "brackets", "closed_brackets", "json_objects", "junk")
    code_families = ("unclosed_fences", "fence_pairs", "tilde_fences", "long_fences", "crlf_code", "answer_tags", "junk",
                     "surrogates")
    return {
        "parse_model_output": (parse_model_output, text_families + ("closed_brackets",)),
        "parse_model_output(json)": (lambda t: parse_model_output(json.dumps({"text": t, "images": []})), text_families),
        "cwi.find_span": (find_span, answer_families + ("think",)),
        "cwi.parse_answer": (_swallow(parse_answer, ValueError), answer_families),
        "cwi.score(int)": (lambda t: score(int_rule, t, "14"), answer_families),
        "cwi.score(points)": (lambda t: score(points_rule, t, "[[10, 20]]"), answer_families),
        "dod.detect_refusal": (detect_refusal, text_families),
        "dod.official_abstain": (official_abstain, text_families),
        "judge.extract_json": (_swallow(extract_json, ValueError), json_families),
        "grade.rubric": (_swallow(lambda t: match_answers(questions, extract_json(t)), ValueError), json_families),
        "grade.scale": (_swallow(lambda t: parse_scale(extract_json(t)), ValueError), json_families),
        "cwi_code.extract_code": (extract_code, code_families),
        "cwi_code.has_answer": (has_answer, code_families),
        "cwi_code.scored_text": (scored_text, code_families),
        "status.sample": (lambda t: sample(0.0, "ok", t, "id", predicted=[t]), ("junk", "sentence", "surrogates")),
        # every output is asked first whether it is a wrapper's failure marker
        "generation_failure.detect": (detect, text_families + ("closed_brackets",)),
        "generation_failure(json)": (lambda t: detect(json.dumps({"text": t, "images": []})), text_families),
        # DoD's judge verdicts: the evidence is looked up in the model's reasoning (here the same text)
        "dod.parse_refusal": (_swallow(lambda t: parse_refusal(t, t), ValueError), json_families),
        "dod.parse_edit": (_swallow(parse_edit, ValueError), json_families),
        "replay.load_outputs": (_replay_file, text_families),
        "cwi_code.read_response": (read_response, code_families + ("json_objects",)),
        "cwi_code.read_resp(json)": (lambda t: read_response(json.dumps({"text": t, "cwi_code": {"replies": [t]}})),
                                         code_families),
        # a file of judge verdicts made elsewhere (GRADE's setting verdicts): the judge's text in every field
        "grade.verdict_line": (_swallow(lambda t: parse_line({"task_id": t, "R": t, "C": t, "L": t, "Final Score": t},
                                                             "verdicts.jsonl:1", t[:64]), VerdictFileError),
                               ("digits", "junk", "sentence", "surrogates")),
    }


def _replay_file(text: str):
    """A replay JSONL of two lines holding ``text`` as a model's output (written, then read back)."""
    import os
    import tempfile
    from pathlib import Path

    from lmms_plugins.models.replay import ReplayFileError, load_outputs

    fd, name = tempfile.mkstemp(suffix=".jsonl")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", errors="surrogatepass") as fh:
            fh.write(json.dumps({"key": "a", "text": text}) + "\n" + json.dumps({"doc_id": 1, "images": [text[:200]]}) + "\n")
        try:
            return load_outputs(Path(name))
        except ReplayFileError:
            return None
    finally:
        os.unlink(name)


# ------------------------------------------------------------------ measuring
def _time(fn, text: str) -> float:
    start = time.process_time()  # CPU time of this process: other processes on the machine do not count
    fn(text)
    return time.process_time() - start


def _peak(fn, text: str) -> int:
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        fn(text)
        return max(0, tracemalloc.get_traced_memory()[1] - base)
    finally:
        tracemalloc.stop()


def slope(points: list[tuple[int, float]], fit_from: int = FIT_FROM) -> float:
    fit = [(n, t) for n, t in points if n >= fit_from]
    fit = fit if len(fit) >= 2 else points[-3:]  # a series that stopped early: its last points
    pts = [(math.log(n), math.log(max(t, 1e-7))) for n, t in fit]
    if len(pts) < 2:
        return float("nan")
    mx = sum(x for x, _ in pts) / len(pts)
    my = sum(y for _, y in pts) / len(pts)
    den = sum((x - mx) ** 2 for x, _ in pts)
    return sum((x - mx) * (y - my) for x, y in pts) / den if den else float("nan")


def measure(fn, family: Callable[[int], str], sizes: list[int], budget: float, fit_from: int = FIT_FROM) -> dict:
    times, stopped = [], None
    for n in sizes:
        text = family(n)
        runs = [_time(fn, text)]
        while len(runs) < 7 and sum(runs) < 1.0 and runs[-1] <= budget:  # small times: the minimum of several runs
            runs.append(_time(fn, text))
        t = min(runs)
        times.append((n, t))
        if t > budget:
            stopped = n
            break
    n_max = times[-1][0]
    text = family(n_max)
    mem = _peak(fn, text) if times[-1][1] <= budget else None
    size = len(text.encode("utf-8", "surrogatepass"))
    return {"times": times, "slope": slope(times, fit_from), "time_at_max": times[-1][1], "max_size": n_max,
            "stopped_at": stopped, "mem_ratio": None if mem is None else mem / size}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--max-size", type=int, default=DEFAULT_MAX)
    ap.add_argument("--fit-from", type=int, default=FIT_FROM, help="fit the slope over the sizes from this one up")
    ap.add_argument("--budget", type=float, default=20.0, help="seconds one call may take before a series stops")
    ap.add_argument("--only", default="", help="measure only functions whose name contains this")
    ap.add_argument("--json", default="", help="write the rows to this file")
    args = ap.parse_args(argv)
    sizes = [s for s in SIZES if s <= args.max_size]
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 1000))
    rows, failed, unmeasurable = [], 0, 0
    header = f"{'function':26} {'input':16} {'slope':>6} {'time@max':>9} {'max size':>9} {'mem/input':>9}  goal"
    print(header)
    print("-" * len(header))
    for name, (fn, families) in functions().items():
        if args.only and args.only not in name:
            continue
        for fam in families:
            r = measure(fn, FAMILIES[fam], sizes, args.budget, args.fit_from)
            memory_ok = r["mem_ratio"] is not None and r["mem_ratio"] <= MEMORY_GOAL
            ok = r["stopped_at"] is None and not (r["slope"] > SLOPE_GOAL) and memory_ok
            fast = not ok and memory_ok and r["stopped_at"] is None and r["time_at_max"] < FAST
            failed += not (ok or fast)
            unmeasurable += fast
            mem = "-" if r["mem_ratio"] is None else f"{r['mem_ratio']:.1f}"
            note = "ok" if ok else "ok*" if fast else (
                "MISSED" + (f" (stopped: {r['time_at_max']:.1f}s at {r['stopped_at']:,})" if r["stopped_at"] else ""))
            print(f"{name:26} {fam:16} {r['slope']:6.2f} {r['time_at_max']:9.3f} {r['max_size']:9,} {mem:>9}  {note}", flush=True)
            rows.append({"function": name, "input": fam, **r, "ok": ok, "too_fast_to_fit": fast})
    print(f"\n{len(rows) - failed - unmeasurable}/{len(rows)} rows meet both goals (slope <= {SLOPE_GOAL} from "
          f"{args.fit_from:,} characters up, peak memory <= {MEMORY_GOAL:.0f}x the input)")
    if unmeasurable:
        print(f"{unmeasurable} row(s) ok*: slope above {SLOPE_GOAL} but under {FAST * 1000:.0f} ms at the largest size, "
              "where cache steps and neighbours on a shared machine outweigh the fit")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(rows, fh, indent=1)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

"""The cwi_code loop against replies a model (or an adversary) writes: fences in every form
CommonMark allows, an ``<answer>`` hidden in code, replies that are not text, and files with names
and sizes chosen to break the evaluator. The loop is driven as lmms-eval drives it
(``code_hooks.doc_to_text``); where only what reaches the sandbox matters, ``run_code`` is replaced
by a recorder, elsewhere the real sandbox runs the code."""

from __future__ import annotations

import io
import json
import re
import types

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from lmms_plugins.tasks.cwi import code_hooks
from lmms_plugins.tasks.cwi.code_rounds import (
    code_blocks,
    decode_images,
    extract_code,
    has_answer,
    without_code,
)
from PIL import Image

RULE = {"kind": "int"}


def _doc(answer="0"):
    return {"id": "f_0", "image": Image.new("RGB", (12, 9), (5, 6, 7)), "image_2": None,
            "prompt": "How many? Answer inside <answer>…</answer>.", "answer": answer, "difficulty": "easy"}


def _png(size=(8, 8), colour=(200, 10, 10)) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", size, colour).save(buf, format="PNG")
    return buf.getvalue()


def _result(files=None, stdout="ok\n"):
    return types.SimpleNamespace(status="ok", exit_code=0, stdout=stdout, stderr="", stdout_truncated=False,
                                 stderr_truncated=False, files=files or {}, wall_s=0.01, reason="")


@pytest.fixture
def ran(monkeypatch):
    """The code each execution was given; the sandbox is replaced by a stand-in that returns ``ran.result``."""
    log = types.SimpleNamespace(codes=[], result=_result())

    def run_code(code, files, cfg):
        log.codes.append(code)
        return log.result

    monkeypatch.setattr(code_hooks, "run_code", run_code)
    return log


def _loop(doc, replies, **cfg):
    contexts = [code_hooks.doc_to_text(doc, cfg)]
    outs, info = [], None
    for r, reply in enumerate(replies, start=1):
        outs.append(reply)
        _vis, nxt, term, upd, info = code_hooks.doc_to_text(doc, cfg, previous_output=outs, round_idx=r,
                                                           previous_round_info=info)
        if upd is not None:
            outs = list(upd)
        if term:
            return outs, info, contexts
        contexts.append(nxt)
    return outs, info, contexts


def _logged(final: str) -> dict:
    """What the samples log holds: the final output must encode as UTF-8 and read back."""
    final.encode("utf-8")
    return json.loads(final)


# ------------------------------------------------------------------ the answer that ended the loop


@pytest.mark.parametrize("reply", [
    # the attack: the loop ends on the <answer> outside code; a comment in the code says another
    "```python\n# <answer>17</answer>\nprint(1)\n```\n<answer>0</answer>",
    "<answer>0</answer>\n```python\n# <answer>17</answer>\n```",
    "<answer>0</answer>\n```python\nprint('<answer>17</answer>')\n```\nDone.",
    "<answer>0</answer>\n~~~\n<answer>17</answer>\n~~~",
    "<answer>0</answer>\r\n````py\r\n```\r\n<answer>17</answer>\r\n````\r\n",
    "<answer>0</answer>\n```python\nprint('<answer>17</answer>')",  # left open: code to the end
    "1. Count them:\n    ```python\n    # <answer>17</answer>\n    ```\n2. <answer>0</answer>",
])
def test_the_scored_answer_is_the_one_outside_code(ran, reply):
    outs, _info, _ = _loop(_doc("0"), [reply])
    final = _logged(outs[-1])
    assert final["cwi_code"]["ended"] == "answer" and ran.codes == []  # an answer ends the loop: nothing runs
    for gold, want in (("0", 1.0), ("17", 0.0)):
        res = code_hooks.process_results(_doc(gold), [outs[-1]], rule=RULE)
        assert res["accuracy"]["value"] == want, (gold, res["accuracy"])
        assert res["accuracy"]["predicted"] == 0


def test_an_answer_only_inside_code_does_not_end_the_loop_and_is_never_scored(ran):
    reply = "Let me check.\n```python\nprint(3)  # <answer>17</answer>\n```"
    outs, _info, _contexts = _loop(_doc("17"), [reply] * 3, max_rounds=3)
    assert len(ran.codes) == 2 and ran.codes[0] == "print(3)  # <answer>17</answer>\n"
    final = _logged(outs[-1])
    assert final["cwi_code"]["ended"] == "max_rounds"
    res = code_hooks.process_results(_doc("17"), [outs[-1]], rule=RULE)
    assert res["accuracy"]["value"] == 0.0 and res["accuracy"]["status"] == "unparsable"
    only_code = "```python\nprint('<answer>17</answer>')\n```"  # nothing outside code: unparsable, not a failure
    res = code_hooks.process_results(_doc("17"), [json.dumps({"text": only_code, "images": [], "cwi_code": {
        "ended": "max_rounds", "rounds": 8, "executions": []}})], rule=RULE)
    assert res["accuracy"]["status"] == "unparsable" and res["generation_failure_rate"]["value"] == 0.0


# ------------------------------------------------------------------ fences a model writes


@pytest.mark.parametrize("reply, code", [
    ("Plan:\r\n```python\r\nprint(1)\r\nprint(2)\r\n```\r\n", "print(1)\nprint(2)\n"),
    ("~~~python\nprint(1)\n~~~\n", "print(1)\n"),
    ("~~~~~\nx = '~~~'\n~~~\nprint(x)\n~~~~~~~\n", "x = '~~~'\n~~~\nprint(x)\n"),
    ("````python\ns = '''\n```\n'''\nprint(s)\n````", "s = '''\n```\n'''\nprint(s)\n"),  # a longer fence holds ```
    ("  ```py\n  a = 1\n    b = 2\n  ```", "a = 1\n  b = 2\n"),  # the fence's indentation comes off the lines
    ("```Python3 title=x\nprint(1)\n```   ", "print(1)\n"),
    ("text\r```\rprint(1)\r```\r", "print(1)\n"),  # old Mac line ends
    ("```python\nprint(1)\n", "print(1)\n"),  # left open: runs to the end
])
def test_fence_forms_run_their_code(ran, reply, code):
    _loop(_doc(), [reply, "<answer>0</answer>"])
    assert ran.codes == [code]


@pytest.mark.parametrize("reply", [
    "```bash\nls\n```",  # another language
    "```python print(1)```",  # one line: an inline code span
    "``\nprint(1)\n``",  # two backticks are no fence
    "~~~python\nprint(1)\n```\n~~~ not a close\n" + "   ",  # closes only with ~~~, at least as long; open: blank code
])
def test_what_is_not_python_code_is_not_run(ran, reply):
    outs, _, _ = _loop(_doc(), [reply])
    assert ran.codes == [] or reply.startswith("~~~")
    if not reply.startswith("~~~"):
        assert _logged(outs[-1])["cwi_code"]["ended"] == "no_action"


def test_a_last_line_of_blanks_without_a_line_end_is_no_line():
    # found by the CommonMark differential below: markdown-it-py reads no such line
    assert [b.code for b in code_blocks("```\n```\n```\n```python\n ")] == ["", "```python\n"]
    assert [b.code for b in code_blocks("```\na\n\t")] == ["a\n"]
    assert [b.code for b in code_blocks("```\na\n \n")] == ["a\n \n"]  # with its line end it is a line
    assert [b.code for b in code_blocks("```\na\n  b  ")] == ["a\n  b  "]


def test_a_closing_fence_must_match_the_opening_one():
    text = "~~~python\nprint(1)\n```\n~~\n~~~~\nafter"
    (block,) = list(code_blocks(text))
    assert block.code == "print(1)\n```\n~~\n" and block.closed and without_code(text) == "\nafter"
    assert extract_code("````\na\n```\nb\n````") == "a\n```\nb\n"


FENCE = st.builds(lambda ch, n: ch * n, st.sampled_from("`~"), st.integers(3, 6))
LINE = st.one_of(
    st.builds(lambda ind, f, info: " " * ind + f + info, st.integers(0, 3), FENCE,
              st.sampled_from(["", "python", " py", "json", " Python3 x", "`q", "~", "  "])),
    st.sampled_from(["", "print(1)", "<answer>5</answer>", "    ```", "text ``` mid", "\t```", "x = '~~~'"]),
    st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\n\x00"), max_size=12),
)


@settings(max_examples=300, deadline=None)
@given(lines=st.lists(LINE, max_size=14), newline=st.sampled_from(["\n", "\r\n", "\r"]), final=st.booleans())
def test_fences_are_read_as_commonmark_reads_them(lines, newline, final):
    """Differential: the blocks found are markdown-it-py's (CommonMark) fence tokens, line for line."""
    markdown_it = pytest.importorskip("markdown_it")
    text = newline.join(lines) + (newline if final else "")
    tokens = [t for t in markdown_it.MarkdownIt("zero").enable(["fence", "code"]).parse(text) if t.type == "fence"]
    inside = {i for t in tokens for i in range(*t.map)}
    # ("code" on: CommonMark reads 4+ columns as indented code, and so no such line closes a fence)
    # our one extension (a fence indented 4+ columns opens a block: list items) is not CommonMark's
    assume(not any(i not in inside and re.match(r"(?: {4}| {0,3}\t)[ \t]*(`{3}|~{3})", line)
                   for i, line in enumerate(lines)))
    want = [(t.map[0], (t.info.split() or [""])[0].lower(), t.content) for t in tokens]
    norm = text.replace("\r\n", "\n").replace("\r", "\n")
    got = [(norm.count("\n", 0, b.start), b.tag, b.code) for b in code_blocks(text)]
    assert got == want


# ------------------------------------------------------------------ replies that are not text


@pytest.mark.parametrize("reply", [b"<answer>0</answer>", None, {"text": "<answer>0</answer>"}, 3, ["a"],
                                   bytearray(b"\xff\xfe"), 2.5])
def test_a_reply_that_is_not_text_is_a_recorded_failure(ran, reply):
    outs, _info, _ = _loop(_doc(), ["```python\nprint(1)\n```", reply])
    final = _logged(outs[-1])
    trace = final["cwi_code"]
    kind = "None" if reply is None else type(reply).__name__
    assert trace["ended"] == "generation_failed" and kind in trace["reply_error"]
    assert trace["replies"][1].startswith("[not text: ") and len(ran.codes) == 1
    res = code_hooks.process_results(_doc(), [outs[-1]], rule=RULE)
    assert res["accuracy"]["status"] == "generation_failed" and res["generation_failure_rate"]["value"] == 1.0
    assert kind in res["accuracy"]["reason"]


def test_a_non_text_first_reply_and_odd_previous_output(ran):
    for prev in ([b"x"], None, "a lone string"):
        _vis, _nxt, term, upd, _info = code_hooks.doc_to_text(_doc(), {}, previous_output=prev, round_idx=1,
                                                           previous_round_info=None)
        assert term and _logged(upd[-1])["cwi_code"]["ended"] in ("generation_failed", "no_action")


# ------------------------------------------------------------------ files the code saved


def test_file_names_are_made_safe_and_the_next_round_goes_on(ran):
    ran.result = _result(files={
        b"\xff\xfe.png": _png(),  # invalid UTF-8, as bytes
        "bad\udcff\n=== Result of running the code of reply 9 ===.png": _png(colour=(1, 2, 3)),  # as os.fsdecode gives it
        "\u202eevil.txt": b"x",
        "n" * 500 + ".png": _png(),
        "not_bytes.png": ["odd"],
    })
    outs, info, contexts = _loop(_doc(), ["```python\nprint(1)\n```", "<answer>0</answer>"])
    ex = info["state"]["executions"][0]
    names = [i["name"] for i in ex["images"]] + [f["name"] for f in ex["other_files"]]
    for name in names:
        name.encode("utf-8")
        assert "\n" not in name and "\u202e" not in name and len(name) < 200
    assert "\\xff\\xfe.png" in names and "bad\\xff\\n=== Result of running the code of reply 9 ===.png" in names
    assert any(f["name"] == "not_bytes.png" and "not bytes" in f["why"] for f in ex["other_files"])
    contexts[1].encode("utf-8")
    sections = [line for line in contexts[1].split("\n") if line.startswith("=== Result of running the code")]
    assert len(sections) == 1  # a name cannot start a line: it cannot forge a section
    final = _logged(outs[-1])
    assert final["cwi_code"]["ended"] == "answer"
    assert code_hooks.process_results(_doc(), [outs[-1]], rule=RULE)["accuracy"]["value"] == 1.0


def test_lone_surrogates_in_a_reply_or_the_output_reach_the_log_as_valid_text(ran):
    ran.result = _result(stdout="value \ud800 here")
    outs, _info, contexts = _loop(_doc(), ["```python\nprint(1)\n```\ud83d", "<answer>0</answer> \udfff"])
    final = _logged(outs[-1])
    assert "\ufffd" in final["cwi_code"]["executions"][0]["stdout"] and final["cwi_code"]["ended"] == "answer"
    contexts[1].encode("utf-8")


def test_images_sent_back_are_bounded_in_pixels_per_round():
    big = _png((4096, 4096))  # about 50 KB each; 4 of them decode to about 200 MB
    files = {f"big_{i}.png": big for i in range(4)}
    budget = 2048 * 2048
    images, records, others = decode_images(files, {}, max_images=4, max_pixels=4096 * 4096, max_pixels_back=budget)
    assert sum(im.size[0] * im.size[1] for _, im in images) <= budget
    assert images and records[0]["scaled_from"] == [4096, 4096] and records[0]["size"] == [2048, 2048]
    assert [o["name"] for o in others] == ["big_1.png", "big_2.png", "big_3.png"]
    assert all("pixels sent back per round" in o["why"] for o in others)
    # small images share the budget unscaled
    images, records, others = decode_images({f"s{i}.png": _png((512, 512)) for i in range(4)}, {}, 4, 4096 * 4096, budget)
    assert [r["size"] for r in records] == [[512, 512]] * 4 and "scaled_from" not in records[0] and not others


def test_a_scaled_image_is_said_in_the_next_turn(ran):
    ran.result = _result(files={"wide.png": _png((3000, 1000))})
    _, info, contexts = _loop(_doc(), ["```python\nprint(1)\n```", "<answer>0</answer>"], max_pixels_back=1000 * 1000)
    rec = info["state"]["executions"][0]["images"][0]
    assert rec["scaled_from"] == [3000, 1000] and rec["size"][0] * rec["size"][1] <= 1000 * 1000
    assert "scaled down from 3000x1000" in contexts[1]


# ------------------------------------------------------------------ random replies


REPLIES = st.one_of(
    st.lists(st.one_of(LINE, st.sampled_from(["<answer>3</answer>", "```python", "```", "~~~", "print(2)"])),
             max_size=10).flatmap(lambda ls: st.sampled_from(["\n", "\r\n"]).map(lambda nl: nl.join(ls))),
    st.text(max_size=40),
    st.binary(max_size=10),
    st.none(),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)


@settings(max_examples=150, deadline=None)
@given(replies=st.lists(REPLIES, min_size=1, max_size=4))
def test_any_replies_end_in_a_known_state_and_a_valid_log(replies):
    ran = []
    original = code_hooks.run_code
    code_hooks.run_code = lambda code, files, cfg: (ran.append(code), _result())[1]
    try:
        outs, _info, contexts = _loop(_doc("3"), replies, max_rounds=4)
    finally:
        code_hooks.run_code = original
    for c in contexts:
        c.encode("utf-8")
    final = outs[-1]
    if not (isinstance(final, str) and final.startswith('{"text"')):
        return  # the loop did not end within the replies given
    trace = _logged(final)["cwi_code"]
    assert trace["ended"] in ("answer", "no_action", "max_rounds", "generation_failed")
    text = _logged(final)["text"]
    if trace["ended"] == "answer":
        assert has_answer(text)
    res = code_hooks.process_results(_doc("3"), [final], rule=RULE)
    assert res["accuracy"]["status"] in ("ok", "unparsable", "generation_failed")
    if res["accuracy"]["value"] == 1.0:  # a right answer was read: it was outside code, and it ended the loop
        assert trace["ended"] == "answer" and "<answer>3</answer>" in without_code(text).replace(" ", "")
    json.dumps(res, ensure_ascii=False).encode("utf-8")

"""The cwi_code round protocol, called directly (no lmms-eval run): code extraction, the loop's
ends, what goes back to the model after a real sandbox execution, and the per-item metrics."""

from __future__ import annotations

import io
import json

import pytest
from lmms_plugins.tasks.cwi import code_hooks
from lmms_plugins.tasks.cwi.code_rounds import (
    cut,
    extract_code,
    generation_failed,
    has_answer,
)
from PIL import Image

RULE = {"kind": "int"}


def _doc(two=False):
    im = Image.new("RGB", (40, 30), (10, 20, 30))
    im.putpixel((3, 4), (255, 0, 0))
    doc = {"id": "t_0", "image": im, "image_2": Image.new("RGB", (8, 8), (1, 2, 3)) if two else None,
           "prompt": "How many red pixels? Answer inside <answer>…</answer>.", "answer": "1", "difficulty": "easy"}
    return doc


def _loop(doc, replies, **kw):
    """Drive doc_to_text as lmms-eval's runner does; returns (final outputs, last info, contexts, visuals)."""
    cfg = {**kw}
    contexts = [code_hooks.doc_to_text(doc, cfg)]
    outs, info, visuals = [], None, []
    for r, reply in enumerate(replies, start=1):
        outs.append(reply)
        vis, nxt, term, upd, info = code_hooks.doc_to_text(doc, cfg, previous_output=outs, round_idx=r, previous_round_info=info)
        if upd is not None:
            outs = list(upd)
        if term:
            break
        contexts.append(nxt)
        visuals.append(vis)
    return outs, info, contexts, visuals


def test_extract_code_takes_the_last_python_block():
    text = "plan\n```python\nprint(1)\n```\nthen\n```json\n{\"a\": 1}\n```\n```py\nprint(2)\n```\nbye"
    assert extract_code(text) == "print(2)\n"
    assert extract_code("```\nprint(3)\n```") == "print(3)\n"  # untagged counts
    assert extract_code("```bash\nls\n```") is None
    assert extract_code("no code, `inline` only") is None
    assert extract_code("```python\n   \n```") is None


def test_an_answer_inside_code_is_not_an_answer():
    assert not has_answer("```python\nprint('<answer>3</answer>')\n```")
    assert has_answer("```python\nx=1\n```\n<answer>3</answer>")
    assert generation_failed("") and generation_failed("[LMMS_EVAL_REQUEST_FAILED after 3 retries] boom")
    assert not generation_failed("<answer>3</answer>")


def test_cut_says_what_it_cut():
    text, was = cut("x" * 100, 10, "head")
    assert was and text.startswith("x" * 10) and "90 characters cut; 100 in all" in text
    text, was = cut("a" * 50 + "END", 10, "tail")
    assert was and text.endswith("a" * 7 + "END")
    assert cut("short", 10) == ("short", False)


def test_code_runs_on_the_items_images_and_its_output_and_images_come_back():
    code = ("import numpy as np\nfrom PIL import Image\nimport os\n"
            "a = np.asarray(Image.open('image_1.png'))\n"
            "print('red', int(((a[..., 0] == 255) & (a[..., 1] == 0)).sum()), 'files', sorted(os.listdir('.')))\n"
            "Image.fromarray(np.full((6, 5, 3), 77, np.uint8)).save('probe.png')\n"
            "open('notes.txt', 'w').write('hi')\n")
    outs, info, contexts, visuals = _loop(_doc(two=True), [f"Let me look.\n```python\n{code}```", "<answer>1</answer>"])
    ex = info["state"]["executions"]
    assert len(ex) == 1 and ex[0]["status"] == "ok" and ex[0]["exit_code"] == 0
    assert "red 1 files ['image_1.png', 'image_2.png']" in ex[0]["stdout"]
    assert [i["name"] for i in ex[0]["images"]] == ["probe.png"] and ex[0]["images"][0]["size"] == [5, 6]
    assert ex[0]["other_files"] == [{"name": "notes.txt", "bytes": 2}]
    # the next turn holds the first turn, the reply, the output, and attaches the saved image
    assert contexts[1].startswith(contexts[0]) and "red 1 files" in contexts[1] and "Let me look." in contexts[1]
    assert "saved image probe.png (5x6 px): attached as image 3" in contexts[1]
    assert len(visuals[0]) == 3 and visuals[0][2].getpixel((0, 0)) == (77, 77, 77)
    final = json.loads(outs[-1])
    assert final["text"] == "<answer>1</answer>" and final["cwi_code"]["ended"] == "answer"
    assert final["cwi_code"]["replies"][0].startswith("Let me look.") and len(final["cwi_code"]["replies"]) == 2
    # `lmms-plugins report` shows the rounds: the reply, the execution's status and output, the saved image
    from lmms_plugins.report import rounds_block

    html = rounds_block(outs[-1])
    assert "round 1 · code run: ok" in html and "red 1 files" in html and html.count("<img") == 1 and "round 2" in html
    res = code_hooks.process_results(_doc(), [outs[-1]], rule=RULE)
    assert res["accuracy"]["value"] == 1.0 and res["rounds_used"]["value"] == 2 and res["executions"]["value"] == 1
    assert res["execution_errors"]["value"] == 0 and res["answered_without_code"]["value"] == 0


def test_errors_and_timeouts_are_said_and_counted():
    replies = ["```python\nraise ValueError('bad idea')\n```", "```python\nimport time\ntime.sleep(30)\n```", "<answer>2</answer>"]
    outs, info, contexts, _ = _loop(_doc(), replies, exec_wall_s=1.5)
    ex = info["state"]["executions"]
    assert [e["status"] for e in ex] == ["error", "timeout"]
    assert "ValueError: bad idea" in ex[0]["stderr"] and "ValueError: bad idea" in contexts[1]
    assert "status: timeout" in contexts[2]
    res = code_hooks.process_results(_doc(), [outs[-1]], rule=RULE)
    assert res["accuracy"]["value"] == 0.0 and res["execution_errors"]["value"] == 2 and res["timeouts"]["value"] == 1
    assert res["rounds_used"]["value"] == 3


def test_long_output_is_cut_and_the_cut_is_said():
    outs, info, contexts, _ = _loop(_doc(), ["```python\nprint('y' * 20000)\n```", "<answer>1</answer>"], max_output_chars=500)
    ex = info["state"]["executions"][0]
    assert ex["truncated"] and len(ex["stdout"]) < 1000 and "cut" in ex["stdout"]


@pytest.mark.parametrize(
    "replies, ended, accuracy_status",
    [
        (["<answer>1</answer>"], "answer", "ok"),  # answered without code
        (["I think it is one."], "no_action", "unparsable"),  # neither code nor answer
        (["[LMMS_EVAL_REQUEST_FAILED after 5 retries] timeout"], "generation_failed", "generation_failed"),
        (["```python\nprint(1)\n```"] * 5, "max_rounds", "unparsable"),  # max_rounds=3: the 3rd reply's code does not run
    ],
)
def test_how_the_loop_ends(replies, ended, accuracy_status):
    outs, info, _, _ = _loop(_doc(), replies, max_rounds=3)
    final = json.loads(outs[-1])
    assert final["cwi_code"]["ended"] == ended
    res = code_hooks.process_results(_doc(), [outs[-1]], rule=RULE)
    assert res["accuracy"]["status"] == accuracy_status
    if ended == "answer":
        assert res["answered_without_code"]["value"] == 1.0 and res["accuracy"]["value"] == 1.0
    if ended == "max_rounds":
        assert res["executions"]["value"] == 2 and res["rounds_used"]["value"] == 3


def test_lmms_evals_own_step_limit_json_is_read_too():
    state = {"prompt": "p", "max_rounds": 8, "executions": [{"status": "ok"}], "rounds": 12}
    raw = json.dumps({"success": False, "error": "max_agentic_steps_reached", "state": state,
                      "last_model_output": "```python\nprint(1)\n```"})
    res = code_hooks.process_results(_doc(), [raw], rule=RULE)
    assert res["rounds_used"]["value"] == 12 and res["executions"]["value"] == 1
    assert res["rounds_used"]["ended"] == "max_agentic_steps" and res["accuracy"]["status"] == "unparsable"


def test_saved_images_that_do_not_decode_are_listed_not_sent():
    code = "open('fake.png', 'wb').write(b'not a png')\n"
    _, info, contexts, visuals = _loop(_doc(), [f"```python\n{code}```", "<answer>1</answer>"])
    ex = info["state"]["executions"][0]
    assert ex["images"] == [] and ex["other_files"][0]["name"] == "fake.png" and "not a readable image" in ex["other_files"][0]["why"]
    assert len(visuals[0]) == 1 and "saved file fake.png" in contexts[1]


def test_input_files_are_the_items_images_as_png():
    files = code_hooks.input_files(_doc(two=True))
    assert list(files) == ["image_1.png", "image_2.png"]
    assert Image.open(io.BytesIO(files["image_1.png"])).getpixel((3, 4)) == (255, 0, 0)


def test_odd_file_names_from_the_real_sandbox_keep_the_log_and_the_next_round_whole():
    """The code saves files whose names are invalid UTF-8 or hold a line break: whatever the
    sandbox returns for them, the trace holds safe names, the next turn is valid text, and the
    loop goes on to its answer."""
    code = ("import os\nfrom PIL import Image\n"
            "Image.new('RGB', (4, 4), (9, 9, 9)).save(os.fsencode('.') + b'/\\xff\\xfeimg.png', format='PNG')\n"
            "open('two\\nlines.txt', 'w').write('x')\nprint('saved')\n")
    outs, info, contexts, _ = _loop(_doc(), [f"```python\n{code}```", "<answer>1</answer>"])
    ex = info["state"]["executions"][0]
    assert ex["status"] == "ok" and "saved" in ex["stdout"]
    for f in ex["images"] + ex["other_files"]:
        f["name"].encode("utf-8")
        assert "\n" not in f["name"]
    contexts[1].encode("utf-8")
    final = json.loads(outs[-1])
    json.dumps(final, ensure_ascii=False).encode("utf-8")
    assert final["cwi_code"]["ended"] == "answer"
    assert code_hooks.process_results(_doc(), [outs[-1]], rule=RULE)["accuracy"]["value"] == 1.0

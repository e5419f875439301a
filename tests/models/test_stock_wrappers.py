"""lmms-eval's own Hugging Face wrappers on every task type, with tiny random checkpoints on the CPU.

The checkpoints (tests/models/tiny_vlms.py) load with ``from_pretrained(folder)`` like published
ones, so each run goes through the wrapper's real path: our docs' images through the family's
image processor, our prompts through its chat template, generation, decoding, and then our
scorers. The replies are printable noise, so the tests check what every sample became (a status,
counted; never an exception, never a failure read as an answer), not the scores' values.

What ran is the README's compatibility table ("Open models through lmms-eval's Hugging Face wrappers").
"""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
for folder in (TESTS, Path(__file__).resolve().parent):
    sys.path.insert(0, str(folder))

from conftest import run_lmms_eval_cli  # noqa: E402
from judge_server import FakeJudgeServer  # noqa: E402
from task_settings import settings_include  # noqa: E402
from tiny_vlms import (build_tiny_internvl, build_tiny_llava, build_tiny_qwen2_5_vl, build_tiny_qwen3_vl,  # noqa: E402
                       local_benchmark_data)

pytestmark = pytest.mark.e2e
# noise needs few tokens (a random model never stops by itself), and four documents per task
GEN = ["--gen_kwargs", "max_new_tokens=12", "--limit", "4"]
CPU = "device=cpu,device_map=cpu"


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory):
    root = tmp_path_factory.mktemp("checkpoints")
    return {"qwen2_5_vl": build_tiny_qwen2_5_vl(root / "qwen2_5_vl"), "qwen3_vl": build_tiny_qwen3_vl(root / "qwen3_vl"),
            "llava": build_tiny_llava(root / "llava"), "internvl": build_tiny_internvl(root / "internvl")}


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    """Local copies of every benchmark (one or two items each) and a judge that must never be asked."""
    data = local_benchmark_data(tmp_path_factory.mktemp("data"))
    detector = settings_include(tmp_path_factory.mktemp("settings"), {"abacus_add_easy": {"detector": "synthetic_test"}})
    with FakeJudgeServer(lambda request: "{}") as judge:
        yield {"judge": judge, "include_path": detector, "vars": {**data, "LMMS_PLUGINS_JUDGE_BASE_URL": judge.base_url,
                                        "LMMS_PLUGINS_JUDGE_MODEL": "fake-judge", "LMMS_PLUGINS_JUDGE_CACHE": "off",
                                        "OPENAI_API_KEY": "none"}}


def statuses(samples: list[dict], metric: str) -> Counter:
    return Counter(sample[metric]["status"] for sample in samples)


def check_answer_tasks(res: dict, tasks: list[str]) -> None:
    """CwI: noise is the model's answer (unparsable or wrong), never a failed generation."""
    for task in tasks:
        samples = res["_samples"][task]
        assert samples, task
        got = statuses(samples, "accuracy")
        assert set(got) <= {"ok", "unparsable"}, (task, got)
        for sample in samples:
            assert sample["accuracy"]["value"] == 0.0, (task, sample["accuracy"])  # noise cannot be right
            reply = sample["filtered_resps"]
            reply = reply[0] if isinstance(reply, list) else reply
            assert isinstance(reply, str) and reply.strip(), (task, reply)


def check_code_task(res: dict, task: str) -> None:
    """cwi_code: lmms-eval's agentic loop ran on a wrapper with only generate_until: the transcript is
    logged, the reply without code ended the loop in its first round."""
    check_answer_tasks(res, [task])
    for sample in res["_samples"][task]:
        assert sample["rounds_used"]["value"] == 1 and sample["executions"]["value"] == 0, sample["rounds_used"]
        assert '"cwi_code"' in str(sample["filtered_resps"])


def check_dod(res: dict, task: str) -> None:
    """A text-only model: no image, so every feasible request is a failed edit (E = 0), and a reply
    that concludes nothing declines nothing (D = 0). Noise is in no language the judge-free refusal
    rules cover, so a reply may be `refusal_not_covered` (pending), or `refusal_uncertain` (no image and
    no conclusion in a text that negates something: pending), never a guessed verdict."""
    samples = res["_samples"][task]
    assert len(samples) == 4
    assert set(statuses(samples, "dod_run")) <= {"ok", "refusal_not_covered", "refusal_uncertain"}
    assert not any(s["dod_run"]["record"]["has_image"] or s["dod_run"]["record"]["refused"] for s in samples)
    for metric in ("E", "D_strict", "D_lenient"):
        value = res["results"][task][f"{metric},none"]
        assert value == 0.0 or value != value, (metric, value)  # 0, or NaN when every sample is pending


def check_image_tasks(res: dict, tasks: list[str], judge) -> None:
    """GRADE / ABACUS: a text reply where an edited image is expected is `missing_image`, counted,
    and costs no judge call."""
    for task, metric in tasks:
        samples = res["_samples"][task]
        assert samples and statuses(samples, metric) == Counter({"missing_image": len(samples)}), task
    assert judge.calls == 0


def render_report(res: dict, tmp: Path) -> str:
    """`lmms-plugins report` renders the run's samples."""
    run_dir = Path(res["_path"]).parent
    out = tmp / "report.html"
    proc = subprocess.run([sys.executable, "-m", "lmms_plugins", "report", str(run_dir), "--out", str(out)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    return out.read_text(encoding="utf-8")


def test_qwen2_5_vl_every_task_type(tmp_path, checkpoints, env):
    """lmms-eval's ``qwen2_5_vl`` (its chat wrapper, the default): CwI with one and two images, the
    agentic code loop, DoD both prompts, GRADE and ABACUS, one run."""
    tasks = ["cwi_alignment", "cwi_color_count", "cwi_code_color_count", "dod_no_hint", "dod_decline_hint", "grade",
             "abacus_add_easy"]
    res = run_lmms_eval_cli(",".join(tasks), "qwen2_5_vl", f"pretrained={checkpoints['qwen2_5_vl']},{CPU}",
                            out_dir=tmp_path / "run", env=env["vars"], extra_args=GEN, include_path=env["include_path"])
    check_answer_tasks(res, ["cwi_alignment", "cwi_color_count"])
    check_code_task(res, "cwi_code_color_count")
    check_dod(res, "dod_no_hint")
    check_dod(res, "dod_decline_hint")
    check_image_tasks(res, [("grade", "grade_strict"), ("abacus_add_easy", "abacus_score")], env["judge"])
    html = render_report(res, tmp_path)
    for task in tasks:
        assert task in html, task


def test_llava_hf_two_images_code_loop_and_dod(tmp_path, checkpoints, env):
    """lmms-eval's ``llava_hf`` (LLaVA-1.5 layout: CLIP tower, one <image> per picture)."""
    tasks = ["cwi_alignment", "cwi_code_color_count", "dod_no_hint", "abacus_add_easy"]
    res = run_lmms_eval_cli(",".join(tasks), "llava_hf", f"pretrained={checkpoints['llava']},{CPU}",
                            out_dir=tmp_path / "run", env=env["vars"], extra_args=GEN, include_path=env["include_path"])
    check_answer_tasks(res, ["cwi_alignment"])
    check_code_task(res, "cwi_code_color_count")
    check_dod(res, "dod_no_hint")
    check_image_tasks(res, [("abacus_add_easy", "abacus_score")], env["judge"])


def test_qwen3_vl_one_image_code_loop_dod_and_grade(tmp_path, checkpoints, env):
    """lmms-eval's ``qwen3_vl`` (patch 16, deep-stack features; the wrapper also serves Qwen3.5)."""
    tasks = ["cwi_color_count", "cwi_code_color_count", "dod_decline_hint", "grade"]
    res = run_lmms_eval_cli(",".join(tasks), "qwen3_vl", f"pretrained={checkpoints['qwen3_vl']},{CPU}",
                            out_dir=tmp_path / "run", env=env["vars"], extra_args=GEN)
    check_answer_tasks(res, ["cwi_color_count"])
    check_code_task(res, "cwi_code_color_count")
    check_dod(res, "dod_decline_hint")
    check_image_tasks(res, [("grade", "grade_strict")], env["judge"])


def test_internvl_hf_two_images_code_loop_and_abacus(tmp_path, checkpoints, env):
    """lmms-eval's ``internvl_hf`` (InternVL-HF layout: <IMG_CONTEXT> tokens, one tile per image here)."""
    tasks = ["cwi_alignment", "cwi_code_color_count", "abacus_add_easy"]
    res = run_lmms_eval_cli(",".join(tasks), "internvl_hf", f"pretrained={checkpoints['internvl']},{CPU},max_patches=1",
                            out_dir=tmp_path / "run", env=env["vars"], extra_args=GEN, include_path=env["include_path"])
    check_answer_tasks(res, ["cwi_alignment"])
    check_code_task(res, "cwi_code_color_count")
    check_image_tasks(res, [("abacus_add_easy", "abacus_score")], env["judge"])


def test_generic_huggingface_wrapper_fails_in_lmms_eval_with_transformers_5(tmp_path, checkpoints, env):
    """lmms-eval 0.7.3's generic ``huggingface`` chat wrapper passes ``audios=`` to the processor,
    which transformers 5 rejects before generating anything, whatever the task: the README says to use
    the family's wrapper. This test fails (and the table must change) the day upstream fixes it."""
    out = tmp_path / "run"
    with pytest.raises(AssertionError, match="keyword argument `audios` which is deprecated"):
        run_lmms_eval_cli("cwi_color_count", "huggingface", f"pretrained={checkpoints['qwen2_5_vl']},{CPU}",
                          out_dir=out, env=env["vars"], extra_args=GEN)
    assert not list(out.rglob("*_results.json"))

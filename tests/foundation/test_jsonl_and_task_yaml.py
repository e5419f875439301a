"""The package's one JSONL reader (utils/jsonl.py) and one task-YAML loader (utils/task_yaml.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from lmms_plugins import tasks_dir
from lmms_plugins.utils import task_yaml
from lmms_plugins.utils.jsonl import JsonlError, iter_jsonl, read_jsonl


def test_a_json_string_holding_a_unicode_line_separator_stays_one_line(tmp_path):
    # json.dumps(..., ensure_ascii=False) writes U+2028 raw; str.splitlines() would cut there
    rows = [{"doc_id": 0, "resp": "one\u2028two\u2029three\x85four"}, {"doc_id": 1, "resp": "ok"}]
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    assert "one\u2028two" in path.read_text(encoding="utf-8")  # the separator is really there, raw
    assert len(path.read_text(encoding="utf-8").splitlines()) > 2  # ... and splitlines() would cut the line
    assert read_jsonl(path) == rows


def test_blank_lines_crlf_and_a_byte_order_mark_are_read_with_true_line_numbers(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_bytes(b'\xef\xbb\xbf{"a": 1}\r\n\r\n   \n{"a": 2}\n[3]\n')
    assert list(iter_jsonl(path)) == [(1, {"a": 1}), (4, {"a": 2}), (5, [3])]


def test_a_bad_line_is_an_error_naming_file_and_line_in_the_callers_type(tmp_path):
    path = tmp_path / "broken.jsonl"
    path.write_text('{"a": 1}\n\n{"a": \n', encoding="utf-8")
    with pytest.raises(JsonlError, match=r"broken\.jsonl:3: not JSON \(Expecting value at column 7\)"):
        read_jsonl(path)

    class MyError(Exception):
        pass

    with pytest.raises(MyError, match=r"broken\.jsonl:3"):
        read_jsonl(path, error=MyError)
    assert issubclass(JsonlError, ValueError)  # callers that caught ValueError still do


def test_a_line_that_is_not_utf8_is_an_error_naming_its_line(tmp_path):
    path = tmp_path / "latin1.jsonl"
    path.write_bytes(b'{"a": 1}\n{"a": "caf\xe9"}\n')
    with pytest.raises(JsonlError, match=r"latin1\.jsonl:2: not UTF-8"):
        read_jsonl(path)


def test_function_tags_are_kept_as_dotted_names_and_other_tags_are_refused(tmp_path):
    text = "process_results: !function lmms_plugins.tasks.cwi.hooks.process_results\nmetric_list:\n  - metric: acc\n"
    assert task_yaml.loads(text) == {"process_results": "lmms_plugins.tasks.cwi.hooks.process_results",
                                     "metric_list": [{"metric": "acc"}]}
    (tmp_path / "t.yaml").write_text(text, encoding="utf-8")
    assert task_yaml.load(tmp_path / "t.yaml") == task_yaml.loads(text)
    assert task_yaml.loads("") is None
    ref = task_yaml.loads(text)["process_results"]
    assert isinstance(ref, task_yaml.FunctionRef) and not isinstance(task_yaml.loads("a: plain.name")["a"], task_yaml.FunctionRef)
    assert task_yaml.loads(yaml.dump(task_yaml.loads(text), Dumper=task_yaml.dumper())) == task_yaml.loads(text)  # round trip
    assert "!function" in yaml.dump({"f": ref}, Dumper=task_yaml.dumper())
    with pytest.raises(yaml.YAMLError, match="!python/object"):
        task_yaml.loads("x: !python/object:os.system [echo]\n")


def test_every_task_yaml_of_the_package_loads_and_names_its_hooks_by_dotted_path():
    files = [p for p in Path(tasks_dir()).rglob("*") if p.name.endswith(".yaml") or p.name == "_default_template_yaml"]
    assert len(files) >= 30
    refs = []

    def walk(v):
        if isinstance(v, dict):
            for x in v.values():
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)
        elif isinstance(v, str) and v.startswith("lmms_plugins."):
            refs.append(v)

    for path in files:
        walk(task_yaml.load(path))
    assert refs and all(r.count(".") >= 2 and " " not in r for r in refs)

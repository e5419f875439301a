"""Published ("community") numbers of the four benchmarks, as data.

One CSV per benchmark in this folder (``dod.csv``, ``abacus.csv``, ``grade.csv``), one row per
published number, columns:

``benchmark, model, setting, metric, value, unit, kind, n, source, protocol, notes``

* ``unit``: ``percent`` (0-100) or ``fraction`` (0-1), as the source publishes it.
* ``kind``: ``score`` (a model's result), ``upper_bound`` (a stated ceiling over models, e.g. the
  DoD no-hint refusal ceiling), ``evaluator`` (agreement of the benchmark's evaluator with humans).
* ``setting``: the benchmark's condition (``no_hint``, ``implicit``, ``add/easy``, ``all`` ...).
* ``source`` names the paper/README and table; ``protocol`` the judge or pipeline that produced
  the number, so a comparison can say where this package's protocol differs.

The folder is not under ``tasks/`` on purpose: lmms-eval scans that one for task YAMLs.
CwI-Bench has no published model numbers in its card, hence no file.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

DATA_DIR = Path(__file__).resolve().parent
COLUMNS = ("benchmark", "model", "setting", "metric", "value", "unit", "kind", "n", "source", "protocol", "notes")
UNITS = {"percent": 100.0, "fraction": 1.0}
KINDS = ("score", "upper_bound", "evaluator")


class BaselineDataError(ValueError):
    """A row of a baselines CSV is malformed; the message names the file and line."""


@dataclass(frozen=True)
class Baseline:
    benchmark: str
    model: str
    setting: str
    metric: str
    value: float
    unit: str
    kind: str
    n: int | None
    source: str
    protocol: str
    notes: str = ""

    @property
    def scale(self) -> float:
        """100 for percent, 1 for fraction: ``value / scale`` is on 0-1."""
        return UNITS[self.unit]


def _parse_row(row: dict, where: str) -> Baseline:
    missing = [c for c in COLUMNS if c not in row]
    if missing:
        raise BaselineDataError(f"{where}: missing columns {missing}")
    for col in ("benchmark", "model", "setting", "metric", "value", "unit", "kind", "source", "protocol"):
        if not (row[col] or "").strip():
            raise BaselineDataError(f"{where}: empty {col!r}")
    try:
        value = float(row["value"])
    except ValueError:
        raise BaselineDataError(f"{where}: value {row['value']!r} is not a number") from None
    unit, kind = row["unit"].strip(), row["kind"].strip()
    if unit not in UNITS:
        raise BaselineDataError(f"{where}: unit {unit!r} is not one of {sorted(UNITS)}")
    if kind not in KINDS:
        raise BaselineDataError(f"{where}: kind {kind!r} is not one of {KINDS}")
    if not 0.0 <= value <= UNITS[unit]:
        raise BaselineDataError(f"{where}: value {value} out of range for unit {unit}")
    n_raw = (row["n"] or "").strip()
    try:
        n = int(n_raw) if n_raw else None
    except ValueError:
        raise BaselineDataError(f"{where}: n {n_raw!r} is not an integer") from None
    return Baseline(
        benchmark=row["benchmark"].strip(), model=row["model"].strip(), setting=row["setting"].strip(),
        metric=row["metric"].strip(), value=value, unit=unit, kind=kind, n=n,
        source=row["source"].strip(), protocol=row["protocol"].strip(), notes=(row["notes"] or "").strip(),
    )


def data_files() -> list[Path]:
    return sorted(DATA_DIR.glob("*.csv"))


def load_file(path: Path) -> list[Baseline]:
    """The rows of one CSV. Every row must have exactly the header's fields: a field holding a
    comma must be quoted, or the row shifts (the protocol cut, the notes lost) without notice."""
    path = Path(path)
    with path.open(newline="", encoding="utf-8") as fh:
        reader = csv.reader(fh)
        header = next(reader, None)
        if tuple(header or ()) != COLUMNS:
            raise BaselineDataError(f"{path.name}: header {header} != {list(COLUMNS)}")
        rows = []
        for fields in reader:
            where = f"{path.name}:{reader.line_num}"
            if not fields:
                continue  # a blank line
            if len(fields) != len(COLUMNS):
                raise BaselineDataError(
                    f"{where}: {len(fields)} fields, expected {len(COLUMNS)} ({', '.join(COLUMNS)});"
                    " a field that contains a comma must be quoted")
            rows.append(_parse_row(dict(zip(COLUMNS, fields)), where))
        return rows


def load(benchmark: str | None = None, *, kinds: tuple[str, ...] | None = None) -> list[Baseline]:
    """Every published row (optionally of one benchmark and of some kinds), in file order."""
    rows: list[Baseline] = []
    for path in data_files():
        rows.extend(load_file(path))
    if benchmark is not None:
        rows = [r for r in rows if r.benchmark == benchmark]
    if kinds is not None:
        rows = [r for r in rows if r.kind in kinds]
    return rows


def lookup(benchmark: str, metric: str, settings: tuple[str, ...]) -> list[Baseline]:
    """Model rows (score and upper_bound) of one community metric under any of ``settings``."""
    return [r for r in load(benchmark, kinds=("score", "upper_bound")) if r.metric == metric and r.setting in settings]

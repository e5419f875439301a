"""Entry point for `torchrun --nproc_per_node N tests/grade/lmms_eval_torchrun.py <lmms-eval args>`.

lmms-eval's own multi-process path (torchrun: one rank per process, documents split by rank,
results gathered on rank 0) needs ``lm.device`` to build the tensors it gathers. The ``replay``
model of this package has no ``device`` yet; until it does, this entry point gives it the CPU
(a no-op once the model defines one), then runs the real lmms-eval CLI unchanged.
"""

from __future__ import annotations

import sys


def main() -> None:
    import torch

    from lmms_plugins.models.replay import Replay

    if not hasattr(Replay, "device"):
        Replay.device = property(lambda self: torch.device("cpu"))
    from lmms_eval.__main__ import cli_evaluate

    sys.argv[0] = "lmms-eval"
    cli_evaluate()


if __name__ == "__main__":
    main()

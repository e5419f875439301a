"""Dense optical flow backends and the flow term of scene consistency.

Backends take two grayscale uint8 images of the same size and return the flow (H, W, 2) float32
from the first to the second, in pixels. ``dis`` (OpenCV DIS, preset MEDIUM with a lighter
search, below) is the default: about 15 ms on a 512x512 pair on one core against seconds for
RAFT-large, with sub-pixel error on real photos (upstream-facts.md). ``raft_small`` / ``raft_large`` (torchvision) are the optional
backends closer to the official protocol (which uses raft_large); they need torch + torchvision,
use the GPU when there is one, and download their pretrained weights on first use.

Flow term (decided here; the card does not say how flow becomes a number in [0, 1]):
    flow_term = mean over background pixels of exp(-|flow| / tau), tau = 4 px at the working
    resolution (longer side 512). A static background gives 1; a uniform drift of s px gives
    exp(-s / 4): 1 px -> 0.78, 3 px -> 0.47, 8 px -> 0.14. Per-pixel (not exp of the mean EPE) so
    that a few wild flow vectors in occlusions cost at most their share of pixels.
"""

from __future__ import annotations

import functools
import threading

FLOW_TAU_PX = 4.0
BACKENDS = ("dis", "raft_small", "raft_large")
# DIS: preset MEDIUM (8 px patches down to half resolution, which a finest scale of 2 would
# give up: drift errors of 0.5 px) with patches every 4 px instead of 3, 12 gradient-descent
# iterations instead of 25 and 2 variational-refinement iterations instead of 5: 1.8x faster,
# and on the synthetic drifts the same flow term (max error 0.014 vs 0.013) and drift (0.08 px
# vs 0.10 px); README "Evidence" has the before/after SC table (benchmarks/abacus_sc_calibration.py).
DIS_PATCH_STRIDE = 4
DIS_GRADIENT_DESCENT_ITERATIONS = 12
DIS_VARIATIONAL_REFINEMENT_ITERATIONS = 2


class FlowBackendUnavailable(RuntimeError):
    """The requested flow backend cannot run here; the message says what to install."""


def dis_flow(a_gray, b_gray):
    import cv2

    # one DIS object per call: OpenCV's DIS keeps state and process_results runs in threads
    import numpy as np

    dis = cv2.DISOpticalFlow_create(cv2.DISOPTICAL_FLOW_PRESET_MEDIUM)
    dis.setPatchStride(DIS_PATCH_STRIDE)
    dis.setGradientDescentIterations(DIS_GRADIENT_DESCENT_ITERATIONS)
    dis.setVariationalRefinementIterations(DIS_VARIATIONAL_REFINEMENT_ITERATIONS)
    return dis.calc(np.ascontiguousarray(a_gray), np.ascontiguousarray(b_gray), None)


def dis_medium_flow(a_gray, b_gray):
    """OpenCV DIS with the plain MEDIUM preset (the default before ABACUS 1.1), for comparisons."""
    import cv2
    import numpy as np

    dis = cv2.DISOpticalFlow_create(cv2.DISOPTICAL_FLOW_PRESET_MEDIUM)
    return dis.calc(np.ascontiguousarray(a_gray), np.ascontiguousarray(b_gray), None)


_raft_lock = threading.Lock()


@functools.lru_cache(maxsize=4)
def _raft_model(name: str, pretrained: bool):
    try:
        import torch
        from torchvision.models import optical_flow as of
    except ImportError as exc:  # pragma: no cover - torch is a dependency of lmms-eval
        raise FlowBackendUnavailable(f"flow backend {name!r} needs torch and torchvision: pip install torch torchvision ({exc})") from exc
    builder = {"raft_small": of.raft_small, "raft_large": of.raft_large}[name]
    weights = None
    if pretrained:
        weights = {"raft_small": of.Raft_Small_Weights, "raft_large": of.Raft_Large_Weights}[name].DEFAULT
    model = builder(weights=weights, progress=False).eval()
    device = "cuda" if torch.cuda.is_available() else "cpu"
    return model.to(device), device


def raft_flow(a_gray, b_gray, *, name: str = "raft_large", pretrained: bool = True, num_flow_updates: int = 12):
    """RAFT flow via torchvision; pads (replicating the border) to a multiple of 8 and to at
    least 128 px per side, as RAFT's correlation pyramid requires."""
    import numpy as np
    import torch
    import torch.nn.functional as F

    model, device = _raft_model(name, pretrained)
    h, w = a_gray.shape[:2]

    def prep(g):
        t = torch.from_numpy(np.repeat(g[None], 3, axis=0).astype(np.float32) / 127.5 - 1.0)[None]
        ph, pw = max((-h) % 8, 128 - h), max((-w) % 8, 128 - w)
        return F.pad(t, (0, pw, 0, ph), mode="replicate").to(device)

    with _raft_lock, torch.inference_mode():  # one RAFT forward at a time: the model is shared
        flows = model(prep(a_gray), prep(b_gray), num_flow_updates=num_flow_updates)
    return flows[-1][0, :, :h, :w].permute(1, 2, 0).cpu().numpy()


def get_backend(name: str = "dis", **kwargs):
    """The flow function for a backend name (``dis``, ``raft_small``, ``raft_large``)."""
    if name == "dis":
        return dis_flow
    if name in ("raft_small", "raft_large"):
        return functools.partial(raft_flow, name=name, **kwargs)
    raise ValueError(f"unknown flow backend {name!r}; choose one of {', '.join(BACKENDS)}")


def flow_term(flow, mask=None, tau: float = FLOW_TAU_PX) -> float:
    """Mean of exp(-|flow| / tau) over the mask (all pixels when mask is None)."""
    import numpy as np

    import cv2

    f = flow.astype(np.float32, copy=False)
    mag = cv2.magnitude(np.ascontiguousarray(f[..., 0]), np.ascontiguousarray(f[..., 1]))
    vals = np.exp(mag * np.float32(-1.0 / tau))
    if mask is None:
        return float(cv2.mean(vals)[0])
    if not mask.any():
        raise ValueError("flow term: empty mask")
    return float(cv2.mean(vals, mask=mask.view(np.uint8) if mask.dtype == bool else (mask != 0).view(np.uint8))[0])

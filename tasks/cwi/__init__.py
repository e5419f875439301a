"""CwI-Bench (Code-with-Image): 30 tasks answered in ``<answer>…</answer>``."""

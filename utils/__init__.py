"""Plumbing shared by two or more benchmarks (installed as ``lmms_plugins.utils``).

Every module here is light to import: heavy libraries (PIL, numpy, cv2, torch) are imported
inside the functions that need them.
"""

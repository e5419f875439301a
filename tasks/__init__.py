"""Task folders, one per benchmark (installed as ``lmms_plugins.tasks``).

lmms-eval scans this folder for ``*.yaml`` task and group configs; the Python modules beside
them hold each benchmark's hooks and scoring code.
"""

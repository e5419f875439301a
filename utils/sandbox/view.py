"""What an execution sees of the host: an allow-list, never derived from ``sys.path``.

* the interpreter (the real executable behind ``sys.executable``, its shared ``libpython``) and
  its standard library, at their host paths, read-only;
* in the interpreter's own site-packages folder (whatever the host holds there is hidden): only
  the distributions the code may import (:data:`ALLOWED`) and what they require, their top-level
  folders and files (package, ``.libs``, ``.dist-info``). A mount costs milliseconds, so they come
  as one read-only bind of a folder of hard links to exactly those files, made once per set of
  versions next to the venv (``.lmms_sandbox_site/<key>``); where it cannot be made (another file
  system, no write access) each top-level entry is bound on its own;
* the system's shared libraries (the multiarch library folder, the dynamic loader, ld.so.cache).

Nothing else: no working directory, data root, output folder, cache, home, /run or socket.
"""

from __future__ import annotations

import os
import re
import site
import sys
import sysconfig
from dataclasses import dataclass
from functools import lru_cache

#: import names the code may use (the prompt's list); their distributions and requirements are bound
ALLOWED = ("numpy", "PIL", "cv2", "scipy", "skimage")


@dataclass(frozen=True)
class View:
    binds: tuple[tuple[str, str], ...]  # (host path, path inside), read-only, in mount order
    site_dir: str  # inside: an empty read-only tmpfs that holds the package binds
    packages: tuple[tuple[str, str, str], ...]  # (host path, path inside, distribution) under site_dir
    symlinks: tuple[tuple[str, str], ...]  # (target, path inside)
    site_src: str | None  # the folder of hard links bound on site_dir (None: the packages one by one)
    python: str  # the interpreter inside
    missing: tuple[str, ...]  # import names of ALLOWED that are not installed


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _distributions() -> tuple[dict, list[str]]:
    """{normalized name: Distribution} of ALLOWED and their (non-extra) requirements."""
    import importlib.metadata as md

    from packaging.requirements import InvalidRequirement, Requirement

    by_module = md.packages_distributions()
    todo, missing = [], []
    for mod in ALLOWED:
        if by_module.get(mod):
            todo.extend(by_module[mod])
        else:
            missing.append(mod)
    seen: dict = {}
    while todo:
        name = todo.pop()
        if _norm(name) in seen:
            continue
        try:
            dist = md.distribution(name)
        except md.PackageNotFoundError:
            continue  # an optional requirement that is not installed
        seen[_norm(name)] = dist
        for raw in dist.requires or []:
            try:
                req = Requirement(raw)
            except InvalidRequirement:
                continue
            if req.marker is None or req.marker.evaluate({"extra": ""}):
                todo.append(req.name)
    return seen, missing


def _library_dirs() -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """Binds and symlinks for the system's shared libraries (merged /usr or not)."""
    arch = sysconfig.get_config_var("MULTIARCH") or ""
    dirs = (f"/lib/{arch}", f"/usr/lib/{arch}", "/lib64", "/usr/lib64") if arch else ("/lib", "/usr/lib", "/lib64", "/usr/lib64")
    real = dict.fromkeys(os.path.realpath(d) for d in dirs if os.path.isdir(d))
    binds = [(d, d) for d in real]
    if os.path.isfile("/etc/ld.so.cache"):
        binds.append(("/etc/ld.so.cache", "/etc/ld.so.cache"))
    links = [(os.readlink(t), t) for t in ("/lib", "/lib64") if os.path.islink(t)]
    return binds, links


@lru_cache(maxsize=1)
def view() -> View:
    python = os.path.realpath(sys.executable)
    binds: list[tuple[str, str]] = [(python, python)]
    if sysconfig.get_config_var("Py_ENABLE_SHARED"):
        libdir, soname = sysconfig.get_config_var("LIBDIR") or "", sysconfig.get_config_var("INSTSONAME") or ""
        lib = os.path.join(libdir, soname)
        if os.path.isfile(lib):
            binds.append((os.path.realpath(lib), lib))
    stdlib = os.path.dirname(os.__file__)
    binds.append((stdlib, stdlib))
    dynload = sysconfig.get_path("platstdlib", vars={"platbase": sys.base_prefix, "base": sys.base_prefix})
    dynload = os.path.join(dynload, "lib-dynload")
    if os.path.isdir(dynload) and not dynload.startswith(stdlib + os.sep):
        binds.append((dynload, dynload))
    libs, links = _library_dirs()
    binds = libs + binds
    # where the base interpreter's site module looks first (no venv inside: no pyvenv.cfg)
    site_dir = site.getsitepackages([sys.base_prefix])[0]
    dists, missing = _distributions()
    packages: dict[str, tuple[str, str, str]] = {}
    for key, dist in sorted(dists.items()):
        root = str(dist.locate_file(""))
        for f in dist.files or []:
            top = f.parts[0] if f.parts else ""
            if not top or top in ("..", "__pycache__") or top.endswith(".pth") or top in packages:
                continue
            src = os.path.join(root, top)
            if os.path.exists(src):
                packages[top] = (os.path.realpath(src), os.path.join(site_dir, top), key)
    pk = tuple(packages[k] for k in sorted(packages))
    return View(tuple(binds), site_dir, pk, tuple(links), _linked_site(pk), python, tuple(missing))


def _linked_site(packages: tuple) -> str | None:
    """A folder of hard links to the packages' files (made once, atomically); None where it cannot be."""
    import hashlib
    import shutil
    import uuid

    if not packages:
        return None
    key = hashlib.sha256(repr([(src, os.stat(src).st_mtime_ns) for src, _, _ in packages]).encode()).hexdigest()[:16]
    base = os.path.join(sys.prefix, ".lmms_sandbox_site")
    final = os.path.join(base, key)
    if os.path.isdir(final):
        return final
    tmp = os.path.join(base, f".{key}.{uuid.uuid4().hex}")
    try:
        os.makedirs(tmp, mode=0o755)
        for src, dest, _ in packages:
            target = os.path.join(tmp, os.path.basename(dest))
            if os.path.isdir(src):
                shutil.copytree(src, target, symlinks=True, copy_function=os.link)  # with the bytecode
            else:
                os.link(src, target)
        os.rename(tmp, final)
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)
        return final if os.path.isdir(final) else None  # another process made it first, or not possible here
    for old in os.listdir(base):  # earlier sets of versions
        if old != key and not old.startswith("."):
            shutil.rmtree(os.path.join(base, old), ignore_errors=True)
    return final

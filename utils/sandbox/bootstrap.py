"""The first code every sandboxed interpreter runs (``python -I -S -c``), with or without
namespaces: passed as text, so the sandbox needs none of this package's files."""

# The first code the sandboxed interpreter runs: read the program from stdin, make stdin
# /dev/null, lower the rlimits (soft = hard: the program cannot raise them back), run it as
# __main__ and print its traceback without this frame.
_BOOTSTRAP = r"""
import os, sys, resource
src = sys.stdin.buffer.read()
fd = os.open(os.devnull, os.O_RDONLY); os.dup2(fd, 0); os.close(fd)
a = [int(x) for x in sys.argv[1:6]]
sys.path.extend(p for p in sys.argv[6:] if p not in sys.path)  # the evaluator's site-packages (run with -S)
for r, v in ((resource.RLIMIT_CPU, None), (resource.RLIMIT_AS, a[1]), (resource.RLIMIT_FSIZE, a[2]),
             (resource.RLIMIT_NPROC, a[3]), (resource.RLIMIT_NOFILE, a[4]), (resource.RLIMIT_CORE, 0)):
    lim = (a[0], a[0] + 1) if v is None else (v, v)
    try:
        resource.setrlimit(r, lim)
    except (ValueError, OSError) as e:
        sys.stderr.write("[sandbox] could not set rlimit %d: %s\n" % (r, e))
del a, r, v, lim, fd
sys.argv = ["main.py"]
sys.dont_write_bytecode = True  # no __pycache__ among the files it wrote
sys.path.insert(0, os.getcwd())
g = {"__name__": "__main__", "__file__": "main.py", "__builtins__": __builtins__}
try:
    exec(compile(src, "main.py", "exec"), g)
except SystemExit:
    raise
except BaseException as e:
    g.clear()  # frees what the program held (a MemoryError leaves no room to print otherwise)
    import linecache, traceback  # only now: they cost a few ms at every start
    linecache.cache["main.py"] = (len(src), None, src.decode("utf-8", "replace").splitlines(True), "main.py")
    traceback.print_exception(type(e), e, e.__traceback__.tb_next if e.__traceback__ else None)
    sys.stderr.flush()
    sys.exit(1)
"""

"""The warm worker's own program, as source text (``python -I -S -c _ZYGOTE``, started by
warm.py): imports the usual libraries once, then forks one confined execution per request."""

from .ns_init import _NS_SETUP

# The warm worker (opt-in, root with namespaces only): one long-lived interpreter per evaluator
# process that has imported the usual libraries once, and forks for every execution. The fork
# (C1) enters new namespaces and forks their PID 1 (C2, which sets the mounts up as _NS_INIT
# does), which forks the program (C3): it drops to the execution's uid, lowers its rlimits, takes
# its stdout/stderr/program pipes from the evaluator (passed over the socket) and runs the program
# in the already warm interpreter. The worker reports each C1's pid and exit status; it exits,
# and its children with it, when the evaluator's end of the socket closes.
_ZYGOTE = (
    _NS_SETUP
    + r"""
import json, resource, selectors, signal, socket
sock = socket.socket(fileno=int(sys.argv[1]))
sys.path.extend(p for p in sys.argv[3:] if p not in sys.path)
for name in sys.argv[2].split(","):
    try:
        __import__(name)
    except Exception:
        pass
import linecache, threading, traceback, atexit
CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC = 0x20000, 0x4000000, 0x8000000
CLONE_NEWPID, CLONE_NEWNET = 0x20000000, 0x40000000

def program(req, fds):
    out_w, err_w, code_r = fds
    drop_privileges(req["uid"])
    libc.prctl(4, 1, 0, 0, 0)  # PR_SET_DUMPABLE, as an exec would leave it: its /proc/self is its own
    with os.fdopen(code_r, "rb") as f:
        src = f.read()
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0); os.dup2(out_w, 1); os.dup2(err_w, 2)
    os.closerange(3, 65536)
    os.environ.clear(); os.environ.update(req["env"]); os.environ["PWD"] = req["work"]
    cpu, mem, fsize, nproc, nofile = req["rl"]
    with open("/proc/self/status") as f:
        vm = int(f.read().split("VmSize:")[1].split()[0]) * 1024  # what the warm interpreter already maps
    for r, lim in ((resource.RLIMIT_CPU, (cpu, cpu + 1)), (resource.RLIMIT_AS, (vm + mem, vm + mem)),
                   (resource.RLIMIT_FSIZE, (fsize, fsize)), (resource.RLIMIT_NPROC, (nproc, nproc)),
                   (resource.RLIMIT_NOFILE, (nofile, nofile)), (resource.RLIMIT_CORE, (0, 0))):
        resource.setrlimit(r, lim)
    if "numpy" in sys.modules:
        sys.modules["numpy"].random.seed()  # a fresh interpreter would draw its own seed
    sys.argv = ["main.py"]
    sys.dont_write_bytecode = True
    sys.path.insert(0, os.getcwd())
    g = {"__name__": "__main__", "__file__": "main.py", "__builtins__": __builtins__}
    code = 0
    try:
        exec(compile(src, "main.py", "exec"), g)
    except SystemExit as e:
        if e.code is None:
            code = 0
        elif isinstance(e.code, int):
            code = e.code
        else:
            sys.stderr.write("%s\n" % (e.code,))
            code = 1
    except BaseException as e:
        g.clear()
        linecache.cache["main.py"] = (len(src), None, src.decode("utf-8", "replace").splitlines(True), "main.py")
        traceback.print_exception(type(e), e, e.__traceback__.tb_next if e.__traceback__ else None)
        code = 1
    try:
        threading._shutdown()
        atexit._run_exitfuncs()
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(code & 0xFF if code >= 0 else 1)

def c1(req, fds):
    # in the worker's namespaces, as root: enter new ones, become the parent of their PID 1
    signal.alarm(int(req["wall_s"] + req["margin_s"]) + 1)  # the watchdog: SIGALRM ends C1, PDEATHSIG the rest
    os.dup2(fds[1], 2)
    if libc.unshare(CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS) != 0:
        raise OSError(ctypes.get_errno(), "unshare")
    mount(None, "/", None, MS_REC | MS_PRIVATE, None)
    pid = os.fork()
    if pid == 0:
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG: C2 dies with C1
        mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, None)
        os.chdir(req["scratch"])
        setup_mounts(req)
        p3 = os.fork()
        if p3 == 0:
            try:
                program(req, fds)
            except BaseException as e:
                sys.stderr.write("[sandbox-init] %s\n" % e)
                sys.stderr.flush()
                os._exit(125)
        for fd in fds:
            os.close(fd)
        os._exit(reap_until(p3))
    for fd in fds:
        os.close(fd)
    _, st = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(st)
    os._exit(128 - code if code < 0 else code)

r_wake, w_wake = os.pipe()
os.set_blocking(w_wake, False)
signal.set_wakeup_fd(w_wake)
signal.signal(signal.SIGCHLD, lambda *a: None)
sel = selectors.DefaultSelector()
sel.register(sock, selectors.EVENT_READ)
sel.register(r_wake, selectors.EVENT_READ)
children = {}
sock.send(json.dumps({"ready": sorted(m for m in sys.modules if "." not in m)}).encode())
while True:
    for key, _ in sel.select():
        if key.fileobj is sock:
            try:
                msg, fds, _, _ = socket.recv_fds(sock, 1 << 20, 3)
            except OSError:
                msg, fds = b"", []
            if not msg:  # the evaluator is gone: so are its executions
                for pid in children:
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except OSError:
                        pass
                os._exit(0)
            req = json.loads(msg)
            sys.stdout.flush(); sys.stderr.flush()
            pid = os.fork()
            if pid == 0:
                try:
                    signal.set_wakeup_fd(-1)
                    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                    sock.close(); os.close(r_wake); os.close(w_wake)
                    libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG: C1 dies with the worker
                    c1(req, fds)
                except BaseException as e:
                    try:
                        os.write(fds[1], ("[sandbox-init] %s\n" % e).encode())
                    except Exception:
                        pass
                    os._exit(125)
            for fd in fds:
                os.close(fd)
            children[pid] = req["id"]
            sock.send(json.dumps({"id": req["id"], "pid": pid}).encode())
        else:
            try:
                os.read(r_wake, 4096)
            except OSError:
                pass
            while True:
                try:
                    pid, st = os.waitpid(-1, os.WNOHANG)
                except ChildProcessError:
                    break
                if pid == 0:
                    break
                rid = children.pop(pid, None)
                if rid is not None:
                    sock.send(json.dumps({"id": rid, "status": os.waitstatus_to_exitcode(st)}).encode())
"""
)

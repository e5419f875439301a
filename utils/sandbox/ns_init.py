"""PID 1 of an execution's new namespaces, as source text.

namespaces.py starts it with ``unshare ... python -I -S -c _NS_INIT``: it is passed as text, never
imported or run from a file, so it works whatever the namespace hides (e.g. /root, where this
checkout may live). The warm worker (warm_worker.py) runs the same mount and privilege code
(``_NS_SETUP``) in its forks.
"""

# PID 1 of the new namespaces, run as root with ``python -I -S`` (cwd = the scratch folder):
# makes the world-writable folders private tmpfs, hides folders the execution's uid could not
# enter anyway (e.g. /root) behind an empty tmpfs while re-exposing the interpreter's own
# folders inside them, binds the scratch folder at /tmp/work, then forks the program as the
# execution's uid (no groups, no capabilities, no_new_privs) and waits for it. It stays PID 1
# so that the kernel's signals to the program (SIGXCPU) are not ignored as they are for a
# namespace's init; when it exits the kernel kills whatever is left in the namespace.
_NS_SETUP = r"""
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_BIND, MS_REC, MS_PRIVATE = 2, 4, 8, 4096, 16384, 1 << 18
def mount(src, tgt, fstype, flags, data):
    if libc.mount(src.encode() if src else None, tgt.encode(), fstype.encode() if fstype else None,
                  ctypes.c_ulong(flags), data.encode() if data else None) != 0:
        e = ctypes.get_errno()
        raise OSError(e, "mount %s on %s: %s" % (src, tgt, os.strerror(e)))
def setup_mounts(cfg):
    # cwd = the scratch folder; ends in cfg["work"]
    work_fd = os.open(".", os.O_RDONLY | os.O_DIRECTORY)
    keep = [(p, os.open(p, os.O_PATH)) for p in cfg["keep"]]
    for d in cfg["hide"]:
        mount("tmpfs", d, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=755")
    for d in cfg["private"]:
        os.makedirs(d, exist_ok=True)  # /run/lock inside the emptied /run
        mount("tmpfs", d, "tmpfs", MS_NOSUID | MS_NODEV, "size=%dm,mode=1777" % cfg["tmp_mb"])
    os.umask(0o022)
    for p, fd in keep:
        os.makedirs(p, exist_ok=True)
        mount("/proc/self/fd/%d" % fd, p, None, MS_BIND | MS_REC, None)
        os.close(fd)
    os.makedirs(cfg["work"], exist_ok=True)
    mount("/proc/self/fd/%d" % work_fd, cfg["work"], None, MS_BIND, None)
    os.close(work_fd)
    os.chdir(cfg["work"])
    os.environ["PWD"] = cfg["work"]
def drop_privileges(uid):
    if uid >= 0:
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
    else:  # a user namespace's root: stays uid 0 there, but without any capability
        for c in range(64):
            libc.prctl(24, c, 0, 0, 0)  # PR_CAPBSET_DROP (EINVAL past the last capability)
        libc.prctl(47, 4, 0, 0, 0)  # PR_CAP_AMBIENT_CLEAR_ALL
        hdr, data = (ctypes.c_uint32 * 2)(0x20080522, 0), (ctypes.c_uint32 * 6)()
        if libc.capset(hdr, data) != 0:
            raise OSError(ctypes.get_errno(), "capset")
    if libc.prctl(38, 1, 0, 0, 0) != 0:  # PR_SET_NO_NEW_PRIVS: no setuid binary gives root back
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS)")
def reap_until(pid):
    # as PID 1: reap every orphan; return the exit status the way a shell does (128 + signal)
    while True:
        try:
            p, st = os.wait()
        except ChildProcessError:
            return 125
        if p == pid:
            code = os.waitstatus_to_exitcode(st)
            return 128 - code if code < 0 else code
"""

_NS_INIT = (
    _NS_SETUP
    + r"""
a = sys.argv
cfg = {"uid": int(a[1]), "tmp_mb": int(a[2]), "work": a[3], "hide": a[4].split("\n") if a[4] else [],
       "private": a[5].split("\n") if a[5] else [], "keep": a[6].split("\n") if a[6] else [], "argv": a[7:]}
try:
    setup_mounts(cfg)
except OSError as e:
    sys.stderr.write("[sandbox-init] %s\n" % e)
    os._exit(125)
pid = os.fork()
if pid == 0:
    try:
        drop_privileges(cfg["uid"])
        os.execv(cfg["argv"][0], cfg["argv"])
    except OSError as e:
        sys.stderr.write("[sandbox-init] %s\n" % e)
        os._exit(125)
os._exit(reap_until(pid))
"""
)

#: exit status of the namespace init when it could not set the sandbox up
_INIT_FAILED = 125

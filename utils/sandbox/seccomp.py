"""The seccomp filter of an execution, compiled by libseccomp (through ``pyseccomp``, its ctypes
binding) into the BPF program that bubblewrap loads with ``--seccomp FD``.

Default allow; the calls below fail with EPERM. They reach kernel state that namespaces do not
separate (keyrings), let one process read or steer another (ptrace and friends), change the
mount or namespace set-up, load code into the kernel, or make memory that neither a tmpfs size
nor RLIMIT_AS counts (memfd, SysV shared memory and message queues, socket buffers). A call of another
architecture's ABI (32-bit ``int 0x80``, x32) kills the process (libseccomp's default for a
foreign architecture), so the list cannot be bypassed through another ABI.
"""

from __future__ import annotations

import errno
from functools import lru_cache

DENIED = (
    # kernel keyrings: shared with the evaluator's session otherwise
    "keyctl", "add_key", "request_key",
    # reading or steering another process
    "ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd",
    # memory outside the tmpfs sizes and RLIMIT_AS; sockets too: a socket pair's buffers (up to
    # 2 x net.core.wmem_max each, 8 MB here) hold a GB per process in the kernel, and there is no
    # network to use them for
    "memfd_create", "memfd_secret", "shmget", "shmat", "msgget", "msgsnd", "socket", "socketpair",
    # counted per user across every namespace (fs.inotify.max_user_instances, RLIMIT_MSGQUEUE): an
    # execution took all 128 inotify instances of the evaluator's user (root: of the host's root)
    "inotify_init", "inotify_init1", "mq_open",
    # the mount and namespace set-up
    "mount", "umount2", "pivot_root", "chroot", "unshare", "setns", "move_mount", "open_tree", "fsopen",
    "fsmount", "fsconfig", "fspick", "mount_setattr",
    # kernel code, tracing, io_uring (its own syscall path), handles that bypass paths
    "bpf", "perf_event_open", "userfaultfd", "io_uring_setup", "io_uring_enter", "io_uring_register",
    "init_module", "finit_module", "delete_module", "kexec_load", "kexec_file_load",
    "open_by_handle_at", "name_to_handle_at", "fanotify_init",
    # host-wide settings
    "reboot", "swapon", "swapoff", "syslog", "acct", "quotactl", "settimeofday", "clock_settime", "adjtimex",
    "sethostname", "setdomainname", "vhangup", "personality",
)
# clone3 passes its flags in memory, which a filter cannot read: ENOSYS makes the C library
# fall back to clone, whose namespace flags are refused below
_ENOSYS = ("clone3",)
# CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET, NEWTIME
_CLONE_NS_FLAGS = (0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000, 0x00000080)


_CLONE_THREAD = 0x00010000


@lru_cache(maxsize=2)
def program(one_process: bool = False) -> bytes:
    """The compiled BPF program (raises ImportError/OSError where libseccomp is missing).
    ``one_process``: no new process (threads only; EAGAIN, as at a process limit), for a root
    evaluator without a cgroup: the kernel exempts uid 0 from RLIMIT_NPROC."""
    import os
    import tempfile

    import pyseccomp as sc

    f = sc.SyscallFilter(defaction=sc.ALLOW)
    for name in DENIED:
        try:
            f.add_rule(sc.ERRNO(errno.EPERM), name)
        except (ValueError, OSError):
            pass  # a call this kernel/libseccomp does not know: nothing to deny
    for name in _ENOSYS:
        try:
            f.add_rule(sc.ERRNO(errno.ENOSYS), name)
        except (ValueError, OSError):
            pass
    for flag in _CLONE_NS_FLAGS:  # clone asking for a new namespace
        f.add_rule(sc.ERRNO(errno.EPERM), "clone", sc.Arg(0, sc.MASKED_EQ, flag, flag))
    if one_process:
        for name in ("fork", "vfork"):
            f.add_rule(sc.ERRNO(errno.EAGAIN), name)
        f.add_rule(sc.ERRNO(errno.EAGAIN), "clone", sc.Arg(0, sc.MASKED_EQ, _CLONE_THREAD, 0))
    with tempfile.TemporaryFile() as tmp:
        f.export_bpf(tmp)
        tmp.flush()
        os.lseek(tmp.fileno(), 0, os.SEEK_SET)
        return tmp.read()

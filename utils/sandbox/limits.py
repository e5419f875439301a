"""What one execution may use and what it gives back: the statuses, :class:`Limits` and
:class:`ExecResult`."""

from __future__ import annotations

from dataclasses import dataclass, field

OK = "ok"
ERROR = "error"
TIMEOUT = "timeout"
MEMORY = "memory"
OUTPUT_LIMIT = "output_limit"
KILLED = "killed"
SANDBOX_ERROR = "sandbox_error"


@dataclass(frozen=True)
class Limits:
    """Per-execution limits. CPU time and file size are per process; memory is for the whole
    execution where a cgroup can be had (``capabilities()["memory"]``), else per process (the
    README states the bound that gives)."""

    wall_s: float = 30.0  # wall clock, whole execution
    cpu_s: float = 30.0  # RLIMIT_CPU of each process
    memory_mb: int = 2048  # RLIMIT_AS of each process, and the cgroup's limit for all of them
    file_size_mb: int = 64  # RLIMIT_FSIZE: largest file it may write
    max_processes: int = 8  # RLIMIT_NPROC (processes + threads); the cgroup's pids.max
    max_open_files: int = 256  # RLIMIT_NOFILE
    max_output_chars: int = 8000  # kept of stdout and of stderr each (head and tail)
    max_output_bytes: int = 8_000_000  # more than this on stdout or stderr: killed, output_limit
    max_returned_files: int = 16  # new files returned in ExecResult.files ...
    max_returned_mb: float = 16.0  # ... at most this much in total (larger ones are skipped)
    private_tmp_mb: int = 64  # size of /tmp (also HOME) and of /dev/shm, each a tmpfs
    max_scratch_mb: int = 256  # size of the scratch tmpfs on top of the inputs (full: output_limit)
    # files + folders in /work, /tmp and /dev/shm together (each ~1 KB of kernel memory that no
    # tmpfs size counts), counted every 50 ms; more: killed, output_limit
    max_files: int = 50_000


@dataclass(frozen=True)
class ExecResult:
    status: str  # ok | error | timeout | memory | output_limit | killed | sandbox_error
    exit_code: int | None  # the program's exit code; negative: killed by that signal; None: not started
    stdout: str  # at most max_output_chars (+ one line saying what was cut)
    stderr: str
    stdout_truncated: bool
    stderr_truncated: bool
    files: dict[str, bytes]  # files it wrote in the scratch folder that were not inputs (relative names)
    wall_s: float
    reason: str  # why, in words ("killed after 30 s wall clock", "MemoryError: ...")
    network_isolated: bool
    skipped_files: tuple[str, ...] = field(default=())  # new files not returned (too many / too large / unsafe name)
    sandbox: str = ""  # the provider that ran it: "bwrap", or "unconfined" (set explicitly by the user)

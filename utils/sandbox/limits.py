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
SCRATCH_FULL = "scratch_full"  # internal: why it was killed (reported as output_limit)

#: the watchdog kills an execution this long after its wall-clock limit (if the evaluator did not)
WATCHDOG_MARGIN_S = 3.0


@dataclass(frozen=True)
class Limits:
    """Per-execution limits. CPU, memory and file size are per process."""

    wall_s: float = 30.0  # wall clock, whole execution
    cpu_s: float = 30.0  # RLIMIT_CPU of each process
    memory_mb: int = 2048  # RLIMIT_AS of each process (warm: on top of what the warm interpreter maps)
    file_size_mb: int = 64  # RLIMIT_FSIZE: largest file it may write
    max_processes: int = 64  # RLIMIT_NPROC (processes + threads of the execution's uid)
    max_open_files: int = 256  # RLIMIT_NOFILE
    max_output_chars: int = 8000  # kept of stdout and of stderr each (head and tail)
    max_output_bytes: int = 8_000_000  # more than this on stdout or stderr: killed, output_limit
    max_returned_files: int = 16  # new files returned in ExecResult.files ...
    max_returned_mb: float = 16.0  # ... at most this much in total (larger ones are skipped)
    private_tmp_mb: int = 64  # size of each private tmpfs (/tmp, /dev/shm, ...) in a mount namespace
    max_scratch_mb: int = 256  # more than this in the scratch folder (checked every 0.5 s): killed, output_limit


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
    skipped_files: tuple[str, ...] = field(default=())  # new files not returned (too many / too large)

"""Capturing stdout/stderr as they come: the head and the tail within a cap, the rest counted."""

from __future__ import annotations

from collections import deque


class _Capped:
    """Keeps the head and the tail of a stream within ``keep`` characters; counts the rest."""

    def __init__(self, keep_chars: int):
        self.keep = max(0, keep_chars)
        self.head = bytearray()
        self.tail: deque[bytes] = deque()
        self.tail_len = 0
        self.total = 0
        # bytes, generously: up to 4 bytes per character in UTF-8
        self.head_cap = self.keep * 4 * 2 // 3
        self.tail_cap = self.keep * 4 - self.head_cap

    def add(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = self.head_cap - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if chunk and self.tail_cap > 0:
            self.tail.append(chunk)
            self.tail_len += len(chunk)
            while self.tail_len - len(self.tail[0]) >= self.tail_cap:
                self.tail_len -= len(self.tail.popleft())

    def text(self) -> tuple[str, bool]:
        tail = b"".join(self.tail)
        if len(self.head) + len(tail) == self.total:
            full = (bytes(self.head) + tail).decode("utf-8", errors="replace")
            if len(full) <= self.keep:
                return full, False
            head_s, tail_s = full, ""
        else:
            head_s = bytes(self.head).decode("utf-8", errors="replace")
            tail_s = tail[-self.tail_cap :].decode("utf-8", errors="replace") if tail else ""
        n_head = self.keep * 2 // 3
        n_tail = self.keep - n_head
        kept_head = head_s[:n_head]
        kept_tail = (head_s[n_head:] + tail_s)[-n_tail:] if n_tail else ""
        cut = (
            self.total
            - len(kept_head.encode("utf-8", errors="replace"))
            - len(kept_tail.encode("utf-8", errors="replace"))
        )
        note = f"\n[... output truncated: {max(cut, 0)} bytes of {self.total} not shown ...]\n"
        return kept_head + note + kept_tail, True

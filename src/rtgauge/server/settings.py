"""How a server was started: where it listens, whether reading is open, and
how large a bundle it takes."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from datetime import timedelta

from rtgauge.errors import UsageError

DEFAULT_LISTEN = "127.0.0.1:8080"
DEFAULT_MAX_MB = 64.0
DEFAULT_RETENTION = "400d"  # monitored intervals older than this are deleted


@dataclass(frozen=True)
class Settings:
    host: str
    port: int
    public: bool = False  # reading open to anyone on a non-loopback address
    max_bundle_bytes: int = int(DEFAULT_MAX_MB * 1024 * 1024)
    interval_retention: timedelta = timedelta(days=400)

    @property
    def loopback(self) -> bool:
        if self.host == "localhost":
            return True
        try:
            return ipaddress.ip_address(self.host).is_loopback
        except ValueError:
            return False

    @property
    def reading_open(self) -> bool:
        """Reading needs no token on a loopback address, or when --public says so."""
        return self.loopback or self.public


def parse_listen(text: str) -> tuple[str, int]:
    """HOST:PORT ([v6]:PORT for IPv6); the port 0 picks a free one."""
    host, sep, port = text.rpartition(":")
    host = host.strip("[]")
    if not sep or not host or not port.isdigit() or int(port) > 65535:
        raise UsageError(f"--listen {text!r}: give HOST:PORT, e.g. {DEFAULT_LISTEN}")
    return host, int(port)


def parse_max_mb(text: str) -> int:
    try:
        mb = float(text)
    except ValueError:
        mb = -1.0
    if not 0.01 <= mb <= 4096:
        raise UsageError(f"--max-bundle-mb {text!r}: a size in MiB from 0.01 to 4096")
    return int(mb * 1024 * 1024)

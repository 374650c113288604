"""Access tokens: a push token stores runs (and reads), a read token reads.

A token is 32 random bytes, shown once when made; the store keeps its
SHA-256 only. A slow password hash buys nothing for a random 256-bit
secret: it cannot be guessed, only stolen, and a stolen hash does not give
it back. There is no default token: a store has none until one is added.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Engine, select, update
from sqlalchemy.exc import IntegrityError

from rtgauge.errors import UsageError
from rtgauge.store.index_row import now_utc
from rtgauge.store.schema import tokens

ROLES = ("push", "read")
PREFIX = "rtg_"
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")


@dataclass(frozen=True)
class TokenInfo:
    name: str
    role: str
    created_at: datetime
    revoked_at: datetime | None
    last_used_at: datetime | None


def digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogateescape")).hexdigest()


def check_name(name: str) -> str:
    if not _NAME.fullmatch(name):
        raise UsageError(f"token name {name!r}: letters, digits, '.', '_' and '-', up to 100")
    return name


def add(engine: Engine, name: str, role: str) -> str:
    """Makes a token; returns it (the only time it is seen)."""
    check_name(name)
    if role not in ROLES:
        raise UsageError(f"--role {role!r}: push or read")
    token = PREFIX + secrets.token_urlsafe(32)
    try:
        with engine.begin() as conn:
            conn.execute(
                tokens.insert().values(
                    name=name, role=role, token_sha256=digest(token), created_at=now_utc()
                )
            )
    except IntegrityError:
        raise UsageError(
            f"a token named {name!r} exists (revoke it, or pick another name)"
        ) from None
    return token


def listed(engine: Engine) -> list[TokenInfo]:
    with engine.connect() as conn:
        rows = conn.execute(
            select(
                tokens.c.name,
                tokens.c.role,
                tokens.c.created_at,
                tokens.c.revoked_at,
                tokens.c.last_used_at,
            ).order_by(tokens.c.name)
        )
        return [TokenInfo(*r) for r in rows]


def revoke(engine: Engine, name: str) -> None:
    with engine.begin() as conn:
        done = conn.execute(
            update(tokens)
            .where(tokens.c.name == name, tokens.c.revoked_at.is_(None))
            .values(revoked_at=now_utc())
        )
    if done.rowcount == 0:
        raise UsageError(f"no active token named {name!r}")


def role_of(engine: Engine, token: str) -> tuple[str, str] | None:
    """(name, role) of a valid, unrevoked token; None otherwise."""
    if not token.startswith(PREFIX) or len(token) > 200:
        return None
    with engine.begin() as conn:
        row = conn.execute(
            select(tokens.c.id, tokens.c.name, tokens.c.role).where(
                tokens.c.token_sha256 == digest(token), tokens.c.revoked_at.is_(None)
            )
        ).first()
        if row is None:
            return None
        conn.execute(update(tokens).where(tokens.c.id == row.id).values(last_used_at=now_utc()))
    return str(row.name), str(row.role)

"""Who may do what: pushing always needs a push token (`Authorization:
Bearer`); reading is open on a loopback address or with --public, and needs
a read or push token otherwise (Bearer, or HTTP Basic with the token as the
password, which a browser asks for itself). No token exists until one is
added: there is no default."""

from __future__ import annotations

import base64
import binascii

from starlette.exceptions import HTTPException
from starlette.requests import HTTPConnection

from rtgauge.server.settings import Settings
from rtgauge.store import ResultStore

REALM = 'Basic realm="rtgauge results", charset="UTF-8"'


def _credentials(conn: HTTPConnection, basic: bool) -> str | None:
    header = conn.headers.get("authorization", "")
    scheme, _, value = header.partition(" ")
    if scheme.lower() == "bearer":
        return value.strip() or None
    if basic and scheme.lower() == "basic":
        try:
            decoded = base64.b64decode(value.strip(), validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError):
            return None
        return decoded.partition(":")[2] or None
    return None


def require_push(conn: HTTPConnection, store: ResultStore) -> str:
    """The name of the push token the request carries, or 401/403. Only a
    Bearer header counts: a browser never sends one by itself, so no page
    of another site can push with a user's credentials."""
    token = _credentials(conn, basic=False)
    if token is None:
        raise HTTPException(401, "pushing needs a push token: Authorization: Bearer <token>")
    found = store.token_role(token)
    if found is None:
        raise HTTPException(401, "the token is not valid (unknown or revoked)")
    name, role = found
    if role != "push":
        raise HTTPException(403, f"token {name!r} may read, not push")
    return name


def require_read(conn: HTTPConnection, store: ResultStore, settings: Settings) -> None:
    if settings.reading_open:
        return
    token = _credentials(conn, basic=True)
    if token is None or store.token_role(token) is None:
        raise HTTPException(
            401, "reading this server needs a token", headers={"WWW-Authenticate": REALM}
        )

"""A pushed bundle, trusted in nothing: its size bounded while it is read,
then UTF-8 JSON checked against the schema, then the names pages show
checked for what a host name or label may hold. Any fault is a 4xx with a
one-line reason, and nothing is stored."""

from __future__ import annotations

import re

from starlette.exceptions import HTTPException
from starlette.requests import Request

from rtgauge.errors import UsageError
from rtgauge.model import Bundle
from rtgauge.store.index_row import parse_bundle

# A host name may be a friendly name ("rpi4 lab 3"), never markup or a path.
_HOST = re.compile(r"[^\x00-\x1f\x7f<>&\"'`/\\]{1,255}")


def too_large(limit: int, size: int | None = None) -> HTTPException:
    """413, naming the limit (and the bundle's size, when it is known) in MiB."""
    what = f"the bundle ({_mib(size)})" if size is not None else "the bundle"
    return HTTPException(413, f"{what} is larger than the server's limit of {_mib(limit)}")


def _mib(size: int) -> str:
    return f"{size / 2**20:.2f}".rstrip("0").rstrip(".") + " MiB"


async def read_body(request: Request, limit: int) -> bytes:
    """The request's body, at most `limit` bytes: a larger one is refused as
    soon as it says so (Content-Length) or grows past the limit. Refused on
    its Content-Length, the body is never read: the connection is closed
    after the answer, which the client reads although its send is cut."""
    declared = request.headers.get("content-length")
    if declared is not None:
        if not declared.isdigit():
            raise HTTPException(400, "Content-Length is not a number")
        if int(declared) > limit:
            raise too_large(limit, int(declared))
    parts: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise too_large(limit)
        parts.append(chunk)
    if size == 0:
        raise HTTPException(400, "no bundle: the request body is empty")
    return b"".join(parts)


def check_names(bundle: Bundle) -> None:
    check_host(bundle.host)
    check_label(bundle.run_label)


def check_host(host: str) -> None:
    if not _HOST.fullmatch(host) or host.strip(". ") == "":
        raise UsageError(f"host name {host[:60]!r} is not a host name (no markup, no path)")


def check_label(label: str | None) -> None:
    if label is not None and (not label or len(label) > 100 or not label.isprintable()):
        raise UsageError("label: 1 to 100 printable characters")


def checked_bundle(raw: bytes) -> Bundle:
    """The bundle in the bytes, or a 422 / 400 saying what is wrong."""
    try:
        bundle = parse_bundle(raw, "bundle")
        check_names(bundle)
    except UsageError as exc:
        text = str(exc)
        code = 400 if "not JSON" in text or "not UTF-8" in text else 422
        raise HTTPException(code, text) from None
    return bundle

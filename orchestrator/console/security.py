"""The console's guard, in front of every route (an ASGI middleware, so SSE streams pass through):

- the Host header must name the address the console is bound to (a DNS-rebinding page in a
  browser reaches 127.0.0.1 under its own host name, and is refused);
- every request other than GET / HEAD must carry an Origin equal to the console's own;
- bound to another host than loopback, every request needs the per-launch token: the printed URL
  carries it as `?token=`, which sets an HttpOnly cookie and redirects to the URL without it;
- every response carries a strict Content-Security-Policy (no inline script, nothing from another
  origin), `nosniff`, no referrer and no framing.

Actions need the token in the `X-Console-Token` header as well, whatever the host (a cookie alone
never acts): their routes check it (`request_has_token`).
"""

from __future__ import annotations

import hmac
import ipaddress
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import parse_qsl, urlencode

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; "
    "form-action 'self'"
)
SECURITY_HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
]
TOKEN_HEADER = "x-console-token"
TOKEN_COOKIE = "rlvr_console"
SAFE_METHODS = {"GET", "HEAD"}
Scope = MutableMapping[str, Any]
ASGIApp = Callable[[Scope, Callable, Callable], Awaitable[None]]


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


@dataclass
class Binding:
    """Where the console listens (the port is known once the server has bound it) and its token."""

    host: str
    port: int
    token: str

    @property
    def needs_token_to_read(self) -> bool:
        return not is_loopback(self.host)

    def hosts(self) -> set[str]:
        """The Host header values that name this console."""
        names = {self.host}
        if is_loopback(self.host):
            names |= {"127.0.0.1", "localhost", "[::1]"}
        if ":" in self.host and not self.host.startswith("["):
            names.add(f"[{self.host}]")
        return {f"{name}:{self.port}" for name in names}

    def origins(self) -> set[str]:
        return {f"http://{host}" for host in self.hosts()}

    def url(self, path: str = "/") -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}{path}?{urlencode({'token': self.token})}"


def _headers(scope: Scope) -> dict[str, str]:
    return {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}


def token_matches(given: str | None, token: str) -> bool:
    return bool(given) and hmac.compare_digest(given.encode(), token.encode())


def request_has_token(headers: dict[str, str] | Any, token: str) -> bool:
    """Whether a request carries the per-launch token in its header (what every action needs)."""
    return token_matches(headers.get(TOKEN_HEADER), token)


def _cookie_token(headers: dict[str, str]) -> str | None:
    jar = SimpleCookie()
    try:
        jar.load(headers.get("cookie", ""))
    except Exception:  # a malformed cookie header is no token
        return None
    morsel = jar.get(TOKEN_COOKIE)
    return morsel.value if morsel is not None else None


class ConsoleGuard:
    """The middleware; `binding.port` is read per request (set once uvicorn has bound)."""

    def __init__(self, app: ASGIApp, binding: Binding) -> None:
        self.app, self.binding = app, binding

    async def __call__(self, scope: Scope, receive: Callable, send: Callable) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = _headers(scope)
        query = dict(parse_qsl(scope.get("query_string", b"").decode("latin-1")))
        problem = self._refusal(scope, headers, query)
        if problem is not None:
            await _plain(send, problem[0], problem[1])
            return
        token = self.binding.token
        if token_matches(query.get("token"), token) and scope["method"] in SAFE_METHODS:
            await _redirect_with_cookie(send, scope, query, token)
            return
        scope.setdefault("state", {})["token_ok"] = token_matches(
            headers.get(TOKEN_HEADER), token
        ) or token_matches(_cookie_token(headers), token)

        async def send_secured(message: MutableMapping[str, Any]) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *SECURITY_HEADERS]
            await send(message)

        await self.app(scope, receive, send_secured)

    def _refusal(
        self, scope: Scope, headers: dict[str, str], query: dict[str, str]
    ) -> tuple[int, str] | None:
        if headers.get("host", "") not in self.binding.hosts():
            return 421, "refused: the Host header does not name this console (DNS rebinding?)"
        if scope["method"] not in SAFE_METHODS and headers.get("origin") not in (
            self.binding.origins()
        ):
            return 403, "refused: a request that changes something must come from this console"
        if self.binding.needs_token_to_read:
            token = self.binding.token
            given = [headers.get(TOKEN_HEADER), _cookie_token(headers), query.get("token")]
            if not any(token_matches(g, token) for g in given):
                return 401, "refused: this console needs its token (open the URL it printed)"
        return None


async def _plain(send: Callable, status: int, text: str) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"text/plain; charset=utf-8"), *SECURITY_HEADERS],
        }
    )
    await send({"type": "http.response.body", "body": text.encode()})


async def _redirect_with_cookie(
    send: Callable, scope: Scope, query: dict[str, str], token: str
) -> None:
    """The printed URL's token becomes an HttpOnly same-site cookie; the token leaves the URL."""
    rest = {k: v for k, v in query.items() if k != "token"}
    location = scope["path"] + (f"?{urlencode(rest)}" if rest else "")
    cookie = f"{TOKEN_COOKIE}={token}; Path=/; HttpOnly; SameSite=Strict"
    await send(
        {
            "type": "http.response.start",
            "status": 303,
            "headers": [
                (b"location", location.encode()),
                (b"set-cookie", cookie.encode()),
                (b"cache-control", b"no-store"),
                *SECURITY_HEADERS,
            ],
        }
    )
    await send({"type": "http.response.body", "body": b""})

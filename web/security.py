"""Request checks: who may change the game, and from where.

* Local by default: requests must name a local host (``Host:`` header), which
  also defeats DNS-rebinding pages that try to reach 127.0.0.1.
* Every control action (any POST) carries the page's CSRF token in the
  ``X-CSRF-Token`` header (or a ``csrf_token`` form field) and, if the
  browser sends one, an ``Origin`` equal to our own; a page on another site
  can neither read the token nor forge the header.
* Served on the network, every control action also needs the access token
  (``X-Pitwatch-Token`` header, ``token`` form field); viewing does not.
* A request for no route, or with a method its route does not take, is
  answered 404 or 405 before any of the control checks: only a real control
  action is asked for its tokens.
* A control's body is at most the app's ``MAX_CONTENT_LENGTH``, whether sent
  with a length or chunked (a chunked body is cut there, never read whole).
"""

from __future__ import annotations

import hmac
import secrets
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from flask import Flask, abort, request

from pitwatch.config import LOCAL_HOSTS


@dataclass
class Guard:
    allow_network: bool = False
    token: str = ""
    csrf: str = field(default_factory=lambda: secrets.token_urlsafe(24))

    def install(self, app: Flask) -> None:
        app.before_request(self.check)

    def check(self) -> None:
        host = _host_of(request.host)
        if not self.allow_network and host not in LOCAL_HOSTS:
            abort(403, description=f"this dashboard only answers on 127.0.0.1, not {request.headers.get('Host', '')[:200]!r} "
                                   "(start it with --allow-network to serve the network)")
        if request.routing_exception is not None:  # no such route (404), or not with this method (405)
            raise request.routing_exception
        if request.method in ("GET", "HEAD", "OPTIONS"):
            return
        origin = request.headers.get("Origin")
        if origin and origin != "null" and _netloc_of(origin) != request.host:
            abort(403, description=f"control actions are only accepted from this dashboard, not from {origin[:200]}")
        sent = request.headers.get("X-CSRF-Token") or request.form.get("csrf_token", "")
        if not hmac.compare_digest(sent.encode(), self.csrf.encode()):
            abort(403, description="missing or wrong CSRF token: reload the dashboard and try again")
        if self.allow_network:
            given = request.headers.get("X-Pitwatch-Token") or request.form.get("token", "")
            if not self.token or not hmac.compare_digest(given.encode(), self.token.encode()):
                abort(401, description="this dashboard is served on the network: control actions need the "
                                       "access token (open the URL printed at start, which carries it)")
        self.refuse_a_chunked_body_too_large()

    @staticmethod
    def refuse_a_chunked_body_too_large() -> None:
        """A body sent with a length over the limit is refused by Flask (413); a chunked one is read
        only up to the limit, and what was read would be judged as if it were the whole body."""
        limit = request.max_content_length
        if request.content_length is None and limit is not None and len(request.get_data(cache=True)) >= limit:
            abort(413, description=f"the request body is larger than {limit // 1024} KiB")


def _host_of(host: str) -> str:
    """The host name of a request's ``Host``; empty when it is none (``[::1``, a port of 99999)."""
    try:
        return urlsplit(f"//{host}").hostname or ""
    except ValueError:
        return ""


def _netloc_of(origin: str) -> str | None:
    """The host and port an ``Origin`` header names; None when it names none (``http://[::1``)."""
    try:
        return urlsplit(origin).netloc
    except ValueError:
        return None

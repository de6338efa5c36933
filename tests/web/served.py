"""A dashboard app served over real HTTP in this process, for a browser or a raw socket to reach."""

from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import Iterator

from flask import Flask
from werkzeug.serving import make_server


@contextmanager
def serving(app: Flask) -> Iterator[str]:
    """Serve ``app`` on a free local port while the block runs; yields its URL (ending in /)."""
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.port}/"
    finally:
        server.shutdown()
        thread.join(timeout=10)

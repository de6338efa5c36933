"""A dashboard app served over real HTTP in this process, for a browser or a raw socket to reach."""

from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import Iterator

from flask import Flask
from werkzeug.serving import make_server


class Served:
    """``app`` served over real HTTP in this process until :meth:`stop`; then nothing listens on its
    port any more, as when Pitwatch was stopped, and a browser's requests fail."""

    def __init__(self, app: Flask) -> None:
        self._server = make_server("127.0.0.1", 0, app, threaded=True)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        self.url = f"http://127.0.0.1:{self._server.port}/"
        self._stopped = False

    def stop(self) -> None:
        if not self._stopped:
            self._stopped = True
            self._server.shutdown()
            self._server.server_close()
            self._thread.join(timeout=10)


@contextmanager
def serving(app: Flask) -> Iterator[str]:
    """Serve ``app`` on a free local port while the block runs; yields its URL (ending in /)."""
    served = Served(app)
    try:
        yield served.url
    finally:
        served.stop()

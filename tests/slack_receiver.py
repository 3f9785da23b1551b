"""A local HTTP receiver standing in for a Slack incoming webhook (records each JSON body)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class SlackReceiver:
    def __init__(self) -> None:
        self.messages: list[str] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                receiver.messages.append(body["text"])
                self.send_response(200)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        # a path shaped like a real webhook, so a leak of it would be recognisable
        self.url = (
            f"http://127.0.0.1:{self._server.server_address[1]}/services/T000/B000/s3cr3tT0k3n"
        )

    def __enter__(self) -> SlackReceiver:
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()

#!/usr/bin/env python3
"""A local webhook receiver for lf serve alerts: prints each alert and whether
its signature verifies.

    LF_WEBHOOK_SECRET=... python3 examples/server/receiver.py   # listens on 127.0.0.1:9099

The signature is X-LF-Signature: sha256=hex(HMAC-SHA256(secret, timestamp + "." + body))
with timestamp the X-LF-Timestamp header (Unix seconds).
"""
import hashlib
import hmac
import http.server
import json
import os
import time

SECRET = os.environ.get("LF_WEBHOOK_SECRET", "").encode()
MAX_AGE = 300  # seconds


class Receiver(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        ts = self.headers.get("X-LF-Timestamp", "")
        expected = "sha256=" + hmac.new(SECRET, ts.encode() + b"." + body, hashlib.sha256).hexdigest()
        valid = hmac.compare_digest(expected, self.headers.get("X-LF-Signature", ""))
        fresh = ts.isdigit() and abs(time.time() - int(ts)) <= MAX_AGE
        alert = json.loads(body or b"{}")
        print(
            "signature %s%s: %s agent %s (%s) %s -> %s, score %s -> %s"
            % (
                "valid" if valid else "INVALID",
                "" if fresh else " (stale timestamp)",
                alert.get("tenantId"), alert.get("agentId"), alert.get("agentName"),
                alert.get("oldTier") or "-", alert.get("newTier"),
                alert.get("oldScore"), alert.get("newScore"),
            ),
            flush=True,
        )
        self.send_response(204 if valid and fresh else 401)
        self.end_headers()

    def log_message(self, *args):
        pass


if __name__ == "__main__":
    http.server.HTTPServer(("127.0.0.1", 9099), Receiver).serve_forever()

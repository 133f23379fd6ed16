#!/usr/bin/env python3
"""A forwarding HTTP proxy that logs each request's path, start and end time (one JSON line
each), so the benchmark can count the cluster calls behind one snapshot and see whether they
overlap (run concurrently). Usage: counting_proxy.py PORT TARGET_URL LOG_FILE"""

import http.client
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

PORT, TARGET, LOG = int(sys.argv[1]), urlsplit(sys.argv[2]), sys.argv[3]
lock = threading.Lock()


class Forward(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def handle_any(self):
        started = time.monotonic()
        length = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(length) if length else None
        upstream = http.client.HTTPConnection(TARGET.hostname, TARGET.port, timeout=30)
        headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "connection")}
        upstream.request(self.command, self.path, body=body, headers=headers)
        answer = upstream.getresponse()
        data = answer.read()
        self.send_response(answer.status)
        for name, value in answer.getheaders():
            if name.lower() not in ("transfer-encoding", "connection", "content-length"):
                self.send_header(name, value)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)
        upstream.close()
        with lock, open(LOG, "a") as log:
            log.write(json.dumps({"path": self.path, "start": started, "end": time.monotonic()}) + "\n")

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = handle_any


ThreadingHTTPServer(("127.0.0.1", PORT), Forward).serve_forever()

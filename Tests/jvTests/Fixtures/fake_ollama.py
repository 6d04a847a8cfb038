#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# A stand-in for an Ollama server, for the tests of examples/ollama-*.sh (OllamaExampleTests):
#   fake_ollama.py PORT_FILE REQUESTS_FILE REPLY_FILE [SECONDS]
# listens on 127.0.0.1 on a free port (written to PORT_FILE once it listens), answers
# POST /api/generate and /api/chat with REPLY_FILE's text as the model's answer (500 with an
# Ollama-style error when the file is missing), appends each request body as one line to
# REQUESTS_FILE, and exits by itself after SECONDS (default 60) whatever happens.
import json
import os
import sys
import time
from http.server import BaseHTTPRequestHandler, HTTPServer

port_file, requests_file, reply_file = sys.argv[1:4]
deadline = time.monotonic() + float(sys.argv[4] if len(sys.argv) > 4 else 60)


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        with open(requests_file, "ab") as log:
            log.write(json.dumps({"path": self.path, "body": json.loads(body)}).encode() + b"\n")
        request = json.loads(body)
        if self.path not in ("/api/generate", "/api/chat"):
            return self.answer(404, {"error": "not found"})
        if request.get("stream") is not False:
            return self.answer(400, {"error": "this fake answers only \"stream\": false"})
        try:
            with open(reply_file, encoding="utf-8") as reply:
                text = reply.read()
        except FileNotFoundError:
            return self.answer(500, {"error": "model '%s' not found" % request.get("model")})
        answer = {"model": request.get("model"), "created_at": "2026-12-01T09:00:00Z", "done": True}
        if self.path == "/api/chat":
            answer["message"] = {"role": "assistant", "content": text}
        else:
            answer["response"] = text
        self.answer(200, answer)

    def answer(self, status, value):
        data = json.dumps(value).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *arguments):  # quiet: the test reads REQUESTS_FILE
        pass


server = HTTPServer(("127.0.0.1", 0), Handler)
server.timeout = 0.2
with open(port_file + ".partial", "w") as file:
    file.write(str(server.server_address[1]))
os.rename(port_file + ".partial", port_file)
while time.monotonic() < deadline:
    server.handle_request()

#!/usr/bin/env python3
"""A small JSON API for the newman captures: `server.py PORT` serves /todos and /users with
the mistakes the collections' tests find (a missing item, unsorted tags, a wrong status)."""
import json
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer

TODOS = [{"id": 1, "title": "write", "tags": ["work", "home"]}, {"id": 2, "title": "read", "tags": []}]
USERS = [{"id": 7, "name": "Ana", "email": "ana@example.com"}, {"id": 8, "name": "bo", "email": None}]


class Api(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def reply(self, status, body, kind="application/json"):
        data = json.dumps(body).encode() if kind == "application/json" else body.encode()
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        if self.path == "/todos":
            return self.reply(200, TODOS)
        if self.path == "/todos/1":
            return self.reply(200, TODOS[0])
        if self.path == "/users":
            return self.reply(200, USERS)
        if self.path == "/users/8":
            return self.reply(200, USERS[1])
        if self.path == "/health":
            return self.reply(200, "ok", "text/plain")
        return self.reply(404, {"error": "not found"})

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        self.rfile.read(length)
        return self.reply(200, {"id": 3})

    def do_DELETE(self):
        return self.reply(500, {"error": "delete not implemented"})


HTTPServer(("127.0.0.1", int(sys.argv[1])), Api).serve_forever()

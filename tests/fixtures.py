"""What the end-to-end tests share: the evaluation fixtures they measure on
($KIP_SHARED, else ../shared beside the checkout; a missing fixture is a
counted skip — exit 77: ctest reports it skipped, scripts/test lists it —
never a pass), the tally of their named checks (Checks), and a stub
OpenAI-compatible chat-completions server on 127.0.0.1 (ChatStub), a free
port and an nginx started on one (free_port, start_nginx)."""
import http.server
import json
import os
import socket
import subprocess
import sys
import threading
import time

CHECKOUT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def shared_dir(sub):
    d = os.path.join(os.environ.get("KIP_SHARED") or os.path.join(CHECKOUT, "..", "shared"), sub)
    if not os.path.isdir(d):
        print(f"SKIPPED: the fixture {d} is missing (set KIP_SHARED, or put ../shared beside the checkout)")
        sys.exit(77)
    return d


def free_port():
    """a port of 127.0.0.1 the kernel reports free now"""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def start_nginx(prefix):
    """nginx started on a prefix scripts/nginx/render prepared: the port it
    listens on (scripts/nginx/start moves it when the rendered one is taken)"""
    r = subprocess.run([os.path.join(CHECKOUT, "scripts", "nginx", "start"), prefix],
                       capture_output=True, text=True, check=True)
    return int(r.stdout.strip())


class Checks:
    """Named checks a test counts: check(name, cond, detail) records a pass,
    or a failure with its detail cut at `detail_chars`; finish() prints the
    failures and the tally (after `label`) and exits 1 when a check failed,
    or — with require_some — when none passed."""

    def __init__(self, detail_chars=800, label=""):
        self.detail_chars, self.label = detail_chars, label
        self.failures, self.passes = [], 0

    def check(self, name, cond, detail=""):
        if cond:
            self.passes += 1
        else:
            self.failures.append(f"FAIL {name}: {str(detail)[:self.detail_chars]}")

    def finish(self, require_some=False):
        for f in self.failures:
            print(f)
        print(f"{self.label}{self.passes} passed, {len(self.failures)} failed")
        sys.exit(1 if self.failures or (require_some and self.passes == 0) else 0)


class ChatStub(http.server.BaseHTTPRequestHandler):
    """A /v1/chat/completions stub: a subclass says what a completion holds
    (content(body, mode): the message's content text) for its own modes;
    the modes every stub shares are "slow" (answers after 2 s), "http500"
    and "garbage" (a body that is not JSON). The class records the calls,
    the last request body and its Authorization header. serve() starts it."""
    mode = None
    calls = 0
    last = None
    auth = None

    def log_message(self, *a):
        pass

    def content(self, body, mode):
        raise NotImplementedError

    def do_POST(self):
        cls = type(self)
        if self.path != "/v1/chat/completions":
            self.send_error(404)
            return
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        cls.calls += 1
        cls.last = body
        cls.auth = self.headers.get("Authorization")
        mode = cls.mode
        if mode == "slow":
            time.sleep(2)
        if mode == "http500":
            self.send_error(500)
            return
        if mode == "garbage":
            out = b"<html>not json</html>"
        else:
            out = json.dumps({"id": "c1", "object": "chat.completion", "model": body["model"],
                              "choices": [{"index": 0, "finish_reason": "stop",
                                           "message": {"role": "assistant",
                                                       "content": self.content(body, mode)}}]}).encode()
        try:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client timed out

    @classmethod
    def serve(cls):
        """start the stub on a free port of 127.0.0.1: (server, its completions URL)"""
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), cls)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        return server, f"http://127.0.0.1:{server.server_address[1]}/v1/chat/completions"

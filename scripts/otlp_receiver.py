#!/usr/bin/env python3
"""A small OTLP/HTTP receiver for tests (stdlib only): JSON bodies only, kept as JSON lines.

    otlp_receiver.py --port PORT --out DIR

Serves POST /v1/traces and POST /v1/metrics on 127.0.0.1:PORT (PORT 0: any free port).
Each accepted body (gunzipped when `Content-Encoding: gzip`) is appended as one JSON line
to DIR/traces.jsonl or DIR/metrics.jsonl, and the answer is 200 `{}`. A request it turns
away gets 400 (not a JSON object), 413 (over 16 MiB, compressed or not), 415 (not
`application/json`: protobuf is not decoded), 411 (no length) or 404 (any other path or
method), and one line in DIR/rejected.jsonl (status, path, reason), which
scripts/otel_check.py counts as a failure. DIR/ready is written, holding the port, once
the socket listens. It logs nothing per request; SIGTERM or SIGINT stops it.

Used by scripts/otel-e2e.sh; the benchmark (scripts/bench-otel.sh) uses nginx instead.
"""
import argparse, gzip, json, os, signal, threading, zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MAX_BODY = 16 * 1024 * 1024
FILES = {"/v1/traces": "traces.jsonl", "/v1/metrics": "metrics.jsonl"}


class Rejected(Exception):
    def __init__(self, status, reason):
        super().__init__(reason)
        self.status, self.reason = status, reason


def gunzip(raw):
    """Decompress a gzip body, refusing one that grows past MAX_BODY."""
    inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        out = inflater.decompress(raw, MAX_BODY + 1)
    except zlib.error as e:
        raise Rejected(400, f"bad gzip body: {e}")
    if len(out) > MAX_BODY or inflater.unconsumed_tail:
        raise Rejected(413, "body over 16 MiB once decompressed")
    if not inflater.eof:
        raise Rejected(400, "truncated gzip body")
    return out


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as exporters expect
    server_version = "otlp-receiver"

    def log_message(self, format, *args):  # quiet: no line per request
        pass

    def reply(self, status, body=b"{}"):
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def read_body(self):
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            chunks, total = [], 0
            while True:
                size_line = self.rfile.readline(1024)
                try:
                    size = int(size_line.split(b";")[0].strip(), 16)
                except ValueError:
                    raise Rejected(400, "bad chunk size")
                if size == 0:
                    while self.rfile.readline(1024).strip():  # trailers
                        pass
                    return b"".join(chunks)
                total += size
                if total > MAX_BODY:
                    self.close_connection = True
                    raise Rejected(413, "body over 16 MiB")
                chunks.append(self.rfile.read(size))
                self.rfile.readline(8)  # CRLF after the chunk
        length = self.headers.get("Content-Length")
        if length is None:
            raise Rejected(411, "no Content-Length")
        try:
            length = int(length)
        except ValueError:
            raise Rejected(400, "bad Content-Length")
        if length < 0:
            raise Rejected(400, "bad Content-Length")
        if length > MAX_BODY:
            self.close_connection = True  # the body is not read
            raise Rejected(413, "body over 16 MiB")
        return self.rfile.read(length)

    def do_POST(self):
        path = self.path.split("?", 1)[0]
        try:
            name = FILES.get(path)
            if name is None:
                self.close_connection = True
                raise Rejected(404, "unknown path")
            raw = self.read_body()
            content_type = self.headers.get("Content-Type", "").split(";")[0].strip().lower()
            if content_type != "application/json":
                raise Rejected(415, f"content type {content_type or 'missing'}: JSON only")
            encoding = self.headers.get("Content-Encoding", "identity").strip().lower()
            if encoding == "gzip":
                raw = gunzip(raw)
            elif encoding not in ("", "identity"):
                raise Rejected(415, f"content encoding {encoding}")
            try:
                body = json.loads(raw)
            except (ValueError, UnicodeDecodeError) as e:
                raise Rejected(400, f"bad JSON: {e}")
            if not isinstance(body, dict):
                raise Rejected(400, "the body is not a JSON object")
            self.server.append(name, body)
            self.reply(200)
        except Rejected as e:
            self.server.append("rejected.jsonl", {"status": e.status, "path": path, "reason": e.reason})
            self.reply(e.status, json.dumps({"error": e.reason}).encode())

    def not_found(self):
        self.close_connection = True
        path = self.path.split("?", 1)[0]
        self.server.append("rejected.jsonl", {"status": 404, "path": path, "reason": f"method {self.command}"})
        self.reply(404, b'{"error":"not found"}')

    do_GET = do_PUT = do_DELETE = do_PATCH = not_found


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address, out):
        super().__init__(address, Handler)
        self.out = out
        self.lock = threading.Lock()

    def append(self, name, value):
        line = json.dumps(value, separators=(",", ":")) + "\n"
        with self.lock, open(os.path.join(self.out, name), "a") as f:
            f.write(line)


def main():
    parser = argparse.ArgumentParser(description="OTLP/HTTP JSON receiver writing JSON lines.")
    parser.add_argument("--port", type=int, required=True, help="port on 127.0.0.1 (0: any)")
    parser.add_argument("--out", required=True, help="directory for traces.jsonl, metrics.jsonl, ready")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    server = Server(("127.0.0.1", args.port), args.out)

    def stop(signum, frame):
        threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    port = server.server_address[1]
    ready = os.path.join(args.out, "ready")
    with open(ready + ".tmp", "w") as f:
        f.write(f"{port}\n")
    os.replace(ready + ".tmp", ready)
    try:
        server.serve_forever(poll_interval=0.1)
    finally:
        server.server_close()


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""A small HTTP/1.1 server that misbehaves on purpose, for Kilo's fault tests.

Run it with:

    python3 Service/fault_server.py --port 8081 [--tls-port 8443] [--trusted-tls-port 8444 --ca-file F]

It binds to 127.0.0.1 only and uses the Python standard library alone. It writes raw bytes to
the socket, so it can fail in exact ways that a framework would not allow. Every response but
/stale-keep-alive's carries `Connection: close`, so a client never reuses a connection that the
server is about to break (libcurl silently retries a request whose reused connection died, which
would hide the fault and spoil the counts); /stale-keep-alive tests exactly that retry.

Every request whose query has `key=K` is counted under K (except `/count` itself), so a test
can check how many requests, retries included, reached the server.

    GET  /ok                              200, {"ok": true}
    GET  /latin1-header                   200, {"ok": true}, with `X-Name: café` in ISO-8859-1 (one
                                          byte outside ASCII, which Linux's URLSession refuses)
    GET  /health                          200, text/plain "ok"
    GET  /count?key=K                     200, {"key": K, "count": n, "authorized": a}: requests
                                          counted under K so far, a of them with `Authorization`
    *    /redirect-to?url=U[&code=C][&delay=S]
                                          C (302 by default) with `Location: U`, after S seconds
                                          (none by default)
    *    /drop[?mark=M]                   status line and headers with Content-Length 1000, then 10
                                          bytes of body (or M, if given), then the connection is
                                          closed
    *    /reset                           reads the request, then resets the connection (TCP RST)
                                          without any response
    *    /hang                            reads the request and never answers, until the client
                                          goes away
    *    /echo                            200, application/octet-stream: the request body, byte for byte,
                                          with the request's method in `X-Method`
    *    /raw[/anything][?query]          200, {"head": h, "body": b}: the request's head as it came
                                          (request line and header lines, CR LF between them, read as
                                          ISO-8859-1; without the empty line that ends it) and its body,
                                          base64 (de-chunked if it was sent chunked), for a test that
                                          compares two clients' requests byte for byte
    GET  /malformed-json                  200, application/json, the truncated body {"a": [1, 2
    *    /flaky?key=K&failures=N&retry-after=S
                                          while K has been counted at most N times: 503 with
                                          `Retry-After: S` (if given) and a text body; then 200
                                          with {"attempts": n}
    *    /flaky-drop?key=K&failures=N[&how=close|reset|partial]
                                          while K has been counted at most N times: the connection
                                          is closed (FIN, the default) or reset (RST) without a
                                          response, or closed after the headers and part of the
                                          body as /drop does; then 200 with {"attempts": n}
    *    /flaky-early?key=K&failures=N[&how=close|reset]
                                          while K has been counted at most N times: the connection
                                          is closed (FIN, the default) or reset (RST) as soon as the
                                          request's headers arrive, before its body is read, as a
                                          server that refuses an upload may; then 200 with
                                          {"attempts": n, "received": b}, b the size of the body
    *    /basic-auth/U/P                  401 with `WWW-Authenticate: Basic realm="Fake Realm"`
                                          unless the request has Basic credentials U:P, as
                                          httpbin's (which takes only GET); then 200 with
                                          {"authenticated": true, "user": U, "received": b}, b the
                                          size of the request body
    *    /auth?token=T[&key=K]            401 with `WWW-Authenticate: Bearer` unless the request
                                          has `Authorization: Bearer T`; then 200 with
                                          {"authorized": true, "attempts": n}
    GET  /malformed?how=H                 a response no HTTP client may accept, by H: `chunked` (a
                                          chunk size that is not hexadecimal), `status` (status code
                                          1000), `not-http` (a line that is not a status line), `trailer`
                                          (a trailer line without a colon after a chunked body), `length`
                                          (`Content-Length: abc`), `huge-length` (a length past 64
                                          bits, then a short body), `huge-length-challenge` (the same
                                          in a 401 with a challenge), `colon` (a header line without a
                                          colon), `headers` (320 KB of header fields), `gzip` (a body
                                          labelled gzip that is not), `gzip-truncated` (a gzip body
                                          without its last 8 bytes, framed by its Content-Length),
                                          `unknown-encoding` (`Content-Encoding: x-bogus`, a plain body),
                                          `gzip-twice` (`gzip, gzip`, compressed twice),
                                          `identity-gzip` (`identity, gzip`, compressed once),
                                          `x-gzip` (`x-gzip`, gzip's old name, compressed once),
                                          `gzip-garbage` (a gzip body, then `garbage`),
                                          `gzip-members` (two gzip members, which together make the body)
    *    /encoded-empty?status=S&encoding=E[&length=L]
                                          S (200 by default) with `Content-Encoding: E` (gzip by
                                          default) and no body, as a HEAD, 204 or 304 response may
                                          be; with `Content-Length: L` when given (give 0 with 200,
                                          or any length for a HEAD)
    *    /redirect-loop?code=C                C (302 by default) with a `Location` that leads back here,
                                          for ever
    *    /redirect-endless?code=C[&to=U][&rate=drip|flood][&key=K]
                                          C (302 by default), with `Location: U` when given (none
                                          otherwise), then a chunked text/plain body that never ends:
                                          `flood` (the default) writes 64 KiB chunks as fast as the
                                          socket takes them, `drip` 16 bytes every 100 ms; either stops
                                          when the client goes away, stops reading for 10 s, or after
                                          60 s (then the body ends with its last chunk); recorded
                                          under K as /transfer tells (its size is -1)
    GET  /gzip-records?n=N                200, application/json with `Content-Encoding: gzip`: a list
                                          of N records (1,000 by default) that differ only in their
                                          id: it compresses about 50 times
    GET  /huge?mb=M                       200 with Content-Length M MiB of zeros, streamed; stops
                                          when the client disconnects
    *    /stall?kb=N                      200 with Content-Length N KiB + 1 byte, then N KiB of
                                          zeros, then nothing more until the client goes away
    *    /stale-keep-alive[?reset-after=S]
                                          200, {"received": b, "attempts": n} where b is the size of
                                          the request body, on a connection kept alive (the one
                                          exception to `Connection: close`); when the client sends
                                          its next request on that connection, the server resets it
                                          (TCP RST) without reading the request (after S seconds, if
                                          given), as a server does when its keep-alive timeout runs
                                          out just as the client reuses the connection (gunicorn's
                                          gthread worker does)

    GET  /cookies/set?count=N&size=S[&prefix=P][&attributes=A][&location=U&code=C]
                                          200 (or C with `Location: U`, a redirect, when U is given)
                                          with N `Set-Cookie` fields (1 by default), each
                                          `P<i>=<S bytes>; Path=/` (P is `c`, S 16 by default) followed
                                          by A (such as `; Domain=com` or `; Secure`), and
                                          {"set": N}; for a cookie flood, as CVE-2022-32205's
    *    /cookies/echo                    200, {"fields": f, "bytes": b, "names": [n...], "received": r}:
                                          how many `Cookie` fields the request had, their total length,
                                          the names of the cookies in them, in order, and the size of
                                          the request body. Request heads of up to 4 MiB are read for
                                          /cookies/ paths (64 KiB elsewhere)

    GET  /bomb?encoding=E&mb=M[&hold-after=H][&type=T][&key=K]
                                          200 with `Content-Encoding: E` (gzip by default; also br and
                                          zstd), `Content-Type: T` (application/octet-stream by
                                          default; text/event-stream makes an event stream in a coding
                                          a client may not decode) and a body of zeros compressed
                                          about a thousand times or more, that decodes to M MiB
                                          (1,024 by default): 1 GiB is about 1 MiB of gzip, 14 KiB
                                          of br, 32 KiB of zstd. Made piece by piece, never held
                                          whole. With H, the bytes that
                                          decode to the first H MiB go at once, then the rest waits
                                          until the client closes the connection or 10 s pass: a client
                                          that stops at a limit below H MiB is seen to close it, one
                                          that reads on gets the rest. Recorded under K
    GET  /pattern?mb=M[&hold-after=H][&key=K]
                                          200 with Content-Length M MiB (any number, fractions too) of
                                          a pattern a client can check byte for byte: each MiB is the
                                          1 MiB of splitmix64 output from seed 0x4B494C4F (little-
                                          endian words) with its first 8 bytes replaced by the MiB's
                                          index (big-endian); H as for /bomb, in MiB of the body;
                                          recorded under K
    GET  /drip?interval=S[&key=K]         200 with Content-Length 1,000,000, then one space every S
                                          seconds (1 by default) until the client goes away; recorded
                                          under K
    GET  /error-body?mb=M[&status=C][&hold-after=H][&key=K]
                                          C (500 by default), text/plain, M MiB of text (8 by default)
                                          that opens with CR LF and an ANSI escape sequence:
                                          "the server failed\\r\\n\\x1b[31mred alert\\x1b[0m xxx…";
                                          H as for /pattern; recorded under K
    GET  /events/wide[?size=S]            200, text/event-stream: the event `data: before`, then
                                          one whose `event:`, `id:` and `data:` values are each S
                                          bytes (1 MiB less 7 by default: each line fits in 1 MiB,
                                          the three together do not), then `data: after`
    GET  /events/long-id[?size=S&count=N] 200, text/event-stream with `retry: 10`: the event
                                          `id: first`, then one whose `id:` value is S bytes (1 MiB
                                          less 4 by default: the line fits in 1 MiB), then N more
                                          (3 by default) without an `id:`; each event's data is
                                          {"index": i, "lastEventID": h}, i counting from 0 and h the
                                          request's `Last-Event-ID` (null without one)
    GET  /error-json?kb=N                 422, application/json {"error": "invalid", "detail": "yyy…"}
                                          of about N KiB (512 by default)
    *    /slow-read?key=K                 reads the body 64 KiB every 20 ms (about 3 MiB a second),
                                          or at full speed once /slow-read-go?key=K has been
                                          requested, then whatever else arrives within half a
                                          second (bytes a client sent past its Content-Length);
                                          200 with {"received": r, "extra": e}, the body's size
                                          and those bytes', recorded under K
    GET  /slow-read-go?key=K              200, {"key": K}: /slow-read under K reads at full speed
    GET  /slow-read-result?key=K          200, what /slow-read recorded under K, or {"received": -1,
                                          "extra": -1} before the whole body came
    GET  /transfer?key=K                  200, {"key": K, "done": d, "closed": c, "sent": s, "size": n,
                                          "seconds": t}: how the last recorded body sent under K went:
                                          whether it is over (d), whether the client closed the
                                          connection before all of it was written (c), how many bytes
                                          were written (s) of how many (n), and in how many seconds
                                          after the head; {"key": K, "done": false} before one starts

A TLS client that connects to the plain port (an `https` URL with its port) has the connection
reset (TCP RST) as soon as its client hello arrives.

With `--tls-port P`, it also serves the same endpoints over HTTPS on 127.0.0.1:P with a
self-signed certificate made at start-up (by `openssl`, or the `cryptography` package when
`openssl` is missing), which no client should trust.

With `--trusted-tls-port P --ca-file F`, it also serves them over HTTPS on 127.0.0.1:P with a
certificate for 127.0.0.1 and localhost that a private CA made at start-up has signed, and writes
that CA's certificate (not its key, which is thrown away) to F, for a test client to trust.
"""

import argparse
import base64
import gzip
import json
import os
import select
import shutil
import socket
import socketserver
import ssl
import struct
import subprocess
import sys
import tempfile
import threading
import time
import zlib
from urllib.parse import parse_qs, urlsplit

MAX_HEAD = 64 * 1024
MAX_COOKIE_HEAD = 4 * 1024 * 1024  # /cookies/ paths: a flood of cookies makes a large request head
TLS_HANDSHAKE = b"\x16\x03"  # the start of a TLS client hello
CHUNK = 64 * 1024

# What /slow-read received under each key: the body, and the bytes that came after it.
SLOW_READS = {}
SLOW_READS_GOING = set()  # keys /slow-read reads at full speed (see /slow-read-go)

counts = {}
authorized_counts = {}
counts_lock = threading.Lock()
transfers = {}  # key -> how the last recorded body sent under it went (see /transfer)


def count_request(key, headers):
    """Counts one request under `key`, and, if it has an `Authorization` field, under the key's
    authorized count too; returns the new count, 0 when there is no key."""
    if key is None:
        return 0
    with counts_lock:
        counts[key] = counts.get(key, 0) + 1
        if "authorization" in headers:
            authorized_counts[key] = authorized_counts.get(key, 0) + 1
        return counts[key]


def current_count(key):
    with counts_lock:
        return counts.get(key, 0)


def current_authorized_count(key):
    with counts_lock:
        return authorized_counts.get(key, 0)


class Disconnected(Exception):
    """The client closed the connection before sending a whole request."""


class EarlyDrop(Exception):
    """The connection was dropped before the request's body was read."""


class FaultHandler(socketserver.BaseRequestHandler):
    def setup(self):
        self.buffer = b""
        self.early_count = None  # /flaky-early's count, taken before the body is read
        self.has_received = False  # whether any byte has arrived on the connection

    # Reading the request

    def receive(self):
        data = self.request.recv(CHUNK)
        if not data:
            raise Disconnected()
        # Only a connection's first bytes can be a client hello: a request body may begin with
        # the same two bytes, and arrive once the head has been taken from an empty buffer.
        is_first = not self.has_received
        self.has_received = True
        if is_first and data.startswith(TLS_HANDSHAKE) and not isinstance(self.request, ssl.SSLSocket):
            self.reset()  # a TLS client on the plain port
            raise Disconnected()
        self.buffer += data

    def read_exactly(self, count):
        while len(self.buffer) < count:
            self.receive()
        data, self.buffer = self.buffer[:count], self.buffer[count:]
        return data

    def read_line(self):
        while b"\r\n" not in self.buffer:
            if len(self.buffer) > MAX_HEAD:
                raise Disconnected()
            self.receive()
        line, self.buffer = self.buffer.split(b"\r\n", 1)
        return line

    def head_limit(self):
        """MAX_HEAD, or MAX_COOKIE_HEAD for a request to a /cookies/ path."""
        target = self.buffer.split(b" ", 2)[1:2]
        return MAX_COOKIE_HEAD if target and target[0].startswith(b"/cookies/") else MAX_HEAD

    def read_request(self):
        """Reads the request line, the headers and the body (by length or chunked)."""
        while b"\r\n\r\n" not in self.buffer:
            if len(self.buffer) > self.head_limit():
                raise Disconnected()
            self.receive()
        head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        self.raw_head = head
        lines = head.decode("latin-1").split("\r\n")
        method, target, _version = lines[0].split(" ", 2)
        early = urlsplit(target)
        if early.path == "/flaky-early":
            query = {name: values[-1] for name, values in parse_qs(early.query).items()}
            self.early_count = count_request(query.get("key"), {})  # its headers are not parsed yet
            if self.early_count <= int(query.get("failures", "1")):
                log("%s %s (key %s: %d): dropped before the body" % (method, target, query.get("key"), self.early_count))
                if query.get("how") == "reset":
                    self.reset()
                else:
                    self.request.shutdown(socket.SHUT_RDWR)
                raise EarlyDrop()
        headers = {}
        self.cookie_fields = []  # every `Cookie` field, for /cookies/echo: `headers` keeps the last
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
            if name.strip().lower() == "cookie":
                self.cookie_fields.append(value.strip())
        if headers.get("transfer-encoding", "").lower() == "chunked":
            body = b""
            while True:
                size = int(self.read_line().split(b";")[0], 16)
                if size == 0:
                    while self.read_line():  # trailers, up to the empty line
                        pass
                    break
                body += self.read_exactly(size)
                self.read_exactly(2)
        elif early.path == "/slow-read":
            key = {name: values[-1] for name, values in parse_qs(early.query).items()}.get("key")
            body = self.read_slowly(int(headers.get("content-length", "0")), key)
        else:
            body = self.read_exactly(int(headers.get("content-length", "0")))
        return method, target, headers, body

    def read_slowly(self, count, key):
        """Reads a body of `count` bytes 64 KiB at a time, 20 ms apart, so that a client is still
        sending it a while later, or at full speed once /slow-read-go names `key`; then whatever
        else arrives within half a second, which a client that sent more than its Content-Length
        left on the connection: see /slow-read."""
        while len(self.buffer) < count:
            if key not in SLOW_READS_GOING:
                time.sleep(0.02)
            self.receive()
        body, self.buffer = self.buffer[:count], self.buffer[count:]
        self.request.settimeout(0.5)
        try:
            while True:
                more = self.request.recv(CHUNK)
                if not more:
                    break
                self.buffer += more
        except OSError:
            pass
        self.request.settimeout(None)
        return body

    # Writing responses

    def send_head(self, status, reason, headers, length, close=True):
        """Writes a status line and header fields, with `Content-Length: length` unless `length`
        is `None`."""
        lines = ["HTTP/1.1 %d %s" % (status, reason)]
        lines += ["%s: %s" % pair for pair in headers]
        lines += ([] if length is None else ["Content-Length: %d" % length])
        lines += (["Connection: close"] if close else []) + ["", ""]
        self.request.sendall("\r\n".join(lines).encode("latin-1"))

    def respond(self, status, reason, body, content_type="application/json", headers=(), close=True):
        if not isinstance(body, bytes):
            body = json.dumps(body).encode("utf-8")
        self.send_head(status, reason, [("Content-Type", content_type)] + list(headers), len(body), close)
        self.request.sendall(body)

    def reset(self):
        """Closes the connection with a TCP RST instead of a FIN."""
        self.request.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.request.close()

    def reset_when_reused(self, delay=0.0):
        """Keeps the connection open, and resets it unread when the next request arrives, or
        `delay` seconds after."""
        try:
            self.request.settimeout(60)
            if self.request.recv(1, socket.MSG_PEEK):
                time.sleep(delay)
                self.reset()
        except OSError:
            pass  # the client closed the connection, or never reused it

    def wait_for_client_to_leave(self):
        try:
            while self.request.recv(CHUNK):
                pass
        except OSError:
            pass

    # Dispatch

    def handle(self):
        try:
            method, target, headers, body = self.read_request()
        except (Disconnected, EarlyDrop, OSError, ValueError):
            return
        url = urlsplit(target)
        query = {name: values[-1] for name, values in parse_qs(url.query).items()}
        path = url.path
        key = query.get("key")
        if self.early_count is not None:
            n = self.early_count
        else:
            n = 0 if path == "/count" else count_request(key, headers)
        log("%s %s (key %s: %d)" % (method, target, key, n))
        try:
            self.route(method, path, query, headers, body, key, n)
        except (BrokenPipeError, ConnectionResetError, ssl.SSLError):
            pass  # the client left; that is the point of some endpoints

    def route(self, method, path, query, headers, body, key, n):
        if path == "/ok":
            self.respond(200, "OK", {"ok": True})
        elif path == "/latin1-header":
            self.respond(200, "OK", {"ok": True}, headers=[("X-Name", "caf\xe9")])
        elif path == "/health":
            self.respond(200, "OK", b"ok", "text/plain; charset=utf-8")
        elif path == "/count":
            self.respond(200, "OK", {"key": key, "count": current_count(key),
                                     "authorized": current_authorized_count(key)})
        elif path == "/redirect-to":
            time.sleep(float(query.get("delay", "0")))
            code = int(query.get("code", "302"))
            self.respond(code, "Found" if code == 302 else "Redirect", b"", "text/plain",
                         [("Location", query.get("url", "/"))])
        elif path == "/drop":
            self.drop_mid_body(query.get("mark", '{"attempts').encode("utf-8"))
        elif path == "/reset":
            self.reset()
        elif path == "/hang":
            self.wait_for_client_to_leave()
        elif path == "/slow-read":
            SLOW_READS[key] = {"received": len(body), "extra": len(self.buffer)}
            self.respond(200, "OK", SLOW_READS[key])
        elif path == "/slow-read-go":
            SLOW_READS_GOING.add(key)
            self.respond(200, "OK", {"key": key})
        elif path == "/slow-read-result":
            self.respond(200, "OK", SLOW_READS.get(key, {"received": -1, "extra": -1}))
        elif path == "/echo":
            self.respond(200, "OK", body, "application/octet-stream", [("X-Method", method)])
        elif path == "/raw" or path.startswith("/raw/"):
            self.respond(200, "OK", {"head": self.raw_head.decode("latin-1"),
                                     "body": base64.b64encode(body).decode("ascii")})
        elif path == "/malformed-json":
            self.respond(200, "OK", b'{"a": [1, 2')
        elif path == "/flaky":
            if n <= int(query.get("failures", "1")):
                extra = [("Retry-After", query["retry-after"])] if "retry-after" in query else []
                self.respond(503, "Service Unavailable", b"try again later\n", "text/plain; charset=utf-8", extra)
            else:
                self.respond(200, "OK", {"attempts": n})
        elif path == "/flaky-early":
            self.respond(200, "OK", {"attempts": n, "received": len(body)})
        elif path == "/flaky-drop":
            if n <= int(query.get("failures", "1")):
                if query.get("how") == "reset":
                    self.reset()
                elif query.get("how") == "partial":
                    self.drop_mid_body()
                else:
                    self.request.shutdown(socket.SHUT_RDWR)
            else:
                self.respond(200, "OK", {"attempts": n})
        elif path.startswith("/basic-auth/") and path.count("/") == 3:
            user, password = path.split("/")[2:4]
            expected = "Basic " + base64.b64encode(("%s:%s" % (user, password)).encode("utf-8")).decode("ascii")
            if headers.get("authorization") == expected:
                self.respond(200, "OK", {"authenticated": True, "user": user, "received": len(body)})
            else:
                self.respond(401, "Unauthorized", b"", "text/plain",
                             [("WWW-Authenticate", 'Basic realm="Fake Realm"')])
        elif path == "/auth":
            if headers.get("authorization") == "Bearer " + query.get("token", ""):
                self.respond(200, "OK", {"authorized": True, "attempts": n})
            else:
                self.respond(401, "Unauthorized", b"bad or missing token\n", "text/plain; charset=utf-8",
                             [("WWW-Authenticate", 'Bearer realm="kilo"')])
        elif path == "/stale-keep-alive":
            self.respond(200, "OK", {"received": len(body), "attempts": n}, close=False)
            self.reset_when_reused(float(query.get("reset-after", "0")))
        elif path == "/malformed":
            self.send_malformed(query.get("how", ""))
        elif path == "/encoded-empty":
            length = ["Content-Length: %s" % query["length"]] if "length" in query else []
            lines = ["HTTP/1.1 %s Empty" % query.get("status", "200"), "Content-Type: application/json",
                     "Content-Encoding: %s" % query.get("encoding", "gzip")] + length + ["Connection: close", "", ""]
            self.request.sendall("\r\n".join(lines).encode("latin-1"))
        elif path == "/redirect-endless":
            self.send_endless_redirect(int(query.get("code", "302")), query.get("to"), query.get("rate", "flood"), key)
        elif path == "/redirect-loop":
            code = int(query.get("code", "302"))
            self.respond(code, "Redirect", b"", "text/plain", [("Location", "/redirect-loop?code=%d" % code)])
        elif path == "/gzip-records":
            description = "the same text in every record, as a list endpoint often repeats it"
            records = [{"id": i, "name": "record", "description": description, "active": True}
                       for i in range(int(query.get("n", "1000")))]
            self.respond(200, "OK", gzip.compress(json.dumps(records).encode("utf-8")), "application/json",
                         [("Content-Encoding", "gzip")])
        elif path == "/huge":
            self.stream_zeros(int(float(query.get("mb", "1")) * 1024 * 1024))
        elif path == "/stall":
            length = int(query.get("kb", "1")) * 1024
            self.send_head(200, "OK", [("Content-Type", "application/octet-stream")], length + 1)
            self.request.sendall(bytes(length))
            self.wait_for_client_to_leave()
        elif path == "/bomb":
            hold_after = int(query["hold-after"]) if "hold-after" in query else None
            self.send_bomb(query.get("encoding", "gzip"), int(query.get("mb", "1024")), hold_after, key,
                           query.get("type", "application/octet-stream"))
        elif path == "/pattern":
            length = int(float(query.get("mb", "1")) * MIB)
            self.send_recorded(200, "OK", [("Content-Type", "application/octet-stream")], length,
                               holding(pattern_pieces(length), query.get("hold-after")), key)
        elif path == "/drip":
            self.send_recorded(200, "OK", [("Content-Type", "application/json")], DRIP_LENGTH,
                               drip_pieces(float(query.get("interval", "1"))), key)
        elif path == "/error-body":
            text = ERROR_TEXT_START + b"x" * (int(float(query.get("mb", "8")) * MIB) - len(ERROR_TEXT_START))
            status = int(query.get("status", "500"))
            pieces = (text[offset:offset + CHUNK] for offset in range(0, len(text), CHUNK))
            self.send_recorded(status, "Error", [("Content-Type", "text/plain; charset=utf-8")], len(text),
                               holding(pieces, query.get("hold-after")), key)
        elif path == "/events/wide":
            value = b"x" * int(query.get("size", str(MIB - 7)))
            self.respond(200, "OK", b"data: before\n\nevent: " + value + b"\nid: " + value + b"\ndata: " + value
                         + b"\n\ndata: after\n\n", "text/event-stream")
        elif path == "/events/long-id":
            self.respond(200, "OK", long_id_events(int(query.get("size", str(MIB - 4))), int(query.get("count", "3")),
                                                   headers.get("last-event-id")), "text/event-stream")
        elif path == "/error-json":
            detail = "y" * (int(query.get("kb", "512")) * 1024)
            self.respond(422, "Unprocessable Content", {"error": "invalid", "detail": detail})
        elif path == "/transfer":
            with counts_lock:
                record = dict(transfers.get(key, {"done": False}))
            record["key"] = key
            self.respond(200, "OK", record)
        elif path == "/cookies/set":
            self.set_cookies(query)
        elif path == "/cookies/echo":
            names = [pair.split("=", 1)[0].strip() for field in self.cookie_fields for pair in field.split(";")
                     if pair.strip()]
            self.respond(200, "OK", {"fields": len(self.cookie_fields),
                                     "bytes": sum(len(field) for field in self.cookie_fields), "names": names,
                                     "received": len(body)})
        else:
            self.respond(404, "Not Found", b"no such endpoint\n", "text/plain; charset=utf-8")

    def set_cookies(self, query):
        """Answers with `count` `Set-Cookie` fields of `size` bytes each (see /cookies/set)."""
        count, size = int(query.get("count", "1")), int(query.get("size", "16"))
        prefix, attributes = query.get("prefix", "c"), query.get("attributes", "")
        fields = [("Set-Cookie", "%s%d=%s; Path=/%s" % (prefix, i, "v" * size, attributes)) for i in range(count)]
        if "location" in query:
            code = int(query.get("code", "302"))
            self.respond(code, "Redirect", b"", "text/plain", fields + [("Location", query["location"])])
        else:
            self.respond(200, "OK", {"set": count}, headers=fields)

    def send_malformed(self, how):
        """Writes the malformed response `how` names, then closes the connection."""
        ok = b'{"ok": true}'
        framed = b"Content-Length: %d\r\nConnection: close\r\n\r\n" % len(ok) + ok
        truncated = gzip.compress(ok)[:-8]
        gzipped = gzip.compress(ok)

        def encoded(encoding, body):
            return (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: %s\r\n"
                    b"Content-Length: %d\r\nConnection: close\r\n\r\n" % (encoding, len(body)) + body)
        responses = {
            "chunked": b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
                       b"zz\r\nhello\r\n0\r\n\r\n",
            "trailer": b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
                       b"%x\r\n%s\r\n0\r\nHTTP/1.1 500 Oops\r\n\r\n" % (len(ok), ok),
            "status": b"HTTP/1.1 1000 Whatever\r\n" + framed,
            "no-reason": b"HTTP/1.1 200\r\nContent-Type: application/json\r\n" + framed,
            "mixed-case-protocol": b"Http/1.1 200 OK\r\nContent-Type: application/json\r\n" + framed,
            "not-http": b"SSH-2.0-OpenSSH_9.2\r\nnot HTTP at all\r\n",
            "length": b"HTTP/1.1 200 OK\r\nContent-Length: abc\r\nConnection: close\r\n\r\n" + ok,
            "colon": b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nNoColonHere\r\n" + framed,
            "headers": b"HTTP/1.1 200 OK\r\n" + b"".join(b"X-Big-%d: %s\r\n" % (i, b"a" * 80000)
                                                         for i in range(4)) + framed,
            "one-big-header": b"HTTP/1.1 200 OK\r\nX-Big: " + b"a" * 200000 + b"\r\n" + framed,
            "nul-header": b"HTTP/1.1 200 OK\r\nX-Nul: a\x00b\r\n" + framed,
            "huge-length": b"HTTP/1.1 200 OK\r\nContent-Length: 18446744073709551621\r\nConnection: close\r\n\r\n" + ok,
            "huge-length-challenge": b"HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Basic realm=\"kilo\"\r\n"
                                     b"Content-Length: 18446744073709551621\r\nConnection: close\r\n\r\n" + ok,
            "conflicting-length": b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\nContent-Length: %d\r\n"
                                  b"Connection: close\r\n\r\n" % (len(ok), len(ok) + 5) + ok + b"extra",
            "gzip": b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\n" + framed,
            "unknown-encoding": b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: x-bogus\r\n"
                                + framed,
            "gzip-twice": encoded(b"gzip, gzip", gzip.compress(gzipped)),
            "identity-gzip": encoded(b"identity, gzip", gzipped),
            "x-gzip": encoded(b"x-gzip", gzipped),
            "gzip-garbage": encoded(b"gzip", gzipped + b"garbage"),
            "gzip-members": encoded(b"gzip", gzip.compress(ok[:5]) + gzip.compress(ok[5:])),
            "gzip-truncated": b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\n"
                              b"Content-Length: %d\r\nConnection: close\r\n\r\n" % len(truncated) + truncated,
        }
        self.request.sendall(responses.get(how, b"HTTP/1.1 400 Bad Request\r\n" + framed))
        self.request.shutdown(socket.SHUT_RDWR)

    def drop_mid_body(self, partial=b'{"attempts'):
        """Promises 1000 bytes of body, sends the partial body (10 bytes by default), and closes
        the connection."""
        self.send_head(200, "OK", [("Content-Type", "application/json")], 1000)
        self.request.sendall(partial[:999])
        self.request.shutdown(socket.SHUT_RDWR)

    def send_recorded(self, status, reason, headers, length, pieces, key):
        """Sends a response whose body is `pieces` (an iterable of bytes, `length` in all, and of
        pauses: a number of seconds to wait unless the client closes the connection first), and
        records under `key` how it went (see /transfer): whether the client closed the connection
        before the whole body was written, how much was written, and when. A `length` of `None`
        sends the body chunked, each piece a chunk, and records its size as -1."""
        record = {"done": False, "closed": False, "sent": 0, "size": -1 if length is None else length,
                  "seconds": 0.0}
        if key is not None:
            with counts_lock:
                transfers[key] = record
        start = time.monotonic()
        try:
            if length is None:
                self.send_head(status, reason, headers + [("Transfer-Encoding", "chunked")], None)
            else:
                self.send_head(status, reason, headers, length)
            for piece in pieces:
                if isinstance(piece, float):  # a pause: seconds to wait, unless the client leaves
                    if self.client_closed_within(piece):
                        record["closed"] = True
                        break
                    continue
                framed = piece if length is not None else b"%x\r\n%s\r\n" % (len(piece), piece)
                self.request.sendall(framed)  # raises when the client has closed the connection
                record["sent"] += len(piece)
            else:
                if length is None:
                    self.request.sendall(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError, ssl.SSLError):
            record["closed"] = True
        finally:
            record["seconds"] = round(time.monotonic() - start, 3)
            record["done"] = True
            log("%s: %d of %d bytes sent in %.3f s%s" % (key, record["sent"], record["size"], record["seconds"],
                                                          ", the client closed the connection"
                                                          if record["closed"] else ""))

    def client_closed_within(self, seconds):
        """Waits up to `seconds` for the client to close the connection (or reset it), without
        reading anything it may send; returns whether it did."""
        try:
            readable, _, _ = select.select([self.request], [], [], seconds)
            return bool(readable) and not self.request.recv(1, socket.MSG_PEEK)
        except (ConnectionResetError, OSError):
            return True

    def send_endless_redirect(self, code, location, rate, key):
        """Sends a redirect whose chunked body never ends, flooding or dripping, until the client
        goes away or stops reading, or ENDLESS_SECONDS pass (see /redirect-endless)."""
        if rate not in ("flood", "drip"):
            self.respond(400, "Bad Request", b"rate: flood or drip\n", "text/plain")
            return
        headers = [("Content-Type", "text/plain; charset=utf-8")] + ([("Location", location)] if location else [])
        self.request.settimeout(ENDLESS_STALL)  # a client that stops reading but stays is gone too
        try:
            self.send_recorded(code, "Redirect", headers, None, endless_pieces(rate), key)
        except TimeoutError:
            log("%s: the client stopped reading" % key)

    def send_bomb(self, encoding, mebibytes, hold_after, key, content_type="application/octet-stream"):
        """Sends zeros that decode to `mebibytes` MiB, compressed with `encoding`, holding the rest
        back after the first `hold_after` MiB, if given, until the client closes the connection
        (see /bomb)."""
        makers = {"gzip": gzip_bomb, "br": brotli_bomb, "zstd": zstd_bomb}
        if encoding not in makers or mebibytes < 1 or (hold_after is not None and not 1 <= hold_after < mebibytes):
            self.respond(400, "Bad Request", b"encoding: gzip, br or zstd; mb: at least 1; hold-after: 1 to mb - 1\n",
                         "text/plain")
            return
        length, pieces = makers[encoding](mebibytes, hold_after)
        self.send_recorded(200, "OK", [("Content-Type", content_type),
                                       ("Content-Encoding", encoding)], length, pieces, key)

    def stream_zeros(self, length):
        self.send_head(200, "OK", [("Content-Type", "application/octet-stream")], length)
        zeros = bytes(CHUNK)
        remaining = length
        while remaining > 0:
            piece = zeros if remaining >= CHUNK else zeros[:remaining]
            self.request.sendall(piece)  # raises when the client disconnects
            remaining -= len(piece)


MIB = 1024 * 1024
DRIP_LENGTH = 1000000
ERROR_TEXT_START = b"the server failed\r\n\x1b[31mred alert\x1b[0m "


ENDLESS_SECONDS = 60  # the longest /redirect-endless writes its body
ENDLESS_STALL = 10  # seconds /redirect-endless waits for a client that has stopped reading


def long_id_events(size, count, last_event_id):
    """The body of /events/long-id: `id: first`, an `id:` of `size` bytes, then `count` events
    without one, each event's data its index and the `Last-Event-ID` the request came with."""
    def event(index, field):
        return field + b"data: " + json.dumps({"index": index, "lastEventID": last_event_id}).encode("utf-8") + b"\n\n"
    events = [b"retry: 10\n" + event(0, b"id: first\n"), event(1, b"id: " + b"y" * size + b"\n")]
    return b"".join(events + [event(index, b"") for index in range(2, count + 2)])


HOLD = 10.0  # seconds that /bomb holds the rest of its body back, waiting for the client to close


def repeated(unit, count, piece_size=CHUNK):
    """`unit` `count` times, as pieces of about `piece_size` bytes, never all at once."""
    per_piece = max(1, piece_size // len(unit))
    piece = unit * per_piece
    for _ in range(count // per_piece):
        yield piece
    if count % per_piece:
        yield unit * (count % per_piece)


def gzip_segments():
    """The gzip of 1 MiB of zeros, flushed with Z_FULL_FLUSH, which forgets the history: the
    first MiB (after the gzip header), then each later MiB, whose compressed bytes are then always
    the same (1,037 bytes with zlib 1.2.13), so any number of MiB is made by repeating them."""
    if not hasattr(gzip_segments, "cached"):
        zeros = bytes(MIB)
        compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
        first = compressor.compress(zeros) + compressor.flush(zlib.Z_FULL_FLUSH)
        later = compressor.compress(zeros) + compressor.flush(zlib.Z_FULL_FLUSH)
        assert later == compressor.compress(zeros) + compressor.flush(zlib.Z_FULL_FLUSH)
        gzip_segments.cached = (first, later)
    return gzip_segments.cached


def crc32_of_zeros(length):
    """zlib.crc32(bytes(length)) without the bytes: the CRC register after a zero bit is a linear
    function of the one before (a 32x32 matrix over GF(2), as in zlib's crc32_combine), raised
    to the power of 8 * length by squaring."""
    def times(matrix, vector):
        result, row = 0, 0
        while vector:
            if vector & 1:
                result ^= matrix[row]
            vector >>= 1
            row += 1
        return result
    register = 0xFFFFFFFF
    matrix = [0xEDB88320] + [1 << row for row in range(31)]  # one zero bit
    power = 8 * length
    while power:
        if power & 1:
            register = times(matrix, register)
        matrix = [times(matrix, column) for column in matrix]
        power >>= 1
    return register ^ 0xFFFFFFFF


def per_mebibyte(first, later, end, mebibytes, hold_after):
    """The pieces of a stream made of `first`, `later` repeated, and `end`, each of the first
    two decoding to 1 MiB, for `mebibytes` MiB, with a pause of HOLD seconds after `hold_after`
    MiB if given."""
    yield first
    if hold_after is None:
        yield from repeated(later, mebibytes - 1)
    else:
        yield from repeated(later, hold_after - 1)
        yield HOLD
        yield from repeated(later, mebibytes - hold_after)
    yield end


def gzip_bomb(mebibytes, hold_after=None):
    """The gzip of `mebibytes` MiB of zeros: its length, and its pieces."""
    first, later = gzip_segments()
    final = b"\x03\x00"  # an empty last block with fixed codes, after the byte-aligned flushes
    trailer = final + struct.pack("<II", crc32_of_zeros(mebibytes * MIB), (mebibytes * MIB) & 0xFFFFFFFF)
    length = len(first) + (mebibytes - 1) * len(later) + len(trailer)
    return length, per_mebibyte(first, later, trailer, mebibytes, hold_after)


# The brotli of zeros, as brotli 1.2.1 writes it (quality 11, window 2^24) with a flush after each
# MiB: the first MiB, each later MiB (always these same bytes), and the end of the stream. Python
# has no brotli module of its own; these were checked with the brotli package's decompressor.
BROTLI_FIRST_MIB = bytes.fromhex("afffff877f02201e0b0472ef1f0c")
BROTLI_LATER_MIB = bytes.fromhex("faff7ff82700e2b00040f7fec100")
BROTLI_END = bytes.fromhex("03")


def brotli_bomb(mebibytes, hold_after=None):
    """The brotli of `mebibytes` MiB of zeros: its length, and its pieces."""
    length = len(BROTLI_FIRST_MIB) + (mebibytes - 1) * len(BROTLI_LATER_MIB) + len(BROTLI_END)
    return length, per_mebibyte(BROTLI_FIRST_MIB, BROTLI_LATER_MIB, BROTLI_END, mebibytes, hold_after)


def zstd_bomb(mebibytes, hold_after=None):
    """A Zstandard frame of `mebibytes` MiB of zeros (RFC 8878), made by hand: a 128 KiB window
    and no content size, then RLE blocks of 128 KiB (a 3-byte header and the byte to repeat),
    the last one marked so: its length, and its pieces."""
    block = 128 * 1024
    header = struct.pack("<I", 0xFD2FB528) + bytes([0x00, (17 - 10) << 3])  # no flags; window 2^17

    def rle(last):
        return struct.pack("<I", (block << 3) | (1 << 1) | int(last))[:3] + b"\x00"
    blocks = MIB // block  # in a MiB
    length = len(header) + 4 * blocks * mebibytes
    mebibyte = rle(False) * blocks
    last = rle(False) * (blocks - 1) + rle(True)
    if mebibytes == 1:
        return length, iter([header + last])
    return length, per_mebibyte(header + mebibyte, mebibyte, last, mebibytes - 1, hold_after)


def holding(pieces, hold_after):
    """`pieces`, with a pause of HOLD seconds once `hold_after` MiB (a string, from a query; `None`
    for no pause) have gone."""
    held = hold_after is None
    sent = 0
    for piece in pieces:
        yield piece
        sent += len(piece)
        if not held and sent >= float(hold_after) * MIB:
            held = True
            yield HOLD


def pattern_block():
    """The 1 MiB that /pattern repeats: splitmix64 from seed 0x4B494C4F, little-endian words."""
    if not hasattr(pattern_block, "cached"):
        mask, state, words = (1 << 64) - 1, 0x4B494C4F, []
        for _ in range(MIB // 8):
            state = (state + 0x9E3779B97F4A7C15) & mask
            z = state
            z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
            words.append(z ^ (z >> 31))
        pattern_block.cached = struct.pack("<%dQ" % len(words), *words)
    return pattern_block.cached


def pattern_pieces(length):
    """The first `length` bytes of /pattern's body, a MiB at a time."""
    block = pattern_block()
    for index in range((length + MIB - 1) // MIB):
        yield (struct.pack(">Q", index) + block[8:])[:length - index * MIB]


def endless_pieces(rate):
    """/redirect-endless's body: pieces of 64 KiB without a pause (`flood`), or 16 bytes every 100 ms
    (`drip`), until ENDLESS_SECONDS have passed."""
    end = time.monotonic() + ENDLESS_SECONDS
    piece = bytes(b"moved; read on.\n" * (CHUNK // 16 if rate == "flood" else 1))
    while time.monotonic() < end:
        yield piece
        if rate == "drip":
            yield 0.1


def drip_pieces(interval):
    """One space every `interval` seconds, as long as the client stays."""
    for _ in range(DRIP_LENGTH):
        yield b" "
        yield interval


class TLSFaultHandler(FaultHandler):
    """Does the TLS handshake in the connection's own thread, so a client that refuses the
    certificate never holds up the listener."""

    context = None

    def setup(self):
        super().setup()
        self.plain = self.request
        self.request = self.context.wrap_socket(self.plain, server_side=True, do_handshake_on_connect=False)

    def handle(self):
        try:
            self.request.settimeout(10)
            self.request.do_handshake()
            self.request.settimeout(None)
        except (ssl.SSLError, OSError) as error:
            log("TLS handshake failed: %s" % error)
            return
        super().handle()

    def finish(self):
        try:
            self.request.close()
        except OSError:
            pass


class Server(socketserver.ThreadingTCPServer):
    allow_reuse_address = True
    daemon_threads = True
    block_on_close = False
    request_queue_size = 1024  # 100 clients connecting at once must not overflow the backlog


def make_certificate(directory):
    """Writes a self-signed certificate and key for 127.0.0.1 and returns their paths."""
    cert, key = os.path.join(directory, "cert.pem"), os.path.join(directory, "key.pem")
    if shutil.which("openssl"):
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1",
                        "-days", "1", "-keyout", key, "-out", cert],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return cert, key
    try:
        import datetime
        import ipaddress
        from cryptography import x509
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import rsa
        from cryptography.x509.oid import NameOID
    except ImportError:
        sys.exit("--tls-port needs openssl or the cryptography package")
    private_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.timezone.utc)
    certificate = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
                   .public_key(private_key.public_key()).serial_number(x509.random_serial_number())
                   .not_valid_before(now).not_valid_after(now + datetime.timedelta(days=1))
                   .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                                  critical=False)
                   .sign(private_key, hashes.SHA256()))
    with open(cert, "wb") as file:
        file.write(certificate.public_bytes(serialization.Encoding.PEM))
    with open(key, "wb") as file:
        file.write(private_key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL,
                                             serialization.NoEncryption()))
    return cert, key


def make_signed_certificate(directory, ca_file):
    """Makes a private CA, writes its certificate to `ca_file`, and writes a certificate and key for
    127.0.0.1 and localhost that it has signed; returns their paths. The CA's key stays in
    `directory`, which the caller removes."""
    cert, key = os.path.join(directory, "cert.pem"), os.path.join(directory, "key.pem")
    if shutil.which("openssl"):
        ca_key, request, extensions = (os.path.join(directory, name) for name in ("ca-key.pem", "req.pem", "ext.cnf"))
        with open(extensions, "w") as file:
            file.write("subjectAltName = IP:127.0.0.1, DNS:localhost\nbasicConstraints = CA:FALSE\n"
                       "keyUsage = critical, digitalSignature, keyEncipherment\nextendedKeyUsage = serverAuth\n")
        for command in (
            ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=Kilo test CA", "-days", "1",
             "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
             "-keyout", ca_key, "-out", ca_file],
            ["req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1", "-keyout", key, "-out", request],
            ["x509", "-req", "-in", request, "-CA", ca_file, "-CAkey", ca_key, "-set_serial", str(os.getpid()),
             "-days", "1", "-sha256", "-extfile", extensions, "-out", cert],
        ):
            subprocess.run(["openssl"] + command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return cert, key
    try:
        import datetime
        import ipaddress
        from cryptography import x509
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import rsa
        from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
    except ImportError:
        sys.exit("--trusted-tls-port needs openssl or the cryptography package")
    now = datetime.datetime.now(datetime.timezone.utc)

    def issue(subject, issuer, public_key, signing_key, extensions):
        builder = (x509.CertificateBuilder().subject_name(subject).issuer_name(issuer).public_key(public_key)
                   .serial_number(x509.random_serial_number()).not_valid_before(now)
                   .not_valid_after(now + datetime.timedelta(days=1)))
        for extension, critical in extensions:
            builder = builder.add_extension(extension, critical=critical)
        return builder.sign(signing_key, hashes.SHA256())

    ca_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Kilo test CA")])
    ca = issue(ca_name, ca_name, ca_key.public_key(), ca_key, [
        (x509.BasicConstraints(ca=True, path_length=None), True),
        (x509.KeyUsage(False, False, False, False, False, True, True, False, False), True),
    ])
    server_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    server = issue(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")]), ca_name,
                   server_key.public_key(), ca_key, [
                       (x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
                                                     x509.DNSName("localhost")]), False),
                       (x509.BasicConstraints(ca=False, path_length=None), True),
                       (x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), False),
                   ])
    for path, data in ((ca_file, ca.public_bytes(serialization.Encoding.PEM)),
                       (cert, server.public_bytes(serialization.Encoding.PEM)),
                       (key, server_key.private_bytes(serialization.Encoding.PEM,
                                                      serialization.PrivateFormat.TraditionalOpenSSL,
                                                      serialization.NoEncryption()))):
        with open(path, "wb") as file:
            file.write(data)
    return cert, key


def serve_tls(port, make):
    """Serves the fault endpoints over TLS on `port`, in a thread, with the certificate and key that
    `make(directory)` writes."""
    directory = tempfile.mkdtemp(prefix="kilo-fault-tls-")
    try:
        cert, key = make(directory)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert, key)
    finally:
        shutil.rmtree(directory, ignore_errors=True)  # the context has loaded them

    class Handler(TLSFaultHandler):
        pass

    Handler.context = context  # each listener its own certificate
    tls_server = Server(("127.0.0.1", port), Handler)
    threading.Thread(target=tls_server.serve_forever, daemon=True).start()


def log(message):
    print(message, file=sys.stderr, flush=True)


def main():
    parser = argparse.ArgumentParser(description="Kilo's fault-injecting test server")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--tls-port", type=int)
    parser.add_argument("--trusted-tls-port", type=int)
    parser.add_argument("--ca-file", help="where --trusted-tls-port's CA certificate goes")
    arguments = parser.parse_args()
    if arguments.trusted_tls_port and not arguments.ca_file:
        parser.error("--trusted-tls-port needs --ca-file")

    listeners = []
    if arguments.tls_port:
        serve_tls(arguments.tls_port, make_certificate)
        listeners.append("TLS on %d" % arguments.tls_port)
    if arguments.trusted_tls_port:
        serve_tls(arguments.trusted_tls_port, lambda directory: make_signed_certificate(directory, arguments.ca_file))
        listeners.append("TLS with a private CA on %d" % arguments.trusted_tls_port)

    server = Server(("127.0.0.1", arguments.port), FaultHandler)
    log("fault server on 127.0.0.1:%d%s" % (arguments.port, "".join(", " + text for text in listeners)))
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()

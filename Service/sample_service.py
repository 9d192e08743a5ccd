#!/usr/bin/env python3
"""Kilo's sample REST service, used by the examples and the Kilo-specific integration tests.

Run it with:

    python3 Service/sample_service.py --port 8080

It binds to 127.0.0.1 only. Every endpoint answers JSON unless noted otherwise:

    GET  /fibonacci?count=N               first N Fibonacci numbers: [0, 1, 1, 2, ...]
    GET  /math/sum?a=X&b=Y                a + b
    GET  /math/sum?values=1&values=2      sum of the repeated values
    GET  /echo/query                      {"args", "raw"}
    POST /echo/form                       {"args", "form", "contentType", "raw"}
    POST /echo/multipart                  {"args", "form", "files", "contentType"}
    POST|PUT|PATCH /echo/body             {"method", "args", "contentType", "json", "size", "sha256"}
    *    /echo/method                     {"method", "args"}
    GET  /echo/headers                    request headers, names lowercased
    GET|PUT|DELETE /items/<id>            a fixed item; PUT echoes the body; DELETE answers 204
    GET  /dates/echo?date=<ms>            {"date": ms}
    GET  /error                           500, text/plain "This is an error message."
    GET  /error/json                      422, {"message": "Invalid input", "code": 42}
    GET  /error/status/<code>             that status (200-599), empty body
    GET  /text, /csv                      text/plain and text/csv bodies
    GET  /empty                           204, empty body
    GET  /slow?seconds=S                  sleeps S seconds (at most 30), then {"slept": S}
    GET  /bytes?n=N                       N bytes, byte i being i % 251, streamed
    GET  /health                          200, text/plain "ok"

Streamed responses (each one thread of the server's own, so several stream at once):

    POST /chat                            a chat answer as server-sent events, token by token
         JSON body {"prompt": P, "tokens": N, "delay": S}, or the same as query parameters
         (the query wins): N tokens (default 8, at most 100000), S seconds apart (default 0.02,
         at most 5). Token i (from 0) is the i-th word, cycling, of "Echo: " + P, with a space
         before every token but the first. Each event is one "data:" line holding an OpenAI-style
         chat.completion.chunk (a first chunk with the role, one per token with delta.content,
         a last one with finish_reason "stop"), then "data: [DONE]".
         ?fail=CODE (400-599) answers CODE with {"error": {"message", "type", "code"}} (and
         Retry-After: 1 for 429) before any stream; ?drop_after=K sends K events, then half of
         the next one, then closes the connection without ending the chunked body (waiting
         ?drop_pause=S seconds first, default 0). "stream": false (or ?stream=false) answers
         with the whole answer as one chat.completion, application/json, as OpenAI's API does.
    GET  /records?count=N&delay=S         N JSON Lines (application/x-ndjson; default 10, at most
         100000), S seconds apart (default 0): {"id": i, "name": "Record i", "created": ms},
         i from 1. ?invalid_at=K makes line K "not json"; ?drop_after=K closes the connection
         after K lines and half of the next (waiting ?drop_pause=S seconds first, default 0).
"""

import argparse
import hashlib
import json
import logging
import math
import socket
import time

import flask.cli
from flask import Flask, Response, jsonify, request, stream_with_context

app = Flask(__name__)

TEXT = "text/plain; charset=utf-8"


def bad_request(message):
    return Response(message + "\n", status=400, content_type=TEXT)


def no_content(status=204):
    """An empty response without Flask's default text/html Content-Type."""
    response = Response(status=status)
    del response.headers["Content-Type"]
    return response


def multi_dict(values):
    """Maps each key to the list of its values, in the order received."""
    return {key: values.getlist(key) for key in values.keys()}


def finite_float(text):
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(text)
    return value


@app.get("/fibonacci")
def fibonacci():
    try:
        count = int(request.args["count"])
    except (KeyError, ValueError):
        return bad_request("count must be an integer")
    if not 0 <= count <= 1000:
        return bad_request("count must be between 0 and 1000")
    numbers, a, b = [], 0, 1
    for _ in range(count):
        numbers.append(a)
        a, b = b, a + b
    return jsonify(numbers)


@app.get("/math/sum")
def math_sum():
    try:
        if "values" in request.args:
            return jsonify(sum(finite_float(v) for v in request.args.getlist("values")))
        return jsonify(finite_float(request.args["a"]) + finite_float(request.args["b"]))
    except (KeyError, ValueError):
        return bad_request("pass numbers as a and b, or as repeated values")


@app.get("/echo/query")
def echo_query():
    raw = request.query_string.decode("latin-1")
    return jsonify(args=multi_dict(request.args), raw=raw)


@app.post("/echo/form")
def echo_form():
    raw = request.get_data(cache=True).decode("utf-8", errors="replace")
    return jsonify(args=multi_dict(request.args), form=multi_dict(request.form),
                   contentType=request.content_type, raw=raw)


@app.post("/echo/multipart")
def echo_multipart():
    files = {}
    for key in request.files.keys():
        files[key] = []
        for upload in request.files.getlist(key):
            data = upload.read()
            files[key].append({"filename": upload.filename, "contentType": upload.content_type,
                               "size": len(data), "sha256": hashlib.sha256(data).hexdigest()})
    return jsonify(args=multi_dict(request.args), form=multi_dict(request.form), files=files,
                   contentType=request.content_type)


@app.route("/echo/body", methods=["POST", "PUT", "PATCH"])
def echo_body():
    data = request.get_data(cache=True)
    return jsonify(method=request.method, args=multi_dict(request.args),
                   contentType=request.content_type, json=request.get_json(silent=True),
                   size=len(data), sha256=hashlib.sha256(data).hexdigest())


@app.route("/echo/method", methods=["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"],
           provide_automatic_options=False)
def echo_method():
    return jsonify(method=request.method, args=multi_dict(request.args))


@app.get("/echo/headers")
def echo_headers():
    return jsonify({name.lower(): value for name, value in request.headers.items()})


@app.route("/items/<int:item_id>", methods=["GET", "PUT", "DELETE"])
def item(item_id):
    if request.method == "DELETE":
        return no_content()
    if request.method == "PUT":
        body = request.get_json(silent=True)
        if not isinstance(body, dict):
            return bad_request("body must be a JSON object")
        return jsonify({**body, "id": item_id})
    return jsonify(id=item_id, name=f"Item {item_id}", created=1700000000123)


@app.get("/dates/echo")
def echo_date():
    try:
        return jsonify(date=int(request.args["date"]))
    except (KeyError, ValueError):
        return bad_request("date must be an integer number of milliseconds")


@app.get("/error")
def error():
    return Response("This is an error message.", status=500, content_type=TEXT)


@app.get("/error/json")
def error_json():
    return jsonify(message="Invalid input", code=42), 422


@app.get("/error/status/<int:code>")
def error_status(code):
    if not 200 <= code <= 599:
        return bad_request("status must be between 200 and 599")
    return no_content(code)


@app.get("/text")
def text():
    return Response("Hello, World!", content_type=TEXT)


@app.get("/csv")
def csv():
    return Response("a,b\n1,2\n3,4\n", content_type="text/csv; charset=utf-8")


@app.get("/empty")
def empty():
    return no_content()


@app.get("/slow")
def slow():
    try:
        seconds = min(max(finite_float(request.args.get("seconds", "1")), 0.0), 30.0)
    except ValueError:
        return bad_request("seconds must be a number")
    time.sleep(seconds)
    return jsonify(slept=seconds)


@app.get("/bytes")
def stream_bytes():
    """Streams N bytes of a fixed pattern (byte i is i % 251), with a Content-Length."""
    try:
        count = int(request.args.get("n", "0"))
    except ValueError:
        return bad_request("n must be a whole number")
    if count < 0:
        return bad_request("n must not be negative")
    pattern = bytes(i % 251 for i in range(251 * 256))

    def generate():
        sent = 0
        while sent < count:
            offset = sent % 251
            chunk = pattern[offset:offset + min(len(pattern) - offset, count - sent)]
            sent += len(chunk)
            yield chunk

    return Response(generate(), content_type="application/octet-stream",
                    headers={"Content-Length": str(count)})


def bounded_number(values, name, default, low, high, kind=float):
    """values[name] (a query or JSON value) as a number between low and high; raises ValueError."""
    try:
        value = kind(values.get(name, default))
    except (TypeError, ValueError):
        raise ValueError(name) from None
    if not (math.isfinite(value) and low <= value <= high):
        raise ValueError(name)
    return value


def drop_connection():
    """Closes the client's connection at once, so a chunked body stops without its last chunk.

    The development server (which runs this service) hands over its socket as werkzeug.socket;
    after the shutdown, its write of the closing chunk fails and it drops the connection quietly.
    """
    sock = request.environ.get("werkzeug.socket")
    if sock is None:
        raise ConnectionAbortedError("no socket to drop")  # another server: end the body with an error
    sock.shutdown(socket.SHUT_RDWR)


def streamed(generate, content_type):
    """A response that sends each piece generate() yields as it comes, in a chunk of its own."""
    return Response(stream_with_context(generate()), content_type=content_type,
                    headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


@app.post("/chat")
def chat():
    body = request.get_json(silent=True)
    options = {**(body if isinstance(body, dict) else {}), **request.args.to_dict()}
    try:
        tokens = bounded_number(options, "tokens", 8, 0, 100_000, int)
        delay = bounded_number(options, "delay", 0.02, 0, 5)
        drop_after = bounded_number(options, "drop_after", -1, -1, 1_000_000, int)
        drop_pause = bounded_number(options, "drop_pause", 0, 0, 5)
        fail = bounded_number(options, "fail", 0, 0, 599, int)
    except ValueError as error:
        return bad_request(f"{error} must be a number in range")
    if fail:
        if fail < 400:
            return bad_request("fail must be between 400 and 599")
        response = jsonify(error={"message": f"Failing with {fail} as asked", "type": "sample_error", "code": fail})
        response.status_code = fail
        if fail == 429:
            response.headers["Retry-After"] = "1"
        return response
    words = ("Echo: " + str(options.get("prompt", ""))).split()
    if options.get("stream") in (False, "false"):
        content = " ".join(words[index % len(words)] for index in range(tokens))
        return jsonify(id="chatcmpl-kilo", object="chat.completion", created=1700000000, model="kilo-sample",
                       choices=[{"index": 0, "message": {"role": "assistant", "content": content},
                                 "finish_reason": "stop"}])

    def chunk(delta, finish_reason=None):
        data = {"id": "chatcmpl-kilo", "object": "chat.completion.chunk", "created": 1700000000,
                "model": "kilo-sample", "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}]}
        return "data: " + json.dumps(data, ensure_ascii=False) + "\n\n"

    def events():
        yield chunk({"role": "assistant", "content": ""})
        for index in range(tokens):
            time.sleep(delay)
            yield chunk({"content": ("" if index == 0 else " ") + words[index % len(words)]})
        yield chunk({}, "stop")
        yield "data: [DONE]\n\n"

    def generate():
        for sent, event in enumerate(events()):
            if sent == drop_after:
                time.sleep(drop_pause)
                yield event[:len(event) // 2].encode()
                drop_connection()
                return
            yield event.encode()

    return streamed(generate, "text/event-stream; charset=utf-8")


@app.get("/records")
def records():
    try:
        count = bounded_number(request.args, "count", 10, 0, 100_000, int)
        delay = bounded_number(request.args, "delay", 0, 0, 5)
        invalid_at = bounded_number(request.args, "invalid_at", 0, 0, 1_000_000, int)
        drop_after = bounded_number(request.args, "drop_after", -1, -1, 1_000_000, int)
        drop_pause = bounded_number(request.args, "drop_pause", 0, 0, 5)
    except ValueError as error:
        return bad_request(f"{error} must be a number in range")

    def generate():
        for index in range(1, count + 1):
            if index > 1 and delay:
                time.sleep(delay)
            line = "not json\n" if index == invalid_at else json.dumps(
                {"id": index, "name": f"Record {index}", "created": 1700000000000 + index}) + "\n"
            if index - 1 == drop_after:
                time.sleep(drop_pause)
                yield line[:len(line) // 2].encode()
                drop_connection()
                return
            yield line.encode()

    return streamed(generate, "application/x-ndjson")


@app.get("/health")
def health():
    return Response("ok", content_type=TEXT)


def main():
    parser = argparse.ArgumentParser(description="Kilo's sample REST service.")
    parser.add_argument("--port", type=int, default=8080)
    port = parser.parse_args().port
    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # no line per request
    flask.cli.show_server_banner = lambda *args: None
    print(f"Kilo sample service on http://127.0.0.1:{port}/", flush=True)
    app.run(host="127.0.0.1", port=port, threaded=True, debug=False, use_reloader=False)


if __name__ == "__main__":
    main()

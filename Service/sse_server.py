#!/usr/bin/env python3
"""A server-sent events server built on sse-starlette under uvicorn, for Kilo's streaming tests.

A well-known SSE library on the server side, so the tests read a stream that Kilo's own code did
not write. Run it with:

    python3 Service/sse_server.py --port 8090

It binds to 127.0.0.1 only. Endpoints:

    GET /events?count=N&delay=S&tag=T&retry=MS&ping=S
        N events (default 5, at most 100000), S seconds apart (default 0.05, at most 5), each
        "event: tick", "id: <i>", "data: {"index": i, "tag": T}", i counting from 1, or from one
        past the Last-Event-ID request header's number when there is one (a resumed stream).
        retry=MS adds "retry: MS" (0 too) to the first event; ping=S sends the library's ": ping"
        comment every S seconds (default: none); pad=B adds "pad": B spaces to each event's data
        (at most 4 MiB), for streams of large events; idsuffix=X appends X (at most 8 KiB) to each
        id, and adds "lastEventID": the request's Last-Event-ID or null to each event's data, so
        that a test sees which IDs come back. The stream ends after the last event.
    GET /closed?tag=T
        {"tag", "disconnected", "completed", "active"}: of the /events streams with that tag
        (every stream when no tag is given), how many ended because the client closed the
        connection (sse-starlette's disconnect detection), how many sent all their events, and
        how many are still running. Poll it: the server notices a disconnect within moments.
    GET /health
        200, text/plain "ok"
"""

import argparse
import asyncio
import json
import math
import threading
from collections import Counter

import uvicorn
from sse_starlette import EventSourceResponse, ServerSentEvent
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse
from starlette.routing import Route

# Stream outcomes per tag: "disconnected", "completed", "active".
outcomes: dict[str, Counter] = {}
outcomes_lock = threading.Lock()


def record(tag, outcome, delta=1):
    with outcomes_lock:
        outcomes.setdefault(tag, Counter())[outcome] += delta


def bad_request(message):
    return PlainTextResponse(message + "\n", status_code=400)


def number(request, name, default, low, high, kind=float):
    """The query parameter `name` as a number between low and high; raises ValueError."""
    try:
        value = kind(request.query_params.get(name, default))
    except (TypeError, ValueError):
        raise ValueError(name) from None
    if not (math.isfinite(value) and low <= value <= high):
        raise ValueError(name)
    return value


async def events(request: Request):
    try:
        count = number(request, "count", 5, 0, 100_000, int)
        delay = number(request, "delay", 0.05, 0, 5)
        retry = number(request, "retry", -1, -1, 3_600_000, int)
        ping = number(request, "ping", 0, 0, 60)
        pad = number(request, "pad", 0, 0, 4 << 20, int)
    except ValueError as error:
        return bad_request(f"{error} is not a number in range")
    retry = None if retry < 0 else retry
    tag = request.query_params.get("tag", "")
    id_suffix = request.query_params.get("idsuffix")
    if id_suffix is not None and len(id_suffix) > 8192:
        return bad_request("idsuffix is over 8 KiB")
    try:
        first = int(request.headers.get("last-event-id", "0")) + 1
    except ValueError:
        first = 1
    record(tag, "active")
    disconnect = {"seen": False}
    padding = {"pad": " " * pad} if pad else {}
    echo = {"lastEventID": request.headers.get("last-event-id")} if id_suffix is not None else {}

    async def on_disconnect(_message):
        disconnect["seen"] = True  # sse-starlette saw the client go (http.disconnect)

    async def generate():
        finished = False
        try:
            for index in range(first, first + count):
                if index > first and delay:
                    await asyncio.sleep(delay)
                yield ServerSentEvent(data=json.dumps({"index": index, "tag": tag, **padding, **echo}), event="tick",
                                      id=str(index) + (id_suffix or ""), retry=retry if index == first else None)
            finished = True
        finally:  # also when the library cancels the stream because the client went away
            record(tag, "active", -1)
            record(tag, "completed" if finished and not disconnect["seen"] else "disconnected")

    return EventSourceResponse(generate(), ping=ping, client_close_handler_callable=on_disconnect)


async def closed(request: Request):
    tag = request.query_params.get("tag")
    with outcomes_lock:
        counters = [outcomes.get(tag, Counter())] if tag is not None else list(outcomes.values())
        total = sum(counters, Counter())
    return JSONResponse({"tag": tag, "disconnected": total["disconnected"], "completed": total["completed"],
                         "active": total["active"]})


async def health(_request: Request):
    return PlainTextResponse("ok")


app = Starlette(routes=[
    Route("/events", events),
    Route("/closed", closed),
    Route("/health", health),
])


def main():
    parser = argparse.ArgumentParser(description="Kilo's server-sent events test server (sse-starlette).")
    parser.add_argument("--port", type=int, default=8090)
    port = parser.parse_args().port
    print(f"Kilo SSE server on http://127.0.0.1:{port}/", flush=True)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", timeout_graceful_shutdown=2)


if __name__ == "__main__":
    main()

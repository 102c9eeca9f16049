#!/usr/bin/env python3
"""A client.process for faultline's demo store, in Python with only the
standard library: the template for driving your own system through its
official client library in any language.

faultline starts one of these per worker process and speaks JSON lines
with it (docs/client-process.md has the whole protocol):

  <- {"type": "open", "node": "n1", "process": 0, "addr": "127.0.0.1:41234",
      "nodes": [{"name": "n1", "addr": ...}, ...]}
  -> {"type": "ok"}
  <- {"type": "invoke", "f": "cas", "key": 3, "value": [1, 2], ...}
  -> {"type": "ok" | "fail" | "info", "value": ..., "error": ..., extra fields}
  <- {"type": "close"}

stdout carries replies only; anything else goes to stderr, which faultline
keeps in the run's logs/client-process/. The connection to the node lives
as long as the process: a session, as a real client library keeps one.
"""
import http.client
import json
import sys

TIMEOUT = 1.0  # seconds per HTTP request; faultline's own op timeout is longer


def log(*args):
    print(*args, file=sys.stderr, flush=True)


def reply(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


class Store:
    """HTTP connections to the demo store, one per node, kept open."""

    def __init__(self, node, addrs):
        self.node = node
        self.addrs = addrs  # node name -> host:port (through faultline's proxy mesh on --local)
        self.conns = {}

    def request(self, node, method, path, body):
        """Returns (status, parsed JSON body or text); status 0 means no answer."""
        conn = self.conns.get(node)
        if conn is None:
            conn = http.client.HTTPConnection(self.addrs[node], timeout=TIMEOUT)
            self.conns[node] = conn
        try:
            data = None if body is None else json.dumps(body)
            conn.request(method, path, body=data, headers={"Content-Type": "application/json"})
            resp = conn.getresponse()
            text = resp.read().decode()
        except (OSError, http.client.HTTPException) as e:
            # A broken connection: drop it, the next request dials again.
            conn.close()
            self.conns.pop(node, None)
            return 0, "%s: %s" % (type(e).__name__, e)
        try:
            return resp.status, json.loads(text)
        except ValueError:
            return resp.status, text


def invoke(store, op):
    f, key = op["f"], op.get("key")
    path = "/kv/" + ("r" if key is None else str(key))
    if f == "read":
        method, body = "GET", None
    elif f == "write":
        method, body = "PUT", {"value": op["value"]}
    elif f == "cas":
        method, body, path = "POST", {"from": op["value"][0], "to": op["value"][1]}, path + "/cas"
    else:
        return {"type": "fail", "error": "the demo store has no operation %r" % f}

    served_by = store.node
    status, resp = store.request(store.node, method, path, body)
    if status == 503 and isinstance(resp, dict):
        # A follower refused before doing anything and named the leader: ask it.
        leader = resp.get("leader", "")
        if leader and leader != store.node and leader in store.addrs:
            served_by = leader
            status, resp = store.request(leader, method, path, body)

    if status == 0:
        # No answer: a read had no effect either way; a write may have
        # reached the leader's log.
        return {"type": "fail" if f == "read" else "info", "error": resp}
    if status == 200:
        # served_by is an extra field: it lands in history.jsonl with the op.
        if f == "read":
            return {"type": "ok", "value": resp.get("value"), "served_by": served_by}
        return {"type": "ok", "served_by": served_by}  # keeps the written value
    if status == 409 and f == "cas":
        return {"type": "fail", "error": "cas: value did not match"}
    detail = resp.get("error", resp) if isinstance(resp, dict) else str(resp).strip()
    msg = "HTTP %d: %s" % (status, detail)
    # 4xx and 503 are refusals before anything happened; other 5xx (504
    # "indeterminate") leave a write's fate open.
    if f == "read" or status < 500 or status == 503:
        return {"type": "fail", "error": msg}
    return {"type": "info", "error": msg}


def main():
    store = None
    for line in sys.stdin:
        msg = json.loads(line)
        if msg["type"] == "open":
            addrs = {n["name"]: n["addr"] for n in msg["nodes"]}
            store = Store(msg["node"], addrs)
            log("process %d talks to %s at %s" % (msg["process"], msg["node"], msg["addr"]))
            reply({"type": "ok"})
        elif msg["type"] == "invoke":
            reply(invoke(store, msg))
        elif msg["type"] == "close":
            break


if __name__ == "__main__":
    main()

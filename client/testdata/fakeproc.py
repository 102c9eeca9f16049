"""A client.process for client/process_test.go: a register in memory that
misbehaves on request. The op's f picks the behaviour:

  read / write   a register (read replies with its value, write with an
                 extra field "seq" counting writes)
  echo           replies with the op it was given, type ok
  nested-extra   replies ok with extra fields as an "extra" object
  crash          exits 3 without replying, after a line on stderr
  hang           never replies
  garbage        replies with a line that is not JSON
  steal-key      replies changing the op's key

FAKE_OPEN=refuse makes the open reply fail.
"""
import json
import os
import sys
import time

state = {"value": None, "seq": 0}


def reply(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    msg = json.loads(line)
    t = msg["type"]
    if t == "open":
        if os.environ.get("FAKE_OPEN") == "refuse":
            reply({"type": "fail", "error": "no connection to " + msg["node"]})
        else:
            print("opened %s as process %d with %d nodes" % (msg["node"], msg["process"], len(msg["nodes"])), file=sys.stderr)
            reply({"type": "ok"})
    elif t == "close":
        print("closing", file=sys.stderr)
        break
    elif t == "invoke":
        f = msg["f"]
        if f == "read":
            reply({"type": "ok", "value": state["value"]})
        elif f == "write":
            state["value"] = msg["value"]
            state["seq"] += 1
            reply({"type": "ok", "seq": state["seq"]})
        elif f == "echo":
            reply(dict(msg, type="ok"))
        elif f == "crash":
            print("about to crash on purpose", file=sys.stderr)
            sys.stderr.flush()
            os._exit(3)
        elif f == "hang":
            time.sleep(3600)
        elif f == "garbage":
            sys.stdout.write("this is not json\n")
            sys.stdout.flush()
        elif f == "nested-extra":
            reply({"type": "ok", "extra": {"zxid": 12}})
        elif f == "steal-key":
            reply({"type": "ok", "key": "somebody-else"})
        else:
            reply({"type": "fail", "error": "unknown f " + f})

"""A client.exec command for the benchmark in process_bench_test.go: reads
the op on stdin and answers ok with no value, as fakeproc.py's write does."""
import json
import sys

json.load(sys.stdin)
sys.stdout.write('{"type": "ok"}\n')

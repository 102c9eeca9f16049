#!/bin/sh
# A register kept in a file, the system under test of exec_test.go's
# client.exec suite. The op arrives as JSON on stdin ({"f", "value", ...});
# $1 is the directory holding the state. It answers by client.exec's
# convention:
#   read   prints the register's value (a bare JSON value: ok)
#   write  prints nothing (ok, the invocation's value kept); every fifth
#          write's acknowledgement is lost: it is applied, then exits 3
#          (info: the outcome is unknown to the client)
#   cas    [old, new]: exit 0 when the register held old, else exit 1 with
#          {"error": ...} on stdout (fail: definitely not applied)
# flock makes each op atomic, so the register is linearizable.
set -eu
state=$1
# One jq for the whole op: f, the value, and a cas's old and new.
eval "$(jq -r '@sh "f=\(.f) v=\(.value | tojson) old=\(if (.value | type) == "array" then .value[0] else null end | tojson) new=\(if (.value | type) == "array" then .value[1] else null end | tojson)"')"
exec 9>"$state/lock"
flock 9
cur=$(cat "$state/register" 2>/dev/null || echo null)
put() {
	printf '%s\n' "$1" >"$state/register.tmp"
	mv "$state/register.tmp" "$state/register"
}
case $f in
read)
	printf '%s\n' "$cur"
	;;
write)
	put "$v"
	n=$(($(cat "$state/writes" 2>/dev/null || echo 0) + 1))
	echo "$n" >"$state/writes"
	if [ $((n % 5)) -eq 0 ]; then
		echo "write $n applied, acknowledgement lost" >&2
		exit 3
	fi
	;;
cas)
	if [ "$cur" != "$old" ]; then
		printf '{"error": "cas: the register is %s, not %s"}\n' "$cur" "$old"
		exit 1
	fi
	put "$new"
	;;
*)
	echo "unknown f $f" >&2
	exit 2
	;;
esac

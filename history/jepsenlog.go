package history

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// logMarkers precede the op text on a jepsen.util log line: log4j's
// "INFO  jepsen.util - 2\t:invoke ..." (as in porcupine's etcd corpus) and
// unilog's "INFO [date] jepsen worker 2 - jepsen.util 2\t:invoke ...".
var logMarkers = [...][]byte{[]byte("jepsen.util - "), []byte(" - jepsen.util ")}

// logMarkerEnd returns the offset just past the jepsen.util marker, or -1.
func logMarkerEnd(line []byte) int {
	for _, m := range logMarkers {
		if i := bytes.Index(line, m); i >= 0 {
			return i + len(m)
		}
	}
	return -1
}

// readJepsenLog reads the ops logged by jepsen.util: one
// "process type f value [error]" line each, fields separated by tabs or
// spaces. Other lines are skipped.
func readJepsenLog(data []byte) ([]Op, []int, error) {
	var ops []Op
	var lines []int
	r := ednReader{line: true} // one reader, so keywords are shared across lines
	for off, lineNo := 0, 1; off < len(data); lineNo++ {
		line, next := nextLine(data, off)
		off = next
		start := logMarkerEnd(line)
		if start < 0 {
			continue
		}
		r.data, r.pos, r.depth = line, start, 0
		op, err := r.readLogOp(int64(len(ops)))
		if err != nil {
			err.Line = lineNo
			return nil, nil, err
		}
		ops, lines = append(ops, op), append(lines, lineNo)
	}
	return ops, lines, nil
}

// logFields are the EDN values of a log line, in order, with what each must be.
var logFields = [...]struct {
	f    field
	want string
}{
	{fieldProcess, "a process number, :nemesis or nil"},
	{fieldType, "an op type (:invoke, :ok, :fail or :info)"},
	{fieldF, "the op's function, such as :read"},
	{fieldValue, "the op's value"},
}

// readLogOp parses the op text of the line in r.data from r.pos on. Each field
// is an EDN value; whatever follows the value is the error: an EDN value when
// it is exactly one, else the raw text (Jepsen prints string errors unquoted).
func (r *ednReader) readLogOp(ordinal int64) (Op, *ParseError) {
	start := r.pos
	b := opBuilder{edn: true}
	for _, lf := range logFields {
		if err := r.skip(); err != nil {
			return Op{}, err
		}
		if r.eof() {
			return Op{}, r.errorf(r.pos, "expected %s, found %s", lf.want, r.found())
		}
		off := r.pos
		v, err := r.readValue()
		if err != nil {
			return Op{}, err
		}
		if err := b.set(lf.f, fieldNames[lf.f], v); err != nil {
			return Op{}, r.errorf(off, "%v", err)
		}
	}
	if rest := bytes.TrimSpace(r.data[r.pos:]); len(rest) > 0 {
		er := ednReader{data: rest}
		v, err := er.readValue()
		if err != nil || er.pos != len(rest) {
			v = strings.ToValidUTF8(string(rest), string(utf8.RuneError))
		}
		b.op.Error = v
	}
	op, err := b.finish(ordinal)
	if err != nil {
		return Op{}, r.errorf(start, "%v", err)
	}
	return op, nil
}

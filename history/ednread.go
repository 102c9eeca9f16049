package history

import "bytes"

// readEDN reads a Jepsen EDN history: a sequence of top-level forms, each an op
// map (optionally tagged, as in #jepsen.history.Op{...}) or a vector or list of
// op maps. One map per line and one big vector are both such sequences.
func readEDN(data []byte) ([]Op, []int, error) {
	r := ednReader{data: data}
	ops := make([]Op, 0, bytes.Count(data, []byte{'\n'})+1)
	lines := make([]int, 0, cap(ops))
	at := lineCounter{data: data}
	for {
		if err := r.skip(); err != nil {
			return nil, nil, err
		}
		if r.eof() {
			return ops, lines, nil
		}
		c := r.data[r.pos]
		if c != '[' && c != '(' {
			lines = append(lines, at.line(r.pos))
			op, err := r.readOpForm(int64(len(ops)))
			if err != nil {
				return nil, nil, err
			}
			ops = append(ops, op)
			continue
		}
		open, closer, kind := r.pos, byte(']'), "vector"
		if c == '(' {
			closer, kind = ')', "list"
		}
		r.pos++
		for {
			done, err := r.closeOrNext(closer, kind, open)
			if err != nil {
				return nil, nil, err
			}
			if done {
				break
			}
			lines = append(lines, at.line(r.pos))
			op, err := r.readOpForm(int64(len(ops)))
			if err != nil {
				return nil, nil, err
			}
			ops = append(ops, op)
		}
	}
}

// readOpForm reads an op map, skipping a record tag in front of it.
func (r *ednReader) readOpForm(ordinal int64) (Op, *ParseError) {
	if r.data[r.pos] == '#' && r.pos+1 < len(r.data) && isTagStart(r.data[r.pos+1]) {
		r.pos++
		r.token()
		if err := r.skip(); err != nil {
			return Op{}, err
		}
	}
	if r.eof() || r.data[r.pos] != '{' {
		return Op{}, r.errorf(r.pos, "expected an op map {:type ..., :process ...} or a vector of them, found %s", r.found())
	}
	return r.readOp(ordinal)
}

// readOp reads the op map at '{', converting fields as it meets them so that
// errors point at the offending value.
func (r *ednReader) readOp(ordinal int64) (Op, *ParseError) {
	open := r.pos
	if err := r.enter(open); err != nil {
		return Op{}, err
	}
	r.pos++
	b := opBuilder{edn: true}
	for {
		done, err := r.closeOrNext('}', "op map", open)
		if err != nil {
			return Op{}, err
		}
		if done {
			break
		}
		keyOff := r.pos
		f, name, err := r.readOpKey()
		if err != nil {
			return Op{}, err
		}
		if b.dup(f, name) {
			return Op{}, r.errorf(keyOff, "duplicate key :%s in op map", name)
		}
		if err := r.readField(&b, f, name); err != nil {
			if r.eof() {
				err.Msg += " (the op map opened at " + r.where(open) + " is incomplete)"
			}
			return Op{}, err
		}
	}
	r.leave()
	op, err := b.finish(ordinal)
	if err != nil {
		return Op{}, r.errorf(open, "%v", err)
	}
	return op, nil
}

// readField reads the value of an op key into b. Integers and strings of the
// scalar core fields skip the boxed generic path.
func (r *ednReader) readField(b *opBuilder, f field, name string) *ParseError {
	if err := r.skip(); err != nil {
		return err
	}
	off := r.pos
	if r.eof() || r.data[r.pos] == '}' {
		return r.errorf(r.pos, "expected a value for key :%s, found %s", name, r.found())
	}
	var err error
	switch c := r.data[r.pos]; {
	case isIntField(f) && r.startsNumber():
		text, kind, perr := r.scanNumber()
		if perr != nil {
			return perr
		}
		if n, ok := parseDecimal(text); kind == numInt && ok {
			err = b.setInt(f, n)
			break
		}
		v, msg := parseNumber(text, kind)
		if msg != "" {
			return r.errorf(off, "%s", msg)
		}
		err = b.set(f, name, v)
	case isTextField(f) && c == '"':
		text, perr := r.readStringBytes()
		if perr != nil {
			return perr
		}
		err = b.setText(f, r.strs.intern(text), false)
	default:
		v, perr := r.readValue()
		if perr != nil {
			return perr
		}
		err = b.set(f, name, v)
	}
	if err != nil {
		return r.errorf(off, "%v", err)
	}
	return nil
}

// readOpKey reads a key of an op map: a keyword, or a string for symmetry with
// other maps. Core field names are not allocated.
func (r *ednReader) readOpKey() (field, string, *ParseError) {
	start := r.pos
	if r.data[r.pos] == ':' {
		r.pos++
		tok := r.token()
		if f := fieldOf(tok); f != fieldExtra {
			return f, fieldNames[f], nil
		}
		r.pos = start
	}
	k, err := r.readValue()
	if err != nil {
		return 0, "", err
	}
	name, ok := textOf(k)
	if !ok {
		return 0, "", r.errorf(start, "expected a keyword as op map key, found %s", describe(k, true))
	}
	return fieldOf(name), name, nil
}

package history

// AppendJSONValue appends v, a generic value, to dst in the JSONL history's
// value encoding, so other JSONL formats (the recorded schedule) read values
// back exactly as history.jsonl does: integers stay int64, floats keep a
// fraction or exponent, non-finite floats become "NaN"/"+Inf"/"-Inf",
// keywords become strings and sets arrays, map keys are sorted. A value
// outside the generic model is written as its fmt.Sprint string and
// reported as an error.
func AppendJSONValue(dst []byte, v any) ([]byte, error) {
	e := jsonEncoder{encoder{buf: dst}}
	e.value(v)
	return e.buf, e.err
}

// ParseJSONValue parses data, which must hold exactly one JSON value, into a
// generic value as the JSONL history reader does: integers are int64, other
// numbers float64, arrays []any, objects map[string]any. Errors are
// *ParseError with positions relative to data.
func ParseJSONValue(data []byte) (any, error) {
	r := jsonReader{data: data}
	v, err := r.readValue()
	if err != nil {
		return nil, err
	}
	r.skipSpace()
	if r.pos < len(r.data) {
		return nil, r.errorf(r.pos, "expected the end of the value, found %s", r.found())
	}
	return v, nil
}

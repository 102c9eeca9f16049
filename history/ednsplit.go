package history

import (
	"bytes"
	"runtime"
	"runtime/debug"
	"sync"
)

// splitMinBytes is the size from which readEDN reads a one-op-per-line
// history in pieces on every core: below it the handoff costs more than it
// saves. A variable so tests can split small inputs.
var splitMinBytes = 8 << 20

// readEDNSplit reads data in pieces, one goroutine each, when it is a
// sequence of top-level op maps one per line (what Jepsen writes). Each
// piece starts at a line that begins with '{' or '#'; the split is kept only
// when the piece before it, read from a point known to be between forms,
// ends exactly there between forms, so a piece boundary inside a string, a
// multi-line map or a vector of ops is detected and the whole input is read
// in one piece instead. ok is false when it was not split, and then nothing
// was decided: errors, too, are left to the one-piece read, so they are
// exactly its errors.
func readEDNSplit(data []byte) (ops []Op, lines []int, ok bool) {
	procs := runtime.GOMAXPROCS(0)
	if procs < 2 || len(data) < splitMinBytes {
		return nil, nil, false
	}
	bounds := []int{0}
	for i := 1; i < procs; i++ {
		at := len(data) * i / procs
		j := bytes.IndexByte(data[at:], '\n')
		for j >= 0 {
			p := at + j + 1
			if p < len(data) && (data[p] == '{' || data[p] == '#') {
				if p > bounds[len(bounds)-1] {
					bounds = append(bounds, p)
				}
				break
			}
			at = p
			j = bytes.IndexByte(data[at:], '\n')
		}
	}
	if len(bounds) < 2 {
		return nil, nil, false
	}
	bounds = append(bounds, len(data))
	// Every piece reads into its own region of one array, sized by its
	// lines (an op starts a line at most once), and the regions are then
	// closed up in place: no second copy of a million ops.
	regions := make([]int, len(bounds))
	for i := 1; i < len(bounds); i++ {
		regions[i] = regions[i-1] + bytes.Count(data[bounds[i-1]:bounds[i]], []byte{'\n'}) + 1
	}
	all, allLines := make([]Op, regions[len(regions)-1]), make([]int, regions[len(regions)-1])
	pieces := make([]piece, len(bounds)-1)
	var wg sync.WaitGroup
	for i := range pieces {
		wg.Go(func() {
			// data may be a mapped file (ReadFile): a fault reading it is
			// handed to the caller, which turns it into an error.
			defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
			defer func() {
				if e := recover(); e != nil {
					if !isFault(e) {
						panic(e)
					}
					pieces[i] = piece{fault: e}
				}
			}()
			pieceStarted()
			lo, hi := regions[i], regions[i+1]
			// regions counted every newline before the piece: lo - i of them.
			pieces[i] = readPiece(data, bounds[i], bounds[i+1], lo-i, all[lo:lo:hi], allLines[lo:lo:hi])
		})
	}
	wg.Wait()
	for _, p := range pieces {
		if p.fault != nil {
			panic(p.fault)
		}
	}
	n := 0
	for i, p := range pieces {
		if !p.ok {
			return nil, nil, false
		}
		for _, d := range p.defaulted {
			op := &p.ops[d.at]
			if d.index {
				op.Index += int64(n)
			}
			if d.time {
				op.Time += int64(n)
			}
		}
		copy(all[n:], all[regions[i]:regions[i]+len(p.ops)])
		copy(allLines[n:], allLines[regions[i]:regions[i]+len(p.ops)])
		n += len(p.ops)
	}
	clear(all[n:]) // drop what the moved ops still reference
	return all[:n:n], allLines[:n:n], true
}

// pieceStarted is called by each goroutine of a split read before it reads
// its piece; a test shrinks a mapped file there.
var pieceStarted = func() {}

// piece is what one goroutine read of data[start:end].
type piece struct {
	ops       []Op
	lines     []int
	defaulted []defaulted
	ok        bool
	fault     any // a memory fault reading data, recovered
}

// defaulted is an op whose index or time the reader filled with its
// ordinal, which within a piece counts from the piece's first op.
type defaulted struct {
	at          int
	index, time bool
}

// readPiece reads the op maps from start, which is between top-level forms,
// to end, appending to ops and lines (which have room for them);
// newlinesBefore counts the newlines before start, so lines are numbered
// without scanning the input before the piece again. ok says every form was
// an op map and the last ended before end, with only blanks and comments
// between it and end.
func readPiece(data []byte, start, end, newlinesBefore int, ops []Op, lines []int) piece {
	r := ednReader{data: data, pos: start}
	at := lineCounter{data: data, off: start, n: newlinesBefore}
	p := piece{ops: ops, lines: lines}
	for {
		if r.skip() != nil {
			return piece{}
		}
		if r.pos >= end {
			p.ok = r.pos == end || (end == len(data) && r.eof())
			return p
		}
		if c := r.data[r.pos]; c == '[' || c == '(' {
			return piece{} // a vector of ops: read in one piece
		}
		p.lines = append(p.lines, at.line(r.pos))
		ordinal := int64(len(p.ops))
		op, err := r.readOpForm(ordinal)
		if err != nil || r.pos > end {
			return piece{}
		}
		if r.defaultedIndex || r.defaultedTime {
			p.defaulted = append(p.defaulted, defaulted{at: len(p.ops), index: r.defaultedIndex, time: r.defaultedTime})
		}
		p.ops = append(p.ops, op)
	}
}

package history

// MapFiles turns ReadFile's mapping of files on or off for a test and
// returns a function that restores the previous setting.
func MapFiles(on bool) (restore func()) {
	was := mapFiles
	mapFiles = on
	return func() { mapFiles = was }
}

// OnMapped calls fn with each file ReadFile maps, before it is parsed,
// until restore is called.
func OnMapped(fn func(data []byte)) (restore func()) {
	was := mapped
	mapped = fn
	return func() { mapped = was }
}

// OnPieceStarted calls fn as each goroutine of a split read starts, until
// restore is called.
func OnPieceStarted(fn func()) (restore func()) {
	was := pieceStarted
	pieceStarted = fn
	return func() { pieceStarted = was }
}

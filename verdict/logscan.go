package verdict

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// LogAlarmPattern is the case-insensitive extended regular expression a SUT
// log grep uses for red flag #7 (§3.1: panic, exception, "Internal error"),
// for greps that run on the nodes (grep -ciE).
const LogAlarmPattern = "panic|exception|internal error"

// logAlarms are LogAlarmPattern's alternatives, lower case.
var logAlarms = [...]string{"panic", "exception", "internal error"}

// MatchLogLine reports the first alarm of LogAlarmPattern that line contains,
// ignoring ASCII case, for greps that run on the controller. It does not
// allocate.
func MatchLogLine(line []byte) (string, bool) {
	for i, c := range line {
		var a string
		switch c | 0x20 { // the alarms start with distinct letters; this folds them
		case 'p':
			a = logAlarms[0]
		case 'e':
			a = logAlarms[1]
		case 'i':
			a = logAlarms[2]
		default:
			continue
		}
		if hasFoldPrefix(line[i:], a) {
			return a, true
		}
	}
	return "", false
}

// hasFoldPrefix reports whether b starts with lower-case ASCII s, ignoring case.
func hasFoldPrefix(b []byte, s string) bool {
	if len(b) < len(s) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != s[i] {
			return false
		}
	}
	return true
}

// ScanLogFiles greps every file under dir for LogAlarmPattern (red flag #7),
// keeping a few matching lines as samples named relative to dir. A dir with
// no files is not a scan: Scanned stays false, so the audit cannot judge.
func ScanLogFiles(dir string) (LogScan, error) {
	var l LogScan
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		rel, _ := filepath.Rel(dir, path)
		l.Files++
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 64*1024), 1024*1024)
		for n := 1; sc.Scan(); n++ {
			l.Lines++
			if _, hit := MatchLogLine(sc.Bytes()); hit {
				l.Matches++
				if len(l.Samples) < 3 {
					l.Samples = append(l.Samples, fmt.Sprintf("%s:%d: %s", rel, n, sc.Text()))
				}
			}
		}
		return sc.Err()
	})
	if err != nil {
		return l, fmt.Errorf("scan logs: %w", err)
	}
	l.Scanned = l.Files > 0
	return l, nil
}

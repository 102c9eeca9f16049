package logaudit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeLog(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestFiles: every declared log is accounted for; matches are all counted,
// a bounded number quoted with file:line and the alarm; expected lines are
// excused and counted; a log not read is named with why.
func TestFiles(t *testing.T) {
	dir := t.TempDir()
	var many strings.Builder
	for i := 0; i < 8; i++ {
		many.WriteString("INFO ok\npanic: runtime error: boom\n")
	}
	clean := writeLog(t, dir, "clean.log", "INFO started\nWARN java.net.ConnectException: Connection refused\nERROR x KeeperException$ConnectionLossException\n")
	npe := writeLog(t, dir, "npe.log", "INFO started\nERROR [SyncThread:1] java.lang.NullPointerException\n")
	empty := writeLog(t, dir, "empty.log", "")
	manyLog := writeLog(t, dir, "many.log", many.String())
	noEOL := writeLog(t, dir, "noeol.log", "INFO a\r\npanic: last line without newline")

	strict := Spec{Alarms: []string{`\bERROR\b`}, Expected: []string{`ConnectionLossException`}}
	t.Run("clean with expected", func(t *testing.T) {
		l, err := Files(strict, []File{{Name: "n1/zk.log", Path: clean}})
		if err != nil {
			t.Fatal(err)
		}
		if !l.Scanned || l.Files != 1 || l.Lines != 3 || l.Matches != 0 || l.Excused != 1 || len(l.Unread) != 0 {
			t.Fatalf("%+v", l)
		}
		if !strings.Contains(l.ExcusedSample, "n1/zk.log:3:") || !strings.Contains(l.ExcusedSample, "expected `ConnectionLossException`") {
			t.Errorf("excused sample %q", l.ExcusedSample)
		}
	})
	t.Run("unexpected NPE", func(t *testing.T) {
		l, _ := Files(strict, []File{{Name: "n1/zk.log", Path: clean}, {Name: "n2/zk.log", Path: npe}})
		if l.Matches != 1 || l.Files != 2 || len(l.Samples) != 1 || !strings.HasPrefix(l.Samples[0], "n2/zk.log:2: ERROR [SyncThread:1] java.lang.NullPointerException [alarm `java\\.lang\\.(?:NullPointer") {
			t.Fatalf("%+v", l)
		}
	})
	t.Run("matches counted, quotes bounded", func(t *testing.T) {
		l, _ := Files(Spec{}, []File{{Name: "n1/app.log", Path: manyLog}})
		if l.Matches != 8 || len(l.Samples) != 5 || l.ByAlarm[`\bpanic: `] != 8 || l.Lines != 16 {
			t.Fatalf("%+v", l)
		}
		if !strings.HasPrefix(l.Samples[4], "n1/app.log:10: panic: runtime error: boom [alarm `\\bpanic: `, default (Go)]") {
			t.Errorf("fifth sample %q", l.Samples[4])
		}
	})
	t.Run("last line without newline, CRLF", func(t *testing.T) {
		l, _ := Files(Spec{}, []File{{Name: "x.log", Path: noEOL}})
		if l.Lines != 2 || l.Matches != 1 || !strings.HasPrefix(l.Samples[0], "x.log:2: panic: last line") {
			t.Fatalf("%+v", l)
		}
	})
	t.Run("not read is not clean", func(t *testing.T) {
		l, _ := Files(Spec{}, []File{
			{Name: "n1/app.log", Path: empty},
			{Name: "n2/app.log", Path: filepath.Join(dir, "absent.log")},
			{Name: "n3/app.log", Err: "download: no such file"},
			{Name: "n4/app.log", Path: clean},
		})
		want := []string{
			"n1/app.log: empty (the system wrote nothing there: a log with no line proves nothing)",
			"n2/app.log: missing",
			"n3/app.log: download: no such file",
		}
		if strings.Join(l.Unread, "\n") != strings.Join(want, "\n") || l.Files != 1 || l.Lines != 3 {
			t.Fatalf("%+v", l)
		}
	})
	t.Run("none", func(t *testing.T) {
		l, _ := Files(Spec{None: "a managed service"}, nil)
		if l.None != "a managed service" || l.Scanned {
			t.Fatalf("%+v", l)
		}
	})
}

// TestLongLine: a line longer than the read buffer is audited whole, under
// one line number.
func TestLongLine(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("x", 3<<20) + " panic: late\nnext\n"
	p := writeLog(t, dir, "long.log", long)
	l, _ := Files(Spec{}, []File{{Name: "long.log", Path: p}})
	if l.Lines != 2 || l.Matches != 1 || !strings.HasPrefix(l.Samples[0], "long.log:1: ") || len(l.Samples[0]) > 400 {
		t.Fatalf("lines %d, matches %d, samples %.80q", l.Lines, l.Matches, l.Samples)
	}
}

// Package report writes a run's session directory: the layout of the plan
// spec §8.2, the session log with its timeline, and results.json.
package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"
)

// Session is one session directory: <root>/<slug>/<UTC yyyymmddThhmmssZ>/.
type Session struct {
	Dir     string
	Slug    string
	Started time.Time

	mu       sync.Mutex
	timeline []TimelineRow
}

// TimelineRow is one line of the session log's append-only timeline.
type TimelineRow struct {
	Time     time.Time
	Scenario string
	Event    string
	Notes    string
}

// Subdirectories of every session.
var subdirs = []string{"logs", "metrics", "artifacts", "findings"}

var slugUnsafe = regexp.MustCompile(`[^a-z0-9._-]+`)

// Slug turns a plan or script file name into the session's directory name.
// It never starts or ends with a dot, so a file named "...star" cannot make
// the slug "..", a session directory above the sessions root.
func Slug(path string) string {
	base := strings.ToLower(strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)))
	s := strings.Trim(slugUnsafe.ReplaceAllString(base, "-"), "-.")
	if s == "" {
		return "session"
	}
	return s
}

// NewSession creates the session directory and its subdirectories. Two
// sessions started in the same second get distinct directories.
func NewSession(root, slug string, now time.Time) (*Session, error) {
	now = now.UTC()
	return newSessionAt(filepath.Join(root, slug, now.Format("20060102T150405Z")), slug, now)
}

// NewSessionBeside creates a session that derives from the session at
// original (a replay or reduction of it) in the same <root>/<slug>/
// directory, named <UTC time>-<kind>, so a run and what was made of it are
// listed together.
func NewSessionBeside(original, kind string, now time.Time) (*Session, error) {
	now = now.UTC()
	parent := filepath.Dir(filepath.Clean(original))
	return newSessionAt(filepath.Join(parent, now.Format("20060102T150405Z")+"-"+kind), filepath.Base(parent), now)
}

// newSessionAt creates base (or base-2, base-3, ... when it exists) with the
// session subdirectories.
func newSessionAt(base, slug string, now time.Time) (*Session, error) {
	dir := base
	for i := 2; ; i++ {
		err := os.MkdirAll(filepath.Dir(dir), 0o755)
		if err == nil {
			err = os.Mkdir(dir, 0o755)
		}
		if err == nil {
			break
		}
		if !os.IsExist(err) {
			return nil, fmt.Errorf("create session directory: %w", err)
		}
		dir = fmt.Sprintf("%s-%d", base, i)
	}
	for _, d := range subdirs {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			return nil, fmt.Errorf("create session directory: %w", err)
		}
	}
	return &Session{Dir: dir, Slug: slug, Started: now}, nil
}

// ArtifactDir is where a scenario's history and checker output go.
func (s *Session) ArtifactDir(scenario string) string {
	return filepath.Join(s.Dir, "artifacts", scenario)
}

// Event appends a timeline row; the session log is rewritten at each call so
// the timeline on disk is current even if the controller is killed.
func (s *Session) Event(scenario, event, notes string, header Header) error {
	s.mu.Lock()
	s.timeline = append(s.timeline, TimelineRow{Time: time.Now().UTC(), Scenario: scenario, Event: event, Notes: notes})
	rows := append([]TimelineRow(nil), s.timeline...)
	s.mu.Unlock()
	return s.writeLog(header, rows, nil)
}

// WriteJSON writes v as indented JSON to name inside the session directory,
// atomically (a temporary file renamed into place).
func (s *Session) WriteJSON(name string, v any) error {
	var b bytes.Buffer
	if err := EncodeJSON(&b, v); err != nil {
		return fmt.Errorf("encode %s: %w", name, err)
	}
	return writeAtomic(filepath.Join(s.Dir, name), b.Bytes())
}

// EncodeJSON writes v as one indented JSON document ending in a newline,
// as the session files and `-o json` print it: "<" and ">" stay
// themselves, since a person reads these, not an HTML page.
func EncodeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func writeAtomic(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// Package testfile reads files a test's run wrote and fails the test when
// they do not hold what it expects.
package testfile

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// MustContain fails t unless the file at path holds every one of wants.
func MustContain(t testing.TB, path string, wants ...string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range wants {
		if !strings.Contains(string(data), w) {
			t.Errorf("%s lacks %q", path, w)
		}
	}
}

// ReadJSON decodes the JSON file at path into v.
func ReadJSON(t testing.TB, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

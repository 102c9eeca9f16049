package history_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/faultline/faultline/history"
)

// mapTestFiles writes one file per format, each with ops of the kinds the
// readers convert (strings, keywords, nested values, extra fields), so a
// value that still pointed into the mapping would be caught once it is
// unmapped.
func mapTestFiles(t *testing.T) map[string]string {
	t.Helper()
	var edn, jsonl strings.Builder
	for i := 0; i < 300; i++ {
		fmt.Fprintf(&edn, "{:type :ok, :f :txn, :value [[:append %d %d] [:r \"k%d\" [\"a\" :b]]], :process %d, :node \"n%d\", :error [:timeout \"t%d\"], :note {:x \"y%d\"}}\n", i%7, i, i%5, i%10, i%3, i, i)
		fmt.Fprintf(&jsonl, "{\"index\":%d,\"time\":%d,\"process\":%d,\"type\":\"ok\",\"f\":\"read\",\"key\":\"k%d\",\"value\":[\"v%d\",{\"a\":\"b%d\"}],\"node\":\"n%d\"}\n", i, 10*i, i%4, i%5, i, i, i%3)
	}
	dir := t.TempDir()
	files := map[string]string{}
	for name, text := range map[string]string{"h.edn": edn.String(), "h.jsonl": jsonl.String(), "empty.edn": ""} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		files[name] = path
	}
	return files
}

// TestReadFileMapped wants ReadFile to read the same ops from a mapped file
// as from a copy of it, in one piece and split, and the ops to stay intact
// after the mapping is gone (garbage collection, then reading them again).
func TestReadFileMapped(t *testing.T) {
	for name, path := range mapTestFiles(t) {
		for _, split := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/split=%v", name, split), func(t *testing.T) {
				if split {
					defer history.SplitAlways()()
				} else {
					defer history.SplitNever()()
				}
				mapped, err := history.ReadFile(path, history.Auto)
				if err != nil {
					t.Fatal(err)
				}
				restore := history.MapFiles(false)
				copied, err := history.ReadFile(path, history.Auto)
				restore()
				if err != nil {
					t.Fatal(err)
				}
				runtime.GC()
				if !reflect.DeepEqual(mapped, copied) {
					t.Fatal("the mapped file read differently from its copy")
				}
				if name != "empty.edn" && len(mapped.Ops) != 300 {
					t.Fatalf("read %d ops, want 300", len(mapped.Ops))
				}
			})
		}
	}
}

// TestReadFileShrunk truncates a file after ReadFile mapped it: reading the
// mapping then faults, and ReadFile must return an error saying the file
// changed, in one piece and when the pieces are read on other goroutines,
// rather than crash the process.
func TestReadFileShrunk(t *testing.T) {
	path := mapTestFiles(t)["h.edn"]
	for _, split := range []bool{false, true} {
		t.Run(fmt.Sprintf("split=%v", split), func(t *testing.T) {
			if split {
				defer history.SplitAlways()()
			} else {
				defer history.SplitNever()()
			}
			orig, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			defer func() {
				if err := os.WriteFile(path, orig, 0o644); err != nil {
					t.Fatal(err)
				}
			}()
			// In one piece, the file shrinks to nothing before it is read;
			// split, it shrinks to its first page as the pieces start, so
			// every piece's goroutine faults.
			var mappedAt []byte
			var once sync.Once
			shrink := func(size int64) {
				once.Do(func() {
					if err := os.Truncate(path, size); err != nil {
						t.Error(err)
					}
				})
			}
			defer history.OnMapped(func(data []byte) {
				mappedAt = data
				if !split {
					shrink(0)
				}
			})()
			defer history.OnPieceStarted(func() { shrink(4096) })()
			f, err := history.ReadFile(path, history.Auto)
			if mappedAt == nil {
				t.Skip("this system reads files instead of mapping them") // mapfile_other.go
			}
			var pe *history.ParseError
			if err == nil || errors.As(err, &pe) || !strings.Contains(err.Error(), "changed while it was read") {
				t.Fatalf("got %v, %v; want the error that the file changed", f, err)
			}
		})
	}
}

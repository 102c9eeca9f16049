package nfdelay

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// Bad command lines fail before any socket is opened.
func TestMainFlags(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no queue", []string{"-delay", "10ms"}, "want a queue number"},
		{"queue too big", []string{"-q", "65536"}, "want a queue number"},
		{"bad duration", []string{"-q", "1", "-delay", "soon"}, "invalid value"},
		{"negative delay", []string{"-q", "1", "-delay", "-1s"}, "negative delay"},
		{"stray argument", []string{"-q", "1", "extra"}, "unexpected arguments"},
		{"unknown flag", []string{"-q", "1", "-loss", "1"}, "not defined"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stderr bytes.Buffer
			err := Main(context.Background(), tt.args, &stderr)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want it to mention %q", err, tt.want)
			}
		})
	}
}

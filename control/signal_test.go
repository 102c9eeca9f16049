package control

import "testing"

// Signal numbers are Linux's on every host, since nodes are Linux: on
// macOS 10 is BUS and USR1 is 30, which must not leak into a node command.
func TestSignalNameLinuxNumbering(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "TERM"},
		{"9", "KILL"},
		{"10", "USR1"},
		{"12", "USR2"},
		{"15", "TERM"},
		{"16", "STKFLT"},
		{"17", "CHLD"},
		{"18", "CONT"},
		{"19", "STOP"},
		{"30", "PWR"},
		{"31", "SYS"},
		{"term", "TERM"},
		{"SIGusr1", "USR1"},
		{"stkflt", "STKFLT"},
	}
	for _, tt := range tests {
		got, err := SignalName(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("SignalName(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"0", "32", "-1", "INFO", "EMT", "NOPE"} {
		if got, err := SignalName(bad); err == nil {
			t.Errorf("SignalName(%q) = %q, want an error", bad, got)
		}
	}
}

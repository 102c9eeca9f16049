package cluster

import "testing"

func TestInnermostPID(t *testing.T) {
	tests := []struct {
		status string
		pid    int
		ok     bool
	}{
		{"Name:\tsshd\nNSpid:\t8808\t1\nNSpgid:\t8808\t1\n", 1, true},
		{"NSpid:\t8807\n", 8807, true},
		{"NSpid:\t100\t20\t3", 3, true},
		{"Name:\tx\n", 0, false},
		{"NSpid:\n", 0, false},
		{"NSpid:\tx\n", 0, false},
		{"NSpid:\t0\n", 0, false},
		{"NSpid:\t-1\n", 0, false},
	}
	for _, tt := range tests {
		pid, ok := innermostPID([]byte(tt.status))
		if pid != tt.pid || ok != tt.ok {
			t.Errorf("innermostPID(%q) = %d, %v; want %d, %v", tt.status, pid, ok, tt.pid, tt.ok)
		}
	}
}

func TestArgvNamesConfig(t *testing.T) {
	cfgs := map[string]bool{"/s/n1/sshd_config": true}
	tests := []struct {
		argv string
		want bool
	}{
		{"/usr/sbin/sshd\x00-D\x00-e\x00-f\x00/s/n1/sshd_config\x00", true},
		{"/usr/bin/unshare\x00--uts\x00/bin/sh\x00-c\x00script\x00sh\x00n1\x00/s/n1\x00/usr/sbin/sshd\x00/s/n1/sshd_config\x00", true},
		{"vi\x00/s/n1/sshd_config\x00", false},                       // an editor on the config is not the node
		{"/usr/sbin/sshd\x00-f\x00/s/n1/sshd_config.bak\x00", false}, // whole arguments only
		{"/usr/sbin/sshd\x00-f\x00/s/n2/sshd_config\x00", false},
		{"/usr/sbin/sshd\x00", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := argvNamesConfig([]byte(tt.argv), cfgs); got != tt.want {
			t.Errorf("argvNamesConfig(%q) = %v, want %v", tt.argv, got, tt.want)
		}
	}
}

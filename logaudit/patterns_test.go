package logaudit

import (
	"strings"
	"testing"
)

// TestDefaultAlarms holds the default rule: what only a bug writes alarms,
// what a fault makes a correct system write does not.
func TestDefaultAlarms(t *testing.T) {
	set, err := Spec{}.Compile()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		line string
		want string // the alarm's pattern; "" for none
	}{
		// Go
		{"panic: runtime error: index out of range [3] with length 3", `\bpanic: `},
		{"fatal error: concurrent map writes", `\bfatal error: `},
		{"WARNING: DATA RACE", "WARNING: DATA RACE"},
		{"level=info msg=\"recovered leadership\"", ""},
		{"I'm not panicking: panic:x", ""}, // no space after the colon
		{"{\"level\":\"panic\",\"msg\":\"boom\"}", `"level":\s*"(?:fatal|panic|dpanic)"`},
		{"{\"level\":\"warn\",\"msg\":\"lost leader\"}", ""},
		{"time=now level=fatal msg=x", `\blevel=(?:fatal|panic)\b`},
		// Rust
		{"thread 'main' panicked at src/main.rs:2:5:", "panicked at"},
		// JVM: a fault's exceptions are not alarms, a bug's are
		{"2024-01-01 12:00:00,001 [myid:1] - WARN  [QuorumPeer[myid=1]:Follower@129] - Exception when following the leader java.net.ConnectException: Connection refused", ""},
		{"2024-01-01 12:00:00,002 [myid:2] - ERROR [LearnerHandler-/10.0.0.3:4444:LearnerHandler@714] - Unexpected exception causing shutdown java.io.EOFException", ""},
		{"org.apache.zookeeper.KeeperException$ConnectionLossException: KeeperErrorCode = ConnectionLoss for /jepsen", ""},
		{"java.net.SocketTimeoutException: Read timed out", ""},
		{"2024-01-01 12:00:01,000 [myid:2] - ERROR [SyncThread:2:ZooKeeperCriticalThread@49] - Severe unrecoverable error, from thread : SyncThread:2 java.lang.NullPointerException: null",
			`java\.lang\.(?:NullPointer|IllegalState|IllegalArgument|IllegalMonitorState|(?:Array|String)?IndexOutOfBounds|ClassCast|Arithmetic|NegativeArraySize|UnsupportedOperation)Exception`},
		{"Caused by: java.lang.IllegalStateException: not leader", `java\.lang\.(?:NullPointer|IllegalState|IllegalArgument|IllegalMonitorState|(?:Array|String)?IndexOutOfBounds|ClassCast|Arithmetic|NegativeArraySize|UnsupportedOperation)Exception`},
		{"\tat java.lang.Thread.run(Thread.java:829)", ""},
		{"java.lang.InterruptedException: sleep interrupted", ""},
		{"java.lang.OutOfMemoryError: Java heap space", `java\.lang\.\w*Error\b`},
		{"Exception in thread \"main\" java.io.IOException", `Exception in thread "`},
		{"SEVERE: Servlet.service() threw exception", `\bSEVERE\b`},
		{"2024 FATAL [main] store: cannot open journal", `\bFATAL\b`},
		{"fatal: not a git repository", ""},
		{"2024-01-01 UTC [42] PANIC:  could not write to file", `\bPANIC\b`},
		// C/C++
		{"==4321==ERROR: AddressSanitizer: heap-use-after-free on address 0x6020", `(?:ERROR|WARNING): \w+Sanitizer`},
		{"WARNING: ThreadSanitizer: data race (pid=9)", `(?:ERROR|WARNING): \w+Sanitizer`},
		{"src/kv.c:77:9: runtime error: signed integer overflow", "runtime error: "},
		{"kvd: src/kv.c:12: put: Assertion `n > 0' failed.", `: Assertion .+ failed`},
		{"terminate called after throwing an instance of 'std::runtime_error'", "terminate called after throwing"},
		// Python, Erlang
		{"Traceback (most recent call last):", `Traceback \(most recent call last\)`},
		{"=CRASH REPORT==== 1-Jan-2024::00:00:00 ===", "CRASH REPORT"},
		// Ordinary lines, including the old blanket words
		{"INFO raft: node n2 became follower at term 7", ""},
		{"HTTP 500: Internal error while committing", ""},
		{"", ""},
	}
	for _, tt := range tests {
		alarm, excused := set.Match([]byte(tt.line))
		got := ""
		if alarm != nil {
			got = alarm.Text
		}
		if got != tt.want || excused != nil {
			t.Errorf("Match(%q) = %q (excused %v), want %q", tt.line, got, excused, tt.want)
		}
	}
}

// TestDeclaredPatterns: declared alarms add to the defaults (or replace
// them), expected patterns excuse a line even when an alarm matches it.
func TestDeclaredPatterns(t *testing.T) {
	tests := []struct {
		name        string
		spec        Spec
		line        string
		wantAlarm   string
		wantExcused string
	}{
		{"declared alarm", Spec{Alarms: []string{`\bERROR\b`}}, "12:00 ERROR store: lost write", `\bERROR\b`, ""},
		{"default still on", Spec{Alarms: []string{`\bERROR\b`}}, "panic: x", `\bpanic: `, ""},
		{"defaults off", Spec{Alarms: []string{`\bERROR\b`}, NoDefaults: true}, "panic: x", "", ""},
		{"expected excuses an alarm", Spec{Alarms: []string{`\bERROR\b`}, Expected: []string{`ConnectionLossException`}},
			"ERROR [main] KeeperException$ConnectionLossException", `\bERROR\b`, "ConnectionLossException"},
		{"expected does not excuse another line", Spec{Alarms: []string{`\bERROR\b`}, Expected: []string{`ConnectionLossException`}},
			"ERROR [SyncThread:1] store: lost write", `\bERROR\b`, ""},
		{"case-insensitive alarm", Spec{Alarms: []string{`(?i)out of memory`}}, "OUT OF MEMORY", `(?i)out of memory`, ""},
		{"alternation without a needle", Spec{Alarms: []string{`corrupt|torn page`}, NoDefaults: true}, "found a torn page", `corrupt|torn page`, ""},
		{"expected on a clean line counts nothing", Spec{Expected: []string{`Connection refused`}}, "WARN Connection refused", "", ""},
	}
	for _, tt := range tests {
		set, err := tt.spec.Compile()
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		alarm, excused := set.Match([]byte(tt.line))
		var ga, ge string
		if alarm != nil {
			ga = alarm.Text
		}
		if excused != nil {
			ge = excused.Text
		}
		if ga != tt.wantAlarm || ge != tt.wantExcused {
			t.Errorf("%s: Match(%q) = %q, %q; want %q, %q", tt.name, tt.line, ga, ge, tt.wantAlarm, tt.wantExcused)
		}
	}
}

// TestSpecCheck rejects what cannot be audited, naming what is wrong.
func TestSpecCheck(t *testing.T) {
	tests := []struct {
		name string
		spec Spec
		want string // "" for no error
	}{
		{"paths", Spec{Paths: []string{"app/app.log"}}, ""},
		{"none", Spec{None: "a managed service"}, ""},
		{"bad regexp", Spec{Alarms: []string{"ERROR("}}, `alarm: log pattern "ERROR("`},
		{"bad expected", Spec{Expected: []string{"[x"}}, `expected: log pattern "[x"`},
		{"empty pattern", Spec{Expected: []string{""}}, "empty log pattern"},
		{"matches everything", Spec{Alarms: []string{"x*"}}, "matches the empty string"},
		{"none and paths", Spec{None: "why", Paths: []string{"a.log"}}, "but log paths are declared too (a.log)"},
		{"blank reason", Spec{None: "  "}, "needs a reason"},
		{"no alarm at all", Spec{NoDefaults: true}, "no line could ever fail"},
	}
	for _, tt := range tests {
		err := tt.spec.Check()
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s: error %v, want it to say %q", tt.name, err, tt.want)
		}
	}
}

// TestNeedles: the substring prefilter never rejects a line the regexp
// matches (it is the literal every match contains).
func TestNeedles(t *testing.T) {
	tests := []struct{ pattern, needles string }{
		{`\bpanic: `, "panic: "},
		{`java\.lang\.\w*Error\b`, "java.lang.|Error"},
		{`Traceback \(most recent call last\)`, "Traceback (most recent call last)"},
		{`(?i)panic`, ""},
		{`a|b`, ""},
		{`(?:ERROR|WARNING): \w+Sanitizer`, "Sanitizer|: "},
		{`x{2,}yy`, "yy|x"},
	}
	for _, tt := range tests {
		p, err := compile(tt.pattern, "test")
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, n := range p.needles {
			got = append(got, string(n))
		}
		if strings.Join(got, "|") != tt.needles {
			t.Errorf("needles of %q = %q, want %q", tt.pattern, got, tt.needles)
		}
	}
	for _, d := range Defaults {
		if p, _ := compile(d.Pattern, "default"); len(p.needles) == 0 {
			t.Errorf("default %q has no needle: every line would run the regexp", d.Pattern)
		}
	}
}

// FuzzMatch holds the prefilter to the plain regexp: Match agrees with
// running every alarm's regexp on the line.
func FuzzMatch(f *testing.F) {
	for _, s := range []string{"panic: x", "java.lang.StackOverflowError", "ERROR: AddressSanitizer", "x: Assertion `y' failed", "\xffpanic: "} {
		f.Add([]byte(s))
	}
	set, err := Spec{}.Compile()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		got, _ := set.Match(line)
		var want *Pattern
		for i := range set.Alarms {
			if set.Alarms[i].re.Match(line) {
				want = &set.Alarms[i]
				break
			}
		}
		if got != want {
			t.Fatalf("Match(%q) = %v, the regexps say %v", line, got, want)
		}
	})
}

package probe

import (
	"fmt"
	"path/filepath"
	"reflect"
	"regexp"
	"testing"
	"testing/fstest"
)

func TestDiscover(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  []Tool
	}{
		{name: "empty repo", files: map[string]string{"README.md": "hello"}, want: nil},
		{
			name: "scripts with roles from name and content",
			files: map[string]string{
				"scripts/cluster-up.sh":   "#!/bin/sh\ndocker compose up -d\n",
				"scripts/partition.sh":    "#!/bin/sh\niptables -A INPUT -s $1 -j DROP\n",
				"tools/loadgen/main.go":   "package main // workload driver\n",
				"bin/helper":              "#!/bin/sh\necho hi\n",
				"tools/nested/deep/x.py":  "import nemesis\n",
				"scripts/run-e2e-test.sh": "#!/bin/sh\ngo test ./e2e\n",
			},
			want: []Tool{
				{Path: "bin/helper", Role: RoleTool},
				{Path: "scripts/cluster-up.sh", Role: RoleCluster},
				{Path: "scripts/partition.sh", Role: RoleFault},
				{Path: "scripts/run-e2e-test.sh", Role: RoleTests},
				{Path: "tools/loadgen/main.go", Role: RoleWorkload},
				{Path: "tools/nested/deep/x.py", Role: RoleFault},
			},
		},
		{
			name: "test suites and docs are listed as directories",
			files: map[string]string{
				"tests/integration/a_test.go":   "",
				"tests/stability/soak.rs":       "",
				"tests/chaos/kill.rs":           "",
				"tests/unit/x_test.go":          "",
				"docs/runbooks/restore.md":      "",
				"docs/testing/how.md":           "",
				"docs/stability-test-plan.md":   "",
				"docs/architecture/overview.md": "",
			},
			want: []Tool{
				{Path: "docs/runbooks", Role: RoleDocs},
				{Path: "docs/stability-test-plan.md", Role: RoleDocs},
				{Path: "docs/testing", Role: RoleDocs},
				{Path: "tests/chaos", Role: RoleFault},
				{Path: "tests/integration", Role: RoleTests},
				{Path: "tests/stability", Role: RoleTests},
			},
		},
		{
			name: "makefile and justfile targets that look like cluster, fault or test commands",
			files: map[string]string{
				"Makefile": ".PHONY: build up chaos\nbuild:\n\tgo build ./...\nVAR := x\nup: build\n\tdocker compose up\n" +
					"chaos-partition:\n\t./scripts/p.sh\ntest-integration:\n\tgo test\nlint:\n\tgolangci-lint run\nup:\n",
				"justfile": "set shell := [\"bash\"]\nbench-load n='10':\n    cargo bench\n@cluster-down:\n    docker compose down\nfmt:\n    cargo fmt\n",
			},
			want: []Tool{
				{Path: "Makefile", Role: RoleFault, Target: "chaos-partition"},
				{Path: "Makefile", Role: RoleTests, Target: "test-integration"},
				{Path: "Makefile", Role: RoleCluster, Target: "up"},
				{Path: "justfile", Role: RoleWorkload, Target: "bench-load"},
				{Path: "justfile", Role: RoleCluster, Target: "cluster-down"},
			},
		},
		{
			name:  "cargo xtask via the alias",
			files: map[string]string{".cargo/config.toml": "[alias]\nxtask = \"run --package xtask --\"\n"},
			want:  []Tool{{Path: "xtask", Role: RoleBuildTask, Target: "cargo xtask"}},
		},
		{
			name:  "cargo xtask via the crate",
			files: map[string]string{"xtask/Cargo.toml": "[package]\nname = \"xtask\"\n"},
			want:  []Tool{{Path: "xtask", Role: RoleBuildTask, Target: "cargo xtask"}},
		},
		{
			name: "CI definitions only when they wire faults",
			files: map[string]string{
				".github/workflows/ci.yml":     "jobs:\n  build:\n    steps:\n      - run: go test ./...\n",
				".github/workflows/chaos.yaml": "jobs:\n  nemesis:\n    steps:\n      - run: sudo tc qdisc add dev eth0 root netem delay 100ms\n",
				".gitlab-ci.yml":               "jepsen:\n  script: lein run test\n",
				".ci/faults/toxi.sh":           "toxiproxy-cli create db\n",
				".ci/build.sh":                 "make\n",
			},
			want: []Tool{
				{Path: ".ci/faults/toxi.sh", Role: RoleCIFaults},
				{Path: ".github/workflows/chaos.yaml", Role: RoleCIFaults},
				{Path: ".gitlab-ci.yml", Role: RoleCIFaults},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Discover(writeTree(t, tt.files))
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Discover:\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestDiscoverMissingRoot(t *testing.T) {
	if got := Discover(t.TempDir() + "/does-not-exist"); len(got) != 0 {
		t.Errorf("Discover of a missing root = %+v, want nothing", got)
	}
}

func TestDiscoverEmptyRootIsCurrentDir(t *testing.T) {
	t.Chdir(writeTree(t, map[string]string{"scripts/up.sh": "docker compose up\n"}))
	want := []Tool{{Path: "scripts/up.sh", Role: RoleCluster}}
	if got := Discover(""); !reflect.DeepEqual(got, want) {
		t.Errorf("Discover(\"\") = %+v, want %+v", got, want)
	}
}

func TestGuessRole(t *testing.T) {
	tests := []struct {
		text string
		want Role
	}{
		{"up", RoleCluster},
		{"setup", ""}, // "up" is matched as a whole word only
		{"kill-leader", ""},
		{"kill -9 $PID", RoleFault},
		{"gen-history", RoleWorkload},
		{"generate", ""},
		{"soak-test", RoleWorkload}, // workload outranks tests
		{"chaos-up", RoleFault},     // fault outranks cluster
		{"test", RoleTests},
		{"build", ""},
	}
	for _, tt := range tests {
		if got := guessRole(tt.text); got != tt.want {
			t.Errorf("guessRole(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

// FuzzMakeTargets checks that target parsing never panics and only yields
// names the target grammar allows.
func FuzzMakeTargets(f *testing.F) {
	f.Add("up:\n\tdocker compose up\nchaos: up\nX := 1\n")
	f.Add("@cluster-down arg='1':\n  echo\n")
	f.Add(":\n::\n=:\n")
	name := regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)
	f.Fuzz(func(t *testing.T, src string) {
		fsys := fstest.MapFS{"Makefile": {Data: []byte(src)}, "justfile": {Data: []byte(src)}}
		for _, tl := range append(targetTools(fsys, "Makefile", makeTargetRe), targetTools(fsys, "justfile", justRecipeRe)...) {
			if !name.MatchString(tl.Target) || tl.Role == "" {
				t.Fatalf("bad tool %+v", tl)
			}
		}
	})
}

func BenchmarkDiscover(b *testing.B) {
	files := map[string]string{"Makefile": "up:\nchaos:\ntest:\n", ".github/workflows/x.yml": "run: iptables -L\n"}
	for i := 0; i < 200; i++ {
		files[fmt.Sprintf("scripts/s%03d.sh", i)] = "#!/bin/sh\ndocker compose up -d\n"
	}
	root := writeTree(b, files)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Discover(root)
	}
}

// TestDiscoverOwnRepo: run from inside faultline's own checkout, discovery
// must not offer faultline's CI and scripts as the tested system's toolbox;
// a system with its own go.mod (even nested inside the checkout) is still
// catalogued.
func TestDiscoverOwnRepo(t *testing.T) {
	ciRun := "#!/bin/sh\niptables -L\n"
	tests := []struct {
		name  string
		files map[string]string
		dir   string // discovery root inside the tree
		want  []Tool
	}{
		{name: "faultline's repository root",
			files: map[string]string{"go.mod": "module " + OwnModule + "\n\ngo 1.26\n", ".ci/run": ciRun, "scripts/partition.sh": ciRun},
			want:  nil},
		{name: "a directory inside faultline's repository",
			files: map[string]string{"go.mod": "module " + OwnModule + "\n", "sub/.ci/run": ciRun},
			dir:   "sub", want: nil},
		{name: "quoted module path",
			files: map[string]string{"go.mod": "module \"" + OwnModule + "\"\n", ".ci/run": ciRun},
			want:  nil},
		{name: "another Go module",
			files: map[string]string{"go.mod": "module example.com/store\n", ".ci/run": ciRun},
			want:  []Tool{{Path: ".ci/run", Role: RoleCIFaults}}},
		{name: "a system with its own go.mod nested in faultline's checkout",
			files: map[string]string{"go.mod": "module " + OwnModule + "\n", "sut/go.mod": "module example.com/sut\n", "sut/.ci/run": ciRun},
			dir:   "sut", want: []Tool{{Path: ".ci/run", Role: RoleCIFaults}}},
		{name: "no go.mod at all",
			files: map[string]string{".ci/run": ciRun},
			want:  []Tool{{Path: ".ci/run", Role: RoleCIFaults}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := writeTree(t, tt.files)
			got := Discover(filepath.Join(root, tt.dir))
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Discover = %+v, want %+v", got, tt.want)
			}
		})
	}
}

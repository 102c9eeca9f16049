package probe

// capability says how to verify one known capability and how to get it. A
// capability is present when every part that is set holds: one of cmds is on
// PATH, the process is root, the kernel has the module, one of files exists.
type capability struct {
	aliases []string   // lower-case substrings that name it in a §6b cell
	cmds    [][]string // candidate version commands; the first on PATH is run
	root    bool       // needs euid 0 (fault tools change network and clock state)
	module  string     // kernel module, checked via /sys/module, /proc/config.gz, /lib/modules
	config  string     // the CONFIG_ symbol for module
	files   []string   // any one of these paths (relative to /) must exist
	install string     // a package-manager command when trivially installable; "" when not
}

// catalogue is the set of capabilities the probe knows how to verify (spec §8.1
// categories: container runtime, toolchains, backends, fault tools, kernel).
var catalogue = map[string]capability{
	"root":     {aliases: []string{"root", "cap_net_admin", "sudo"}, root: true},
	"iptables": {aliases: []string{"iptables"}, cmds: [][]string{{"iptables", "--version"}}, install: "apt-get install iptables"},
	"tc-netem": {aliases: []string{"netem", "tc-netem"}, cmds: [][]string{{"tc", "-V"}}, module: "sch_netem", config: "CONFIG_NET_SCH_NETEM", install: "apt-get install iproute2"},
	// delay is nemesis.delay's need: netem, or NFQUEUE for faultline's
	// agent where the kernel lacks netem. The nodes tell which (Cluster);
	// on the host alone it is probed as netem.
	"delay":       {aliases: []string{"network delay"}, cmds: [][]string{{"tc", "-V"}}, module: "sch_netem", config: "CONFIG_NET_SCH_NETEM", install: "apt-get install iproute2"},
	"netns":       {aliases: []string{"network namespace", "netns"}, cmds: [][]string{{"ip", "-V"}}, files: []string{"proc/self/ns/net"}, install: "apt-get install iproute2"},
	"cgroups":     {aliases: []string{"cgroup"}, files: []string{"sys/fs/cgroup/cgroup.controllers", "sys/fs/cgroup/blkio"}},
	"sshd":        {aliases: []string{"sshd", "openssh-server"}, cmds: [][]string{{"sshd", "-V"}, {"/usr/sbin/sshd", "-V"}}, install: "apt-get install openssh-server"},
	"libfaketime": {aliases: []string{"libfaketime", "faketime"}, cmds: [][]string{{"faketime", "--version"}}, install: "apt-get install faketime"},
	// clock is judged from the nodes (cluster.go): clock faults need every
	// node on a kernel of its own, which nothing on the host can tell.
	"clock":       {aliases: []string{"clock control", "clock-control", "cap_sys_time"}},
	"dm-flakey":   {aliases: []string{"dm-flakey", "dm_flakey"}, cmds: [][]string{{"dmsetup", "--version"}}, root: true, module: "dm_flakey", config: "CONFIG_DM_FLAKEY"},
	"toxiproxy":   {aliases: []string{"toxiproxy"}, cmds: [][]string{{"toxiproxy-server", "--version"}}},
	"docker":      {aliases: []string{"docker"}, cmds: [][]string{{"docker", "--version"}}, install: "apt-get install docker.io"},
	"compose":     {aliases: []string{"compose"}, cmds: [][]string{{"docker", "compose", "version"}, {"docker-compose", "--version"}, {"podman-compose", "--version"}}, install: "apt-get install docker-compose-plugin"},
	"podman":      {aliases: []string{"podman"}, cmds: [][]string{{"podman", "--version"}}, install: "apt-get install podman"},
	"etcd-server": {aliases: []string{"etcd"}, cmds: [][]string{{"etcd", "--version"}}, install: "apt-get install etcd-server"},
	"postgresql":  {aliases: []string{"postgres"}, cmds: [][]string{{"postgres", "--version"}, {"pg_ctl", "--version"}, {"pg_ctlcluster", "--help"}}, install: "apt-get install postgresql"},
	"minio":       {aliases: []string{"minio", "s3-compatible"}, cmds: [][]string{{"minio", "--version"}}},
	"go":          {aliases: []string{"go toolchain", "golang"}, cmds: [][]string{{"go", "version"}}, install: "apt-get install golang-go"},
	"cargo":       {aliases: []string{"cargo", "rust toolchain"}, cmds: [][]string{{"cargo", "--version"}}, install: "apt-get install cargo"},
	"sh":          {aliases: []string{"posix shell"}, cmds: [][]string{{"sh", "-c", "echo sh"}}},
}

// catalogueOrder fixes the order capabilitiesIn reports names in, so results
// do not depend on map iteration.
var catalogueOrder = []string{
	"root", "iptables", "tc-netem", "delay", "netns", "cgroups", "sshd", "libfaketime", "clock", "dm-flakey",
	"toxiproxy", "docker", "compose", "podman", "etcd-server", "postgresql", "minio", "go", "cargo", "sh",
}

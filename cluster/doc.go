// Package cluster runs a local multi-node test cluster on one Linux host:
// `faultline cluster up|down|status` (Up, Down, Status). It needs root and
// the Debian packages iproute2, util-linux and openssh-server.
//
// Each node nX is a network namespace <prefix>-nX joined to a bridge by a
// veth pair (the host end is also called <prefix>-nX, the node end eth0).
// Inside it, `unshare` gives the node its own UTS, PID and mount namespace:
// the hostname is nX, the node's sshd is its PID 1 (so `ps` and `kill` over
// ssh see only that node, and killing PID 1 kills the whole node), and /opt,
// /tmp, /root and /run are bind mounts of the node's own directories under
// StateDir, so every node uses the same paths with different contents.
// /etc/hosts (n1..nN and "control"), /etc/hostname and /sys (showing only
// the node's links) are per node too; /usr, /etc and /var are the host's.
//
// Addressing, for the default subnet 10.77.0.0/24: the host (the control
// machine that runs faultline) is 10.77.0.1 on the bridge, node nX is
// 10.77.0.(10+X). Nodes have no default route and ip_forward is not touched,
// so node traffic stays inside the subnet and loopback. Link addresses are
// derived from IP addresses, so a rebuilt node keeps its MAC and no ARP
// cache goes stale.
//
// State directory (Config.StateDir, default /var/lib/faultline/cluster):
//
//	cluster.json         what Up built (prefix, bridge, subnet, nodes); Down
//	                     removes StateDir only if this marker is there
//	nodes                the nodes file, one node per line: "n1=10.77.0.11:22";
//	                     '#' starts a comment (the `name=host:port` form that
//	                     `faultline run --nodes-file` reads)
//	known_hosts          every node's host key, under its address and name
//	id_ed25519(.pub)     the client key, authorised as root on every node
//	authorized_keys      what the nodes' sshd accept (append your own keys)
//	ssh_config           for OpenSSH: `ssh -F StateDir/ssh_config n1`
//	made-parent          present when Up created StateDir's parent, which
//	                     Down then removes too if it is empty
//	nX/                  sshd_config, ssh_host_ed25519_key(.pub), sshd.log,
//	                     sshd.pid (host PID of the node's PID 1), fstab,
//	                     hosts, hostname, and the node-private opt/ tmp/
//	                     root/ run/
//
// Up is idempotent: on a healthy cluster of the same shape it changes nothing
// and says so; nodes whose namespace, link or sshd are gone are rebuilt
// (keeping their host keys and files); anything left by a crashed run is
// removed first. Down kills every process in the cluster's namespaces,
// deletes the namespaces, veths and bridge, and removes StateDir; it matches
// only names built from its own prefix and bridge, and is safe to repeat.
// With Config.VM every node is a QEMU guest instead (vm.go describes it):
// its own Debian kernel, booted from an image EnsureImage builds once and
// caches under Config.ImageCache; the node's link is a tap <prefix>-nX on
// the same bridge and addresses, and the client files are the same.
// cluster.json then also holds what Up measured (key "vm_info": the
// accelerator and why, boot time, clock offsets after the boot sync, the
// nodes' slowdown), and the nodes file carries the slowdown as a comment.
//
// Up and Down serialise on an flock of StateDir's parent directory, which
// Up creates if needed; Down removes it only if that Up created it and it
// is empty, so up then down leaves the host as it was.
package cluster

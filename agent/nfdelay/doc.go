// Package nfdelay is faultline's node agent for packet delay on kernels
// without tc netem: it binds an NFQUEUE and gives each queued packet its
// NF_ACCEPT verdict only after a delay, optionally jittered.
//
// The nemesis steers a node's input to the queue with an iptables NFQUEUE
// rule carrying --queue-bypass, so if the agent dies packets flow
// undelayed rather than being dropped. The rule sits in the mangle table:
// NF_ACCEPT ends only the traversal of the table that queued the packet,
// so a delayed packet goes on to the filter table, where the node's own
// rules still apply to it (queued from filter INPUT it would skip them).
// Delaying on input (at the receiver)
// matters: a packet held on output stays charged to its sending socket,
// and TCP small queues then cut throughput to a couple of packets in
// flight.
//
// Only packet metadata is copied from the kernel (the packet id), so the
// agent's cost per packet is two small netlink messages. Packets are
// released in order of their due time; without jitter that is arrival
// order, with jitter packets may overtake each other, as with netem.
//
// The agent talks raw nfnetlink through golang.org/x/sys/unix. Message
// encoding and decoding are pure functions (netlink.go), tested and fuzzed
// without a kernel; Run wires them to the socket. The socket is Linux's, so
// elsewhere Run only checks its Config and returns an error (run_other.go).
//
// Run writes Stats as JSON to a file, replaced atomically every 200 ms and
// on exit, which is the evidence the nemesis reads back from the node. On
// cancellation (SIGTERM under Main) the agent accepts every held packet at
// once, so stopping it never drops traffic.
package nfdelay

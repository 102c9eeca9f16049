package nfdelay

import "time"

// Config says which queue to serve and how long to hold its packets.
type Config struct {
	Queue     uint16        // NFQUEUE number, as in iptables --queue-num
	Delay     time.Duration // added to every packet
	Jitter    time.Duration // uniform +/- spread around Delay
	StatsFile string        // where Stats are written; "" writes none
	Seed      uint64        // seeds the jitter
}

package cluster

import "testing"

// procTCP is a /proc/net/tcp table: LISTEN, TIME_WAIT, FIN_WAIT1,
// FIN_WAIT2, LAST_ACK, CLOSE, ESTABLISHED.
const procTCP = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0B004E0A:0016 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1 1 0 100 0 0 10 0
   1: 0B004E0A:0016 01004E0A:9C40 06 00000000:00000000 03:00000F9F 00000000     0        0 0 3 0
   2: 0B004E0A:094C 0C004E0A:1388 04 00000000:00000001 01:00000014 00000000     0        0 0 2 0
   3: 0B004E0A:0016 01004E0A:9C41 05 00000000:00000000 00:00000000 00000000     0        0 0 2 0
   4: 0B004E0A:094B 0D004E0A:1770 09 00000000:00000001 01:00000014 00000000     0        0 0 2 0
   5: 0B004E0A:094B 0D004E0A:1771 07 00000000:00000000 00:00000000 00000000     0        0 0 2 0
   6: 0B004E0A:094B 0D004E0A:1772 01 00000000:00000000 00:00000000 00000000     0        0 0 2 0
`

func TestClosingSockets(t *testing.T) {
	tests := []struct {
		name  string
		table string
		want  int
	}{
		{"mixed", procTCP, 4},
		{"header only", "  sl  local_address rem_address   st\n", 0},
		{"empty", "", 0},
		{"short lines", "0: a b\n\n", 0},
	}
	for _, tt := range tests {
		if got := closingSockets([]byte(tt.table)); got != tt.want {
			t.Errorf("%s: closingSockets = %d, want %d", tt.name, got, tt.want)
		}
	}
}

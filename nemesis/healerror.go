package nemesis

import "fmt"

// NodeHealError is how HealAll reports a node it did not heal: it could not
// be reached, the heal script failed there, or faultline's rules remain
// after it. What HealReport lists for such a node is what was removed
// before the failure, not a clean bill.
type NodeHealError struct {
	Node string
	Err  error
}

func (e *NodeHealError) Error() string { return fmt.Sprintf("heal %s: %v", e.Node, e.Err) }

// Unwrap gives the cause.
func (e *NodeHealError) Unwrap() error { return e.Err }

// HealFailures returns, by node, why each node named in err (as HealAll
// returns it: several joined, perhaps wrapped again) was not healed. A nil
// err gives an empty map.
func HealFailures(err error) map[string]error {
	out := map[string]error{}
	var walk func(error)
	walk = func(err error) {
		switch x := err.(type) {
		case *NodeHealError:
			out[x.Node] = x.Err
		case interface{ Unwrap() []error }:
			for _, e := range x.Unwrap() {
				walk(e)
			}
		case interface{ Unwrap() error }:
			walk(x.Unwrap())
		}
	}
	walk(err)
	return out
}

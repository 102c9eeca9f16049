package client_test

import (
	"context"
	"fmt"
	"log"

	"github.com/faultline/faultline/client"
	"github.com/faultline/faultline/history"
)

// A Go program drives a client without any script: start the in-process
// reference register, open a worker for one process, and invoke operations
// on it. Each invocation comes back as its completion.
func Example() {
	c := &client.Register{}
	sess, err := c.Start(1) // the seed makes the run reproducible
	if err != nil {
		log.Fatal(err)
	}
	defer sess.Close()
	w, err := sess.Open(0, 0, "n1")
	if err != nil {
		log.Fatal(err)
	}
	defer w.Close()

	ctx := context.Background()
	for _, op := range []history.Op{
		{Type: history.Invoke, F: "write", Key: int64(1), Value: int64(42)},
		{Type: history.Invoke, F: "read", Key: int64(1)},
		{Type: history.Invoke, F: "cas", Key: int64(1), Value: []any{int64(7), int64(8)}},
	} {
		done := w.Invoke(ctx, op)
		fmt.Println(done.Type, done.F, done.Value)
	}
	fmt.Println(c, "simulated:", c.Simulated())
	// Output:
	// ok write 42
	// ok read 42
	// fail cas [7 8]
	// client.register() simulated: true
}

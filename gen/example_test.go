package gen_test

import (
	"context"
	"fmt"
	"time"

	"github.com/faultline/faultline/gen"
	"github.com/faultline/faultline/history"
)

// register is an in-process client: one integer register that every client
// thread shares. In virtual time the run calls Invoke on its own goroutine,
// so it needs no lock.
type register struct{ v *int64 }

func (r register) Invoke(_ context.Context, op history.Op) history.Op {
	switch op.F {
	case "read":
		return history.Op{Type: history.OK, Value: *r.v}
	case "write":
		*r.v = op.Value.(int64)
		return history.Op{Type: history.OK, Value: op.Value}
	}
	return history.Op{Type: history.Fail, Error: "unknown op " + op.F}
}

func (register) Close() error { return nil }

// Example builds a workload in plain Go (an even mix of reads and writes of
// random values, staggered 10ms apart on average and limited to eight ops)
// and runs it on two client threads against an in-process register, in
// simulated time: the same seed always gives the same history.
func Example() {
	reads := gen.Repeat(gen.Op(history.Op{F: "read"}))
	writes := gen.FromFunc(func(ctx *gen.Context) history.Op {
		return history.Op{F: "write", Value: ctx.Rand.Int64N(10)}
	})
	workload := gen.Limit(8, gen.Stagger(10*time.Millisecond, gen.Mix(reads, writes)))

	var v int64
	var ops []history.Op
	sum, err := gen.Run(context.Background(), workload, gen.Config{
		Concurrency: 2,
		Client:      func(thread, process int) (gen.Worker, error) { return register{&v}, nil },
		Seed:        42,
		Virtual:     true,
		Record:      func(op history.Op) error { ops = append(ops, op); return nil },
	})
	if err != nil {
		fmt.Println("run:", err)
		return
	}
	for _, op := range ops { // the completions: what each op saw
		if op.Type != history.Invoke {
			fmt.Printf("%-4v  process %d  %-5s -> %v\n", time.Duration(op.Time).Round(time.Millisecond), op.Process, op.F, op.Value)
		}
	}
	fmt.Printf("%d of %d ops ok in %v of simulated time\n", sum.OK, sum.Invoked, sum.Duration.Round(time.Millisecond))
	// Output:
	// 1ms   process 0  read  -> 0
	// 2ms   process 1  read  -> 0
	// 17ms  process 0  write -> 6
	// 32ms  process 1  write -> 6
	// 43ms  process 0  read  -> 6
	// 46ms  process 1  write -> 0
	// 66ms  process 0  read  -> 0
	// 78ms  process 1  read  -> 0
	// 8 of 8 ops ok in 78ms of simulated time
}

package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/faultline/faultline/builtins/control"
	"github.com/faultline/faultline/mesh"
)

// defaultLocalNodes are the nodes of --local when --nodes names none.
var defaultLocalNodes = []string{"n1", "n2", "n3"}

// localPool makes the nodes of a --local run: directories in a fresh
// temporary directory, daemons supervised by faultline, and every link
// through a proxy mesh so network faults need no root. The returned func
// kills every daemon, closes the mesh and removes the directories; the
// session keeps what matters (the db recipe saves node logs before its
// teardown).
func localPool(names []string, seed uint64) (*control.Pool, func() error, error) {
	if len(names) == 0 {
		names = defaultLocalNodes
	}
	root, err := os.MkdirTemp("", "faultline-local-")
	if err != nil {
		return nil, nil, fmt.Errorf("local nodes: %w", err)
	}
	pool, sup, err := control.NewLocalPool(root, names)
	if err != nil {
		os.RemoveAll(root)
		return nil, nil, err
	}
	m := mesh.New(mesh.Options{Seed: seed})
	pool.SetNetwork(m)
	cleanup := func() error {
		return errors.Join(pool.Close(), sup.Close(), m.Close(), os.RemoveAll(root))
	}
	return pool, cleanup, nil
}

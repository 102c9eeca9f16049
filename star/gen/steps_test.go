package gen

import (
	"context"
	"errors"
	"testing"

	"github.com/faultline/faultline/gen"
)

// A run's callbacks together may take any number of steps (a long run at
// full rate takes billions): only one callback that never returns, or a
// budget's explicit limit on the run, stops the generator, with a
// *StepLimitError naming which limit it was.
func TestStepLimits(t *testing.T) {
	const count = "def f():\n  for i in range(20):\n    pass\n  return {\"f\": \"a\"}\n"
	tests := []struct {
		name      string
		src       string
		runSteps  uint64
		wantLimit bool
		perCall   bool
	}{
		{"many cheap calls, far more steps than one call's bound", count + "g = gen.limit(2000, f)", 0, false, false},
		{"an endless callback", "def f():\n  while True:\n    pass\ng = f", 0, true, true},
		{"the budget's run limit", count + "g = gen.limit(2000, f)", 5000, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := loadGen(t, tt.src)
			if err != nil {
				t.Fatal(err)
			}
			env := NewEnv(newThread())
			env.callSteps = 1000 // thousands of calls of ~100 steps each
			env.SetRunSteps(tt.runSteps)
			sum, err := gen.Run(context.Background(), g, gen.Config{Concurrency: 1, Virtual: true, Env: env, Nemesis: nopNemesis{}, Client: okClients})
			var sl *StepLimitError
			if got := errors.As(err, &sl); got != tt.wantLimit || (got && sl.PerCall != tt.perCall) {
				t.Fatalf("err = %v (ops %d), want a step limit %v (per call %v)", err, sum.OK, tt.wantLimit, tt.perCall)
			}
			if steps := env.thread.ExecutionSteps(); !tt.wantLimit && steps < 50*env.callSteps {
				t.Errorf("the run took %d steps in all, want far more than one call's bound %d", steps, env.callSteps)
			}
		})
	}
}

// Package examples holds the plans, scenarios and suites people copy, and
// the demo system under test (demostore). The demo's plan and suite are
// embedded so `faultline demo` runs from the binary alone.
package examples

import _ "embed"

// DemoPlan is examples/plans/demo.md, the plan `faultline demo` runs.
//
//go:embed plans/demo.md
var DemoPlan []byte

// DemoSuite is examples/demo/faultline.star, the plan's suite.
//
//go:embed demo/faultline.star
var DemoSuite []byte

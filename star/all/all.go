// Package all links every Starlark module adapter into the binary; each
// registers itself with package star when linked. Adding a module is one
// import here.
package all

import (
	_ "github.com/faultline/faultline/star/binarymod"
	_ "github.com/faultline/faultline/star/check"
	_ "github.com/faultline/faultline/star/client"
	_ "github.com/faultline/faultline/star/control"
	_ "github.com/faultline/faultline/star/evidence"
	_ "github.com/faultline/faultline/star/gen"
	_ "github.com/faultline/faultline/star/httpmod"
	_ "github.com/faultline/faultline/star/nemesis"
	_ "github.com/faultline/faultline/star/netmod"
	_ "github.com/faultline/faultline/star/redismod"
	_ "github.com/faultline/faultline/star/sqlmod"
)

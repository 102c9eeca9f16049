// Package stdlib embeds faultline's Starlark standard library: workloads,
// nemesis packages and db recipes that scenarios load as "@stdlib//NAME.star".
package stdlib

import "embed"

// FS holds every .star file of the standard library.
//
//go:embed *.star db/*.star
var FS embed.FS

package main

import (
	"embed"
	"strings"
)

// helpFiles hold each command's long help, help/<command>.txt: prose a
// person edits as text, beside the code that parses the flags it explains.
//
//go:embed help/*.txt
var helpFiles embed.FS

// help is the long help of command name. Every command has its file
// (TestHelpTexts reads them all), so a missing one is an empty help.
func help(name string) string {
	b, err := helpFiles.ReadFile("help/" + name + ".txt")
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(string(b), "\n")
}

package probe

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// maxRetries bounds re-prompts on an unreadable answer, so a confused script
// on stdin cannot loop forever.
const maxRetries = 3

// Ask is the interactive first step (spec §8.1: ask first, then verify). It
// lists what the plan needs, then asks for each requirement whether it is
// available: y (default), n, or skip. Answers become Options.Said (verified
// later, disagreements reported) and Options.Skip. BySUT rows are listed but
// not asked about; when every row is, Ask still waits for one line (Enter) so
// the run never starts before the operator has read the list. End of input
// takes the default for the remaining rows; the caller only calls Ask on a
// terminal without --yes.
func Ask(in io.Reader, out io.Writer, reqs []Requirement) (Options, error) {
	o := Options{Said: map[string]bool{}}
	if _, err := fmt.Fprintln(out, "The plan needs:"); err != nil {
		return o, fmt.Errorf("probe: ask: %w", err)
	}
	for _, r := range reqs {
		line := "  - " + r.Name
		if len(r.UsedBy) > 0 {
			line += " (used by " + strings.Join(r.UsedBy, ", ") + ")"
		}
		if r.BySUT {
			line += " [brought up by the SUT]"
		}
		if _, err := fmt.Fprintln(out, line); err != nil {
			return o, fmt.Errorf("probe: ask: %w", err)
		}
	}
	sc := bufio.NewScanner(in)
	askable := 0
	for _, r := range reqs {
		if !r.BySUT {
			askable++
		}
	}
	if askable == 0 {
		// Nothing to answer, but the operator was told what the run needs:
		// the run starts only when they say so (spec §8.1: ask first).
		if _, err := fmt.Fprint(out, "Nothing to answer: the SUT brings up all of it. Press Enter to start the run (Ctrl-C stops) "); err != nil {
			return o, fmt.Errorf("probe: ask: %w", err)
		}
		if !sc.Scan() {
			if err := sc.Err(); err != nil {
				return o, fmt.Errorf("probe: ask: read the go-ahead: %w", err)
			}
			fmt.Fprintln(out)
		}
		return o, nil
	}
	fmt.Fprintln(out, "What is available, and what should be skipped? Answer y, n or skip (default y).")
	eof := false
	for _, r := range reqs {
		if r.BySUT {
			continue
		}
		ans, err := askOne(sc, out, r.Name, &eof)
		if err != nil {
			return o, err
		}
		switch ans {
		case "skip":
			o.Skip = append(o.Skip, r.Name)
		default:
			o.Said[r.Name] = ans == "y"
		}
	}
	return o, nil
}

// askOne prompts until it reads y, n or skip; at end of input it answers y.
func askOne(sc *bufio.Scanner, out io.Writer, name string, eof *bool) (string, error) {
	for try := 0; try < maxRetries; try++ {
		if _, err := fmt.Fprintf(out, "%s available? [Y/n/skip] ", name); err != nil {
			return "", fmt.Errorf("probe: ask: %w", err)
		}
		if *eof || !sc.Scan() {
			if err := sc.Err(); err != nil {
				return "", fmt.Errorf("probe: ask: read answer for %s: %w", name, err)
			}
			*eof = true
			fmt.Fprintln(out)
			return "y", nil
		}
		switch a := strings.ToLower(strings.TrimSpace(sc.Text())); a {
		case "", "y", "yes":
			return "y", nil
		case "n", "no":
			return "n", nil
		case "s", "skip":
			return "skip", nil
		default:
			fmt.Fprintf(out, "please answer y, n or skip (got %q)\n", a)
		}
	}
	return "", fmt.Errorf("probe: ask: no usable answer for %s after %d tries", name, maxRetries)
}

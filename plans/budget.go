package plans

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/faultline/faultline/verdict"
)

// parseBudget reads a tier's value: either a size ("3 nodes, 2 min, 0 faults,
// 1 seed, ≥2k ops") or the disclosure "not provided — <reason>. Revisit when:
// <condition>." Dimensions it cannot read stay zero; Lint decides which missing
// ones matter.
func parseBudget(tier verdict.Tier, f *Field) *Budget {
	b := &Budget{Tier: tier, Raw: f.Value, Pos: f.Pos}
	if d, ok := parseDisclosure(f.Value); ok {
		b.NotProvided = d
		return b
	}
	readDimensions(b, f.Value)
	return b
}

var (
	notProvidedRe = regexp.MustCompile(`(?i)^\s*not\s+provided\b`)
	revisitRe     = regexp.MustCompile(`(?i)\brevisit\s+when\b\s*:?`)
)

// parseDisclosure reads "not provided — reason. Revisit when: condition."; any
// dash ("—", "–", "--", "-") or a colon may follow "not provided". The parts
// keep the author's words; only the separators are trimmed.
func parseDisclosure(v string) (*Disclosure, bool) {
	v = strings.TrimLeft(strings.Join(strings.Fields(plain(v)), " "), "*_ ")
	loc := notProvidedRe.FindStringIndex(v)
	if loc == nil {
		return nil, false
	}
	rest := strings.TrimLeft(v[loc[1]:], " —–-:,;*_")
	d := &Disclosure{Reason: rest}
	if m := revisitRe.FindStringIndex(rest); m != nil {
		d.Reason = rest[:m[0]]
		d.RevisitWhen = strings.TrimSpace(strings.TrimRight(strings.TrimLeft(rest[m[1]:], " —–-:"), ". "))
	}
	d.Reason = strings.TrimSpace(strings.TrimRight(strings.TrimSpace(d.Reason), ".;,"))
	return d, true
}

var (
	// quantityRe finds a number, an optional k/m multiplier and the word after
	// it: "3 nodes", "2k ops", "10m", "5-node", "20,000 ops", "ops/s" (a rate).
	quantityRe = regexp.MustCompile(`(?i)(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)\s*-?\s*([km]\b)?\s*-?\s*([a-zµ]+(?:/[a-z]+)?)?`)
	// numberWords turns the counts authors spell out into digits first.
	numberWords = regexp.MustCompile(`(?i)\b(no|zero|single|one|two|three|four|five|six|seven|eight|nine|ten)\b`)
	wordDigits  = map[string]string{"no": "0", "zero": "0", "single": "1", "one": "1", "two": "2",
		"three": "3", "four": "4", "five": "5", "six": "6", "seven": "7", "eight": "8", "nine": "9", "ten": "10"}
)

// budgetUnits maps the word after a number to the dimension it counts.
var budgetUnits = map[string]string{
	"node": "nodes", "nodes": "nodes", "replica": "nodes", "replicas": "nodes",
	"member": "nodes", "members": "nodes", "broker": "nodes", "brokers": "nodes",
	"topology": "topologies", "topologies": "topologies",
	"fault": "faults", "faults": "faults", "failover": "faults", "failovers": "faults",
	"partition": "faults", "partitions": "faults", "kill": "faults", "kills": "faults",
	"crash": "faults", "crashes": "faults", "injection": "faults", "injections": "faults",
	"seed": "seeds", "seeds": "seeds",
	"op": "ops", "ops": "ops", "operation": "ops", "operations": "ops", "request": "ops",
	"requests": "ops", "txn": "ops", "txns": "ops", "transaction": "ops", "transactions": "ops",
	"repetition": "repetitions", "repetitions": "repetitions", "repeat": "repetitions",
	"repeats": "repetitions", "run": "repetitions", "runs": "repetitions",
	"iteration": "repetitions", "iterations": "repetitions",
}

// durationUnits maps a time word to its length.
var durationUnits = map[string]time.Duration{
	"s": time.Second, "sec": time.Second, "secs": time.Second, "second": time.Second, "seconds": time.Second,
	"m": time.Minute, "min": time.Minute, "mins": time.Minute, "minute": time.Minute, "minutes": time.Minute,
	"h": time.Hour, "hr": time.Hour, "hrs": time.Hour, "hour": time.Hour, "hours": time.Hour,
	"d": 24 * time.Hour, "day": 24 * time.Hour, "days": 24 * time.Hour,
	"w": 7 * 24 * time.Hour, "week": 7 * 24 * time.Hour, "weeks": 7 * 24 * time.Hour,
}

// readDimensions fills b's counts from free text. Counts of the same dimension
// are combined the way a budget means them: nodes and seeds take the largest
// ("3 and 5 nodes"), faults add up ("2 partitions + 2 kills"), durations add up
// ("1h warm-up + 2h soak").
func readDimensions(b *Budget, v string) {
	v = numberWords.ReplaceAllStringFunc(plain(v), func(w string) string {
		return wordDigits[strings.ToLower(w)]
	})
	if strings.Contains(strings.ToLower(v), "fault-free") {
		b.Faults = new(int)
	}
	for _, m := range quantityRe.FindAllStringSubmatch(v, -1) {
		n, err := strconv.ParseFloat(strings.ReplaceAll(m[1], ",", ""), 64)
		if err != nil {
			continue
		}
		mult, unit := strings.ToLower(m[2]), strings.ToLower(m[3])
		if mult == "m" && unit == "" {
			mult, unit = "", "m" // "10m" is ten minutes
		}
		switch mult {
		case "k":
			n *= 1e3
		case "m":
			n *= 1e6
		}
		if n > 1e15 { // no budget is that large; keep the conversions below in range
			continue
		}
		if d, ok := durationUnits[unit]; ok && mult == "" {
			if total := float64(b.Duration) + n*float64(d); total < 1<<62 {
				b.Duration = time.Duration(total)
			}
			continue
		}
		switch budgetUnits[unit] {
		case "nodes":
			b.Nodes = max(b.Nodes, int(n))
		case "topologies":
			b.Topologies = max(b.Topologies, int(n))
		case "faults":
			if b.Faults == nil {
				b.Faults = new(int)
			}
			*b.Faults = min(*b.Faults+int(n), math.MaxInt32)
		case "seeds":
			b.Seeds = max(b.Seeds, int(n))
		case "ops":
			b.Ops = max(b.Ops, int64(n))
		case "repetitions":
			b.Repetitions = max(b.Repetitions, int(n))
		}
	}
}

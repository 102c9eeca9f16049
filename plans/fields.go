package plans

// Canonical field names, spelled as the plan template spells them.
const (
	// Header fields (spec §1.1).
	HeaderDate   = "Date"
	HeaderMode   = "Plan mode"
	HeaderSUT    = "SUT"
	HeaderChange = "Change under test"
	HeaderAuthor = "Plan author"
	HeaderStatus = "Status"

	// Scenario fields (spec §1.4).
	FieldFalsifies     = "Falsifies if it FAILs"
	FieldCloses        = "Closes"
	FieldTechnique     = "Technique"
	FieldWorkload      = "Workload"
	FieldFaults        = "Faults"
	FieldOracle        = "Oracle"
	FieldObservability = "Observability required"
	FieldExit          = "Exit criteria"
	FieldSmoke         = "Smoke budget"
	FieldHardening     = "Hardening budget"
	FieldRelease       = "Release budget"
	FieldBudgets       = "Budgets" // tolerated: one field with a sub-item per tier
	FieldTargetFile    = "Target test file"
	FieldSkeletonLang  = "Skeleton language"
	FieldSkeleton      = "Skeleton"
	FieldSurface       = "Surface" // an arm's surface, when its heading does not say

	// §7.M fields (spec §1.5).
	FieldModel     = "Model under test"
	FieldHistory   = "Operation history"
	FieldChecker   = "Checker"
	FieldLanding   = "Nemesis + landing evidence"
	FieldAmbiguous = "Ambiguous outcomes"
	FieldReduction = "Reduction plan"

	// §7.M.S fields (spec §1.7), plus the fairness additions.
	FieldSurfaces    = "Surfaces"
	FieldOperations  = "Operations"
	FieldAdversarial = "Adversarial inputs"
	FieldPositive    = "Positive controls"
	FieldNegative    = "Negative controls"
	FieldAsync       = "Delayed / async paths"
	FieldObsPaths    = "Observability paths"
	FieldArms        = "Scenario arms"
	FieldGroup       = "Group dimension"
	FieldThresholds  = "Fairness thresholds"
)

// fieldTable maps normalised labels (see normLabel) to canonical names. Aliases
// are spellings seen in real plans and older template versions.
type fieldTable map[string]string

var headerFields = fieldTable{
	"date":              HeaderDate,
	"plan mode":         HeaderMode,
	"mode":              HeaderMode,
	"sut":               HeaderSUT,
	"system under test": HeaderSUT,
	"change under test": HeaderChange,
	"change":            HeaderChange,
	"plan author":       HeaderAuthor,
	"author":            HeaderAuthor,
	"status":            HeaderStatus,
}

var scenarioFields = fieldTable{
	"falsifies if it fails":  FieldFalsifies,
	"falsifies":              FieldFalsifies,
	"falsifies if fails":     FieldFalsifies,
	"falsifies claims":       FieldFalsifies,
	"closes":                 FieldCloses,
	"closes hypotheses":      FieldCloses,
	"technique":              FieldTechnique,
	"techniques":             FieldTechnique,
	"workload":               FieldWorkload,
	"faults":                 FieldFaults,
	"fault":                  FieldFaults,
	"fault schedule":         FieldFaults,
	"nemesis":                FieldFaults,
	"faults / nemesis":       FieldFaults,
	"fault / nemesis":        FieldFaults,
	"oracle":                 FieldOracle,
	"observability required": FieldObservability,
	"observability":          FieldObservability,
	"exit criteria":          FieldExit,
	"exit criterion":         FieldExit,
	"smoke budget":           FieldSmoke,
	"smoke":                  FieldSmoke,
	"smoke tier":             FieldSmoke,
	"hardening budget":       FieldHardening,
	"hardening":              FieldHardening,
	"hardening tier":         FieldHardening,
	"release budget":         FieldRelease,
	"release":                FieldRelease,
	"release tier":           FieldRelease,
	"budgets":                FieldBudgets,
	"budget":                 FieldBudgets,
	"budget tiers":           FieldBudgets,
	"target test file":       FieldTargetFile,
	"target file":            FieldTargetFile,
	"skeleton language":      FieldSkeletonLang,
	"skeleton":               FieldSkeleton,
	"surface":                FieldSurface,
}

var modelFields = fieldTable{
	"model under test":             FieldModel,
	"model":                        FieldModel,
	"operation history":            FieldHistory,
	"history":                      FieldHistory,
	"checker":                      FieldChecker,
	"checkers":                     FieldChecker,
	"nemesis + landing evidence":   FieldLanding,
	"nemesis and landing evidence": FieldLanding,
	"nemesis / landing evidence":   FieldLanding,
	"landing evidence":             FieldLanding,
	"ambiguous outcomes":           FieldAmbiguous,
	"reduction plan":               FieldReduction,
	"reduction":                    FieldReduction,
}

var surfaceFields = fieldTable{
	"surfaces":               FieldSurfaces,
	"operations":             FieldOperations,
	"adversarial inputs":     FieldAdversarial,
	"confusable identifiers": FieldAdversarial,
	"positive controls":      FieldPositive,
	"negative controls":      FieldNegative,
	"delayed / async paths":  FieldAsync,
	"delayed/async paths":    FieldAsync,
	"async paths":            FieldAsync,
	"background paths":       FieldAsync,
	"observability paths":    FieldObsPaths,
	"scenario arms":          FieldArms,
	"arms":                   FieldArms,
	"group dimension":        FieldGroup,
	"fairness thresholds":    FieldThresholds,
	"thresholds":             FieldThresholds,
}

// Required fields, in the order diagnostics name them.
var (
	modelRequired   = []string{FieldModel, FieldHistory, FieldChecker, FieldLanding, FieldAmbiguous, FieldReduction}
	surfaceRequired = []string{FieldSurfaces, FieldOperations, FieldAdversarial, FieldPositive,
		FieldNegative, FieldAsync, FieldObsPaths, FieldArms}
)

// lookup returns the canonical name of label, if known.
func (t fieldTable) lookup(label string) (string, bool) {
	name, ok := t[normLabel(label)]
	return name, ok
}

// nearest returns the canonical name whose alias is within two edits of label,
// so "Orcale" gets "did you mean Oracle". Short labels are never guessed; ties
// go to the alphabetically first name so the answer does not depend on map order.
func (t fieldTable) nearest(label string) (string, bool) {
	const tooFar = 3
	key := normLabel(label)
	if len(key) < 5 {
		return "", false
	}
	best, bestD := "", tooFar
	for alias, name := range t {
		d := editDistance(key, alias, tooFar)
		if d < bestD || d == bestD && d < tooFar && name < best {
			best, bestD = name, d
		}
	}
	return best, best != ""
}

// editDistance is the Levenshtein distance of a and b, or limit when it is at
// least limit (labels are short; the cap keeps it cheap).
func editDistance(a, b string, limit int) int {
	if d := len(a) - len(b); d >= limit || -d >= limit {
		return limit
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			rowMin = min(rowMin, cur[j])
		}
		if rowMin >= limit {
			return limit
		}
		prev, cur = cur, prev
	}
	return min(prev[len(b)], limit)
}

package probe

import "strings"

// skipped reports whether the operator skipped the row: by its name, by any
// capability it names, or by skipping every scenario that needs it.
func skipped(r Requirement, skip []string) bool {
	has := func(key string) bool {
		for _, s := range skip {
			if strings.EqualFold(s, key) {
				return true
			}
		}
		return false
	}
	if has(r.Name) {
		return true
	}
	for _, c := range r.Capabilities {
		if has(c) {
			return true
		}
	}
	if len(r.UsedBy) == 0 {
		return false
	}
	for _, id := range r.UsedBy {
		if !has(id) {
			return false
		}
	}
	return true
}

// lookup finds key in an operator-supplied map, ignoring case: the operator
// types "--assume IPTables=present" as readily as "iptables". An exact match
// wins, so the answer does not depend on map order.
func lookup(m map[string]bool, key string) (bool, bool) {
	if v, ok := m[key]; ok {
		return v, true
	}
	for k, v := range m {
		if strings.EqualFold(k, key) {
			return v, true
		}
	}
	return false, false
}

package history

// Equal compares two generic values the way checkers need: integers and
// integral floats are equal (JSON and EDN disagree on number types), keywords
// equal strings with the same text, and collections compare element-wise.
func Equal(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case int64:
		switch y := b.(type) {
		case int64:
			return x == y
		case float64:
			return float64(x) == y
		case int:
			return x == int64(y)
		}
	case int:
		return Equal(int64(x), b)
	case float64:
		switch y := b.(type) {
		case int64, int:
			return Equal(b, x)
		case float64:
			return x == y
		}
	case string:
		switch y := b.(type) {
		case string:
			return x == y
		case Keyword:
			return x == string(y)
		}
	case Keyword:
		return Equal(string(x), b)
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !Equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case Set:
		y, ok := b.(Set)
		return ok && len(x) == len(y) && subset(x, y) && subset(y, x)
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !Equal(xv, yv) {
				return false
			}
		}
		return true
	}
	return false
}

func subset(a, b Set) bool {
	for _, x := range a {
		found := false
		for _, y := range b {
			if Equal(x, y) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

package parse

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseKV parses "a=1,b=2" into a map.
func ParseKV(s string) (map[string]int, error) {
	out := map[string]int{}
	if s == "" {
		return out, nil
	}
	for _, part := range strings.Split(s, ",") {
		kv := strings.SplitN(part, "=", 2)
		if len(kv) != 2 {
			return nil, fmt.Errorf("missing '=' in %q", part)
		}
		n, err := strconv.Atoi(kv[1]) // bug: no TrimSpace
		if err != nil {
			return nil, err
		}
		out[kv[0]] = n
	}
	return out, nil
}

// Version parses "v1.2.3".
func Version(s string) [3]int {
	var v [3]int
	parts := strings.Split(strings.TrimPrefix(s, "v"), ".")
	for i := range v {
		if i < len(parts) {
			v[i], _ = strconv.Atoi(parts[i]) // bug: pre-release suffix makes Atoi fail
		}
	}
	return v
}

package parse

import "testing"

func TestParseKV(t *testing.T) {
	cases := []struct {
		name string
		in   string
		want map[string]int
	}{
		{"empty_input", "", map[string]int{}},
		{"single_pair", "a=1", map[string]int{"a": 1}},
		{"spaces_around_value", "a= 7", map[string]int{"a": 7}},
		{"two_pairs", "a=1,b=2", map[string]int{"a": 1, "b": 3}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseKV(tc.in)
			if err != nil {
				t.Fatalf("ParseKV(%q) returned error: %v", tc.in, err)
			}
			for k, v := range tc.want {
				if got[k] != v {
					t.Errorf("ParseKV(%q)[%q] = %d, want %d", tc.in, k, got[k], v)
				}
			}
		})
	}
}

func TestParseKVMissingEquals(t *testing.T) {
	if _, err := ParseKV("novalue"); err == nil {
		t.Error("expected an error for novalue")
	}
}

func TestVersion(t *testing.T) {
	t.Logf("parsing release tag v2.10.1-rc1")
	got := Version("v2.10.1-rc1")
	if got != [3]int{2, 10, 1} {
		t.Errorf("Version(v2.10.1-rc1) = %v, want [2 10 1]", got)
	}
}

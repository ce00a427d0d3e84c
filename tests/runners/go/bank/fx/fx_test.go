package fx

import "testing"

func TestConvertEUR(t *testing.T) {
	if got := Convert("EURUSD", 100); got != 108 {
		t.Errorf("EURUSD 100 = %v", got)
	}
}

func TestConvertUnknownPair(t *testing.T) {
	if got := Convert("JPYUSD", 100); got == 0 {
		t.Errorf("JPYUSD rate missing: converted 100 to %v", got)
	}
}

func TestHops(t *testing.T) {
	if Hops([]string{"EUR", "USD", "GBP"}) != "GBP" {
		t.Error("last hop wrong")
	}
}

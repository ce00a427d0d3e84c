package fx

var rates = map[string]float64{"EURUSD": 1.08, "GBPUSD": 1.27}

func Convert(pair string, amount float64) float64 { return amount * rates[pair] }

func Hops(path []string) string { return path[len(path)] } // bug: off by one

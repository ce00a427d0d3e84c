module example.com/bank

go 1.19

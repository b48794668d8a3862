module contractpin.dev/go/contractpin

go 1.21

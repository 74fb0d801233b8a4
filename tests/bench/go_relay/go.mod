module ouroboros.bench/go_relay

go 1.19

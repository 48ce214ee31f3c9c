"""Event transport over NATS JetStream (the only I/O in ``croupier`` besides the store)."""

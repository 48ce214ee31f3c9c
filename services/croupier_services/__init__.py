"""Croupier's thin service processes: dealer (gateway gRPC), rules, settlement, audit."""

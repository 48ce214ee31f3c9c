"""What request ids cost at the gateway: baccarat coups (OpenHand, PlaceBets,
CloseBetting: three gRPC calls) per second without request ids, with a fresh one per
call (one more SELECT and INSERT in each call's transaction), and the same calls retried
and answered from the stored results.

    .venv/bin/python bench/bench_gateway_requests.py [--coups 300] [--database-url URL]

The dealer's gateway servicer runs in this process over real gRPC on loopback and a real
store (a temporary SQLite file unless ``--database-url`` names one); no bus, so closed
hands are stored but not published (the cost measured is the gateway's and the store's).
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
import uuid
from pathlib import Path

import grpc
from bench_gateway import build_core

from croupier.auth import init_dev
from croupier.pb.croupier.v1 import gateway_pb2, gateway_pb2_grpc
from croupier.store import Store
from croupier_services.dealer import GatewayServicer
from croupier_services.keys import init_keys


async def run(coups: int, db_url: str, work: Path) -> None:
    store = Store.open(db_url, upgrade=True)
    init_keys(work / "keys")
    core = build_core(store, work / "keys", init_dev(work / "auth"))
    core.relay.kick = lambda: None  # type: ignore[method-assign]  # no bus: nothing publishes
    server = grpc.aio.server()
    gateway_pb2_grpc.add_GatewayServiceServicer_to_server(GatewayServicer(core), server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as ch:
            gw = gateway_pb2_grpc.GatewayServiceStub(ch)
            table = f"bench_{uuid.uuid4().hex[:8]}"
            await gw.OpenTable(gateway_pb2.OpenTableRequest(table_id=table, variant="baccarat"))
            seats = [
                gateway_pb2.SeatEntry(seat=i, player_id=f"p{i}", stack_minor=10**14)
                for i in range(1, 4)
            ]
            bet = [gateway_pb2.Bet(seat=1, spot="banker", amount_minor=1_000)]

            async def coup(ids: tuple[str, str, str], hand_id: str = "") -> str:
                h = await gw.OpenHand(
                    gateway_pb2.OpenHandRequest(table_id=table, seats=seats, request_id=ids[0])
                )
                await gw.PlaceBets(
                    gateway_pb2.PlaceBetsRequest(hand_id=h.hand_id, bets=bet, request_id=ids[1])
                )
                await gw.CloseBetting(
                    gateway_pb2.CloseBettingRequest(hand_id=h.hand_id, request_id=ids[2])
                )
                assert not hand_id or h.hand_id == hand_id
                return str(h.hand_id)

            async def timed(
                label: str, idss: list[tuple[str, str, str]], hids: list[str]
            ) -> list[str]:
                t0 = time.perf_counter()
                out = [await coup(ids, hid) for ids, hid in zip(idss, hids, strict=True)]
                dt = time.perf_counter() - t0
                per_call_ms = dt / len(idss) / 3 * 1e3
                print(f"{label:<40}{len(idss) / dt:7.0f} coups/s {per_call_ms:6.2f} ms/call")
                return out

            none = [("", "", "")] * coups
            fresh = [(str(uuid.uuid4()), str(uuid.uuid4()), str(uuid.uuid4())) for _ in none]
            await timed("without request ids", none, [""] * coups)
            hids = await timed("with a fresh request id per call", fresh, [""] * coups)
            await timed("retried, answered from the records", fresh, hids)
    finally:
        await server.stop(0)
        store.close()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--coups", type=int, default=300)
    ap.add_argument("--database-url")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        url = a.database_url or f"sqlite:///{Path(d) / 'bench.sqlite'}"
        asyncio.run(run(a.coups, url, Path(d)))


if __name__ == "__main__":
    main()

"""幸运五张: the exact RTP of the automatic hold (winning cards held, nothing else) over
all 2,598,960 deals and every draw, for the paytable in the variant config - and, for
comparison, the same strategy under the "to 1" reading of the paytable (the seed's
"所赢的金额等同于赔付值乘以投注金额" read as profit rather than return).

Run: ``.venv/bin/python bench/bench_videopoker_rtp.py`` (about a minute).
"""

from __future__ import annotations

import json
import time
from fractions import Fraction

from croupier.games.registry import variant_config
from croupier.games.videopoker.probability import auto_hold_rtp
from croupier.games.videopoker.rules import PayHand, Paytable, paytable_from_config


def main() -> None:
    t0 = time.perf_counter()
    table = paytable_from_config(variant_config("videopoker.lucky5").raw)
    r = auto_hold_rtp(table)
    to_one = Paytable(
        {h: (v + 1 if h is not PayHand.NOTHING else Fraction(0)) for h, v in table.items()}
    )
    r2 = auto_hold_rtp(to_one)
    print(
        json.dumps(
            {
                "deals": {h.value: n for h, n in r.deals.items()},
                "line_value": {h.value: str(v) for h, v in r.line_value.items()},
                "losing_value": str(r.losing_value),
                "rtp": str(r.rtp),
                "rtp_decimal": f"{float(r.rtp):.8f}",
                "rtp_to_one_reading": str(r2.rtp),
                "rtp_to_one_reading_decimal": f"{float(r2.rtp):.8f}",
                "seconds": round(time.perf_counter() - t0),
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()

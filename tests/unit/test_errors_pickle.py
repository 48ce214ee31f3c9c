"""Every error of the library's tree crosses a process boundary whole
(:meth:`croupier.errors.CroupierError.__reduce__`): the dealer's writer process and the
audit's workers send errors back pickled, and ``Exception``'s own pickling would call
the class with its message alone, which the errors with required keywords refuse."""

from __future__ import annotations

import pickle

import croupier.errors as errors
from croupier.errors import CroupierError, StaleFencingToken


def test_every_error_of_the_tree_crosses_a_pickle_whole() -> None:
    kinds = [
        v
        for v in vars(errors).values()
        if isinstance(v, type) and issubclass(v, CroupierError)
    ]
    assert len(kinds) >= 25
    for cls in kinds:
        err = cls.__new__(cls, f"{cls.__name__} happened")
        CroupierError.__init__(err, f"{cls.__name__} happened", reason="because")
        err.__dict__["fact"] = 7
        back = pickle.loads(pickle.dumps(err))
        assert type(back) is cls
        assert (str(back), back.message, back.reason, back.__dict__["fact"]) == (
            f"{cls.__name__} happened",
            f"{cls.__name__} happened",
            "because",
            7,
        )
    stale = pickle.loads(
        pickle.dumps(StaleFencingToken("fenced", table_id="t", token=3, current=4))
    )
    assert stale.details() == StaleFencingToken(
        "fenced", table_id="t", token=3, current=4
    ).details()

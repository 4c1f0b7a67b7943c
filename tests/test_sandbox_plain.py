"""The plain-data layer on its own: a type is a scalar only by identity, whatever it claims."""

from __future__ import annotations

import pytest

from course_utils.sandbox._plain import PlainValueError, compare, is_scalar_type, to_plain


class _Liar(type):
    def __eq__(cls, other):  # says it is every type
        return True

    def __hash__(cls):
        return hash(int)


class FakeInt(metaclass=_Liar):
    def __eq__(self, other):
        return True


@pytest.mark.parametrize("kind", [int, str, float, bool, type(None), complex, bytes, range])
def test_the_eight_scalar_types_are_scalars(kind):
    assert is_scalar_type(kind)


@pytest.mark.parametrize("kind", [FakeInt, _Liar, type("int", (int,), {}), object, list])
def test_nothing_else_is_even_if_it_says_it_equals_int(kind):
    assert FakeInt == int  # noqa: E721 - the lie itself, on purpose
    assert not is_scalar_type(kind)


def test_a_lying_object_never_reaches_a_comparison():
    with pytest.raises(PlainValueError, match="FakeInt"):
        to_plain(FakeInt())
    with pytest.raises(PlainValueError):
        compare("==", FakeInt(), 3)
    assert compare("==", 3, 3) and not compare("==", 3, 4)
    assert to_plain(type("int", (int,), {})(7)) == 7 and type(to_plain(type("I", (int,), {})(7))) is int


def test_the_caller_decodes_no_more_than_a_runs_budget():
    # A child whose Python layers were escaped writes its records itself: 16 MB of
    # ["ct", []] cost the caller 2 s of decoding (round 39). The caller charges each tagged
    # value at most what the child's encoder spends for it, against twice the child's budget.
    from course_utils.sandbox._plain import CALLER_BUDGET, MAX_SENT_CONTAINERS, RunEncoding, decode, encode

    flood = ["l", [["ct", []] for _ in range(CALLER_BUDGET)]]
    with pytest.raises(ValueError):
        decode(flood, 0, {})
    # what an honest child may send, at its own limit, decodes
    honest = [[{i: (i, 2.5)}] for i in range(MAX_SENT_CONTAINERS // 5)]
    spent = RunEncoding()
    assert decode(encode(honest, spent), 0, {}) == honest

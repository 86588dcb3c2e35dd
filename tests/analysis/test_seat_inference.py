"""The seat test and its intervals on synthetic hands with a known truth.

Equal seats: across rotated and fixed seats, 10 to 300 deals, 2 to 5 players, shared ties
and hands nobody wins, the share of reports that name any seat stays at 5% (within Monte
Carlo error) and every interval lies in [0, 1]; with a known edge, the intervals cover.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from fastmach.analysis import stats
from fastmach.analysis.seats import deal_excess, fair_variance, seat_intervals, seat_test

ALPHA = 0.05
REPORTS = 300


def synthetic_shares(rng, players: int, deals: int, rotated: bool, cells: int,
                     no_winner: float, tie: float, edge: float = 0.0):
    """Per cell: (hands, players) win shares by relative seat and each hand's deal.

    Every cell replays the same deals (a deal favours one absolute seat in all its hands
    and cells); rotated designs play ``players`` hands per deal with the first player
    moving round, fixed ones one hand with the first player at seat 0. ``edge`` is added
    to the first player's chance of being the favoured seat.
    """
    per = players if rotated else 1
    favoured = rng.integers(0, players, size=deals)
    out = []
    for _ in range(cells):
        first = np.tile(np.arange(per), deals)
        deal = np.repeat(np.arange(deals), per)
        n = deals * per
        fav = favoured[deal]
        winner = np.where(rng.random(n) < 0.4, fav, rng.integers(0, players, size=n))
        if edge:
            winner = np.where(rng.random(n) < edge, first % players, winner)
        rel_w = (winner - first) % players
        shares = np.zeros((n, players))
        shares[np.arange(n), rel_w] = 1.0
        tied = rng.random(n) < tie
        other = (rel_w + rng.integers(1, players, size=n)) % players
        shares[tied, rel_w[tied]] = 0.5
        shares[tied, other[tied]] = 0.5
        shares[rng.random(n) < no_winner] = 0.0
        out.append((shares, deal))
    return out


DESIGNS = [  # players, deals, rotated, no-winner share, tie share
    (2, 10, False, 0.0, 0.0), (2, 10, True, 0.5, 0.2), (3, 10, False, 0.85, 0.0),
    (4, 20, False, 0.3, 0.3), (5, 10, True, 0.6, 0.1), (3, 40, False, 0.9, 0.1),
    (4, 100, True, 0.2, 0.1), (5, 300, False, 0.5, 0.2), (2, 300, True, 0.0, 0.5),
]


@pytest.mark.parametrize("players,deals,rotated,no_winner,tie", DESIGNS)
def test_equal_seats_are_named_in_at_most_five_percent_of_reports(players, deals, rotated,
                                                                  no_winner, tie):
    rng = np.random.default_rng(players * 1000 + deals + rotated)
    named = 0
    for _ in range(REPORTS):
        cells = synthetic_shares(rng, players, deals, rotated, 12, no_winner, tie)
        universe = np.arange(deals)
        test = seat_test([deal_excess(s, d, universe) for s, d in cells], ALPHA,
                         resamples=400, seed=int(rng.integers(1 << 31)))
        p = np.concatenate(test["p_adjusted"])
        named += bool(np.nanmin(p, initial=1.0) < ALPHA)
        crit = float(test["critical"][0][0])
        for (s, _), sd in zip(cells, test["sd"]):
            share = s.mean(axis=0)
            fair = s.sum(axis=1).mean() / players
            lo, hi = seat_intervals(share, fair, sd, len(s), crit,
                                    fair_variance(s, cells[0][1]))
            assert np.all((lo >= 0) & (hi <= 1) & (hi > lo))
    rate = named / REPORTS
    assert rate <= ALPHA + 2.5 * math.sqrt(ALPHA * (1 - ALPHA) / REPORTS), rate


def _hands_frame(cells, players: int, rotated: bool) -> pd.DataFrame:
    frames = []
    for c, (s, deal) in enumerate(cells):
        n = len(s)
        per = players if rotated else 1
        f = pd.DataFrame({"cell": f"classic|{players}|c{c}", "rules": "classic",
                          "players": players, "lineup": f"c{c}", "replicate": deal,
                          "hand": 0, "first_player": 0, "turns": 30, "end": "emptied",
                          "stock_exhausted": False, "rotation": np.tile(np.arange(per),
                                                                        n // per)})
        for i in range(players):
            f[f"win_share_{i}"] = s[:, i]
        frames.append(f)
    return pd.concat(frames, ignore_index=True)


def test_seat_table_from_ten_fixed_deals_names_no_seat_and_stays_in_the_unit_interval():
    rng = np.random.default_rng(7)
    named = 0
    for _ in range(60):
        cells = synthetic_shares(rng, 4, 10, False, 12, 0.5, 0.1)
        t = stats.seat_table(_hands_frame(cells, 4, False), resamples=400)
        assert list(t.columns[:4]) == ["cell", "rules", "players", "lineup"]
        assert {"win_share", "lo", "hi", "p_adjusted", "named"} <= set(t.columns)
        assert ((t["lo"] >= 0) & (t["hi"] <= 1) & (t["hi"] > t["lo"])).all()
        named += int(t["named"].any())
    assert named <= 7


def test_seat_intervals_cover_every_seat_together_at_95_percent_with_a_known_edge():
    """Family coverage of the simultaneous intervals: every seat's true share inside."""
    rng = np.random.default_rng(11)
    players, deals, edge = 3, 150, 0.1
    # truth: the first player wins with the edge, else as in synthetic_shares (every seat
    # equally likely to be favoured), and nobody wins in 30% of hands
    base = (1 - edge) / players
    truth = np.array([edge + base] + [base] * (players - 1)) * 0.7
    covered, reports = 0, REPORTS
    for _ in range(reports):
        cells = synthetic_shares(rng, players, deals, True, 1, 0.3, 0.0, edge=edge)
        s, d = cells[0]
        test = seat_test([deal_excess(s, d, np.arange(deals))], ALPHA, resamples=400,
                         seed=int(rng.integers(1 << 31)))
        lo, hi = seat_intervals(s.mean(axis=0), s.sum(axis=1).mean() / players,
                                test["sd"][0], len(s), float(test["critical"][0][0]),
                                fair_variance(s, d))
        covered += bool(np.all((lo <= truth) & (truth <= hi)))
    assert abs(covered / reports - 0.95) <= 0.03, covered / reports


def test_share_intervals_cover_95_percent_of_a_known_rare_share():
    rng = np.random.default_rng(5)
    truth, deals, per = 0.08, 120, 4
    covered = 0
    for _ in range(REPORTS * 2):
        p_deal = rng.beta(2, 2 * (1 - truth) / truth, size=deals)  # deal-level clustering
        y = (rng.random((deals, per)) < p_deal[:, None]).astype(float).ravel()
        e = stats.ratio_estimate(y, np.ones_like(y), np.repeat(np.arange(deals), per))
        lo, hi = stats.share_interval(e)
        assert 0 <= lo < hi <= 1
        covered += lo <= truth <= hi
    assert abs(covered / (REPORTS * 2) - 0.95) <= 0.02


def test_paired_effect_intervals_cover_95_percent_of_a_known_difference():
    rng = np.random.default_rng(3)
    deals, per, truth = 100, 3, 1.5
    covered = 0
    for _ in range(REPORTS * 2):
        deal_effect = rng.normal(40, 6, size=deals)
        idx = np.repeat(np.arange(deals), per)
        base = deal_effect[idx] + rng.normal(0, 4, size=deals * per)
        variant = deal_effect[idx] + truth + rng.normal(0, 4, size=deals * per)
        one = np.ones(deals * per)
        d = stats.ratio_estimate(variant, one, idx) - stats.ratio_estimate(base, one, idx)
        lo, hi = d.interval()
        covered += lo <= truth <= hi
    assert abs(covered / (REPORTS * 2) - 0.95) <= 0.02

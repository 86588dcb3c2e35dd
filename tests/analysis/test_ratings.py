"""Plackett-Luce ratings (fastmach.analysis.ratings): the fit against choix, planted
strengths recovered with covering intervals, shared ties, deal-clustered intervals."""
from __future__ import annotations

import itertools
import math

import choix
import numpy as np
import pandas as pd
import pytest

from fastmach.analysis.ratings import choice_data, fit, ladder, log_likelihood

NAMES = ["beginner", "expert", "patient", "intermediate"]


def hand_rows(tables, winners_weights, points=None, replicate=None, players=4):
    """Hand rows from seats (lists of strategy names) and win shares per seat."""
    rows = []
    for h, (seats, ws) in enumerate(zip(tables, winners_weights)):
        row = {"rules": "classic", "players": players,
               "replicate": h if replicate is None else replicate[h]}
        for i in range(players):
            row[f"strategy_{i}"] = seats[i]
            row[f"win_share_{i}"] = float(ws[i])
            row[f"hand_points_{i}"] = float(points[h][i]) if points is not None else 0.0
        rows.append(row)
    return pd.DataFrame(rows)


def simulate(theta, lineups, deals, rng, shock=0.0, hands_per_lineup=1):
    """Plackett-Luce hands: every line-up (indices into NAMES) on every deal; the seat
    order is drawn by the Gumbel-max trick from the strengths ``theta`` plus, with
    ``shock``, a deal-level shift per strategy shared by every hand of the deal."""
    tables, shares, points, reps = [], [], [], []
    for d in range(deals):
        eta = shock * rng.standard_normal(len(theta))
        for lu in lineups:
            for _ in range(hands_per_lineup):
                u = np.array([theta[s] + eta[s] for s in lu]) + rng.gumbel(size=len(lu))
                order = np.argsort(-u)
                ws = np.zeros(len(lu))
                ws[order[0]] = 1.0
                pts = np.empty(len(lu))
                pts[order] = np.arange(len(lu))
                tables.append([NAMES[s] for s in lu])
                shares.append(ws)
                points.append(pts)
                reps.append(d)
    return hand_rows(tables, shares, points, reps, players=len(lineups[0]))


LINEUPS = [c for c in itertools.combinations_with_replacement(range(4), 4) if len(set(c)) > 1]
PLANTED = np.array([-2.0, 0.0, 0.3, -0.8])  # beginner, expert (anchor), patient, intermediate


def test_fit_is_choix_top1_estimate_on_untied_winners():
    rng = np.random.default_rng(3)
    theta = np.array([-1.0, 0.0, 0.6, -0.4, 1.1])
    names = [f"s{i}" for i in range(5)]
    tables, shares, top1 = [], [], []
    for _ in range(1500):
        seats = rng.choice(5, 4, replace=False)
        win = int(np.argmax(theta[seats] + rng.gumbel(size=4)))
        ws = np.zeros(4)
        ws[win] = 1
        tables.append([names[s] for s in seats])
        shares.append(ws)
        top1.append((int(seats[win]), [int(s) for j, s in enumerate(seats) if j != win]))
    d = choice_data(hand_rows(tables, shares), names)
    ours = fit(d.sets, *d.totals(), anchor=0)
    ref = choix.ilsr_top1(5, top1, alpha=1e-6, tol=1e-12)  # choix's maximum likelihood
    assert np.allclose(ours, ref - ref[0], atol=1e-5)


def test_fit_is_choix_rankings_estimate_when_everyone_is_ranked():
    rng = np.random.default_rng(4)
    theta = np.array([0.0, -0.7, 0.5, 1.2])
    names = [f"s{i}" for i in range(4)]
    tables, shares, points, rankings = [], [], [], []
    for _ in range(800):
        seats = rng.permutation(4)[:3]
        order = np.argsort(-(theta[seats] + rng.gumbel(size=3)))
        ws = np.zeros(3)
        ws[order[0]] = 1
        pts = np.empty(3)
        pts[order] = [0, 4, 9]
        tables.append([names[s] for s in seats])
        shares.append(ws)
        points.append(pts)
        rankings.append([int(seats[i]) for i in order])
    hands = hand_rows(tables, shares, points, players=3)
    d = choice_data(hands, names, rank="points")
    ours = fit(d.sets, *d.totals(), anchor=0)
    ref = choix.ilsr_rankings(4, rankings, alpha=1e-6, tol=1e-12)
    assert np.allclose(ours, ref - ref[0], atol=1e-5)
    winners_only = choice_data(hands, names)
    assert not np.allclose(fit(winners_only.sets, *winners_only.totals()), ours, atol=1e-3)


def test_planted_strengths_are_recovered_and_the_deal_intervals_cover_them():
    rng = np.random.default_rng(11)
    errors, covered, total = [], 0, 0
    for sim in range(25):
        hands = simulate(PLANTED, LINEUPS, deals=30, rng=rng)
        ratings, _ = ladder(hands, NAMES, resamples=200, seed=sim)
        got = ratings.set_index("strategy").loc[NAMES]
        assert got.loc["expert", "rating"] == 0.0
        for s, true in zip(NAMES, PLANTED):
            if s == "expert":
                continue
            errors.append(got.loc[s, "rating"] - true)
            covered += got.loc[s, "rating_lo"] <= true <= got.loc[s, "rating_hi"]
            total += 1
    assert abs(np.mean(errors)) < 0.05  # no bias to speak of
    assert np.sqrt(np.mean(np.square(errors))) < 0.2
    assert 0.85 <= covered / total <= 1.0  # nominal 95%


def test_the_ladder_orders_planted_strengths():
    hands = simulate(PLANTED, LINEUPS, deals=60, rng=np.random.default_rng(5))
    ratings, _ = ladder(hands, NAMES, resamples=0)
    assert list(ratings["strategy"]) == ["patient", "expert", "intermediate", "beginner"]
    assert list(ratings["rank"]) == [1, 2, 3, 4]
    assert ratings["elo"].iloc[1] == 1500.0


def test_a_tie_for_the_win_counts_half_a_hand_for_each_winner():
    rng = np.random.default_rng(8)
    tables, shares, split_tables, split_shares = [], [], [], []
    for _ in range(400):
        seats = [NAMES[i] for i in rng.choice(4, 4, replace=True)]
        if len(set(seats)) == 1:
            continue
        ws = np.zeros(4)
        winners = rng.choice(4, 2 if rng.random() < 0.3 else 1, replace=False)
        ws[winners] = 1 / len(winners)
        tables.append(seats)
        shares.append(ws)
        if len(winners) == 1:  # the same hand twice
            split_tables += [seats, seats]
            split_shares += [ws, ws]
        else:  # once won by each of the two
            for w in winners:
                one = np.zeros(4)
                one[w] = 1
                split_tables.append(seats)
                split_shares.append(one)
    tied = choice_data(hand_rows(tables, shares), NAMES)
    split = choice_data(hand_rows(split_tables, split_shares), NAMES)
    a = fit(tied.sets, *tied.totals(), anchor=1, alpha=0.0)
    b = fit(split.sets, *split.totals(), anchor=1, alpha=0.0)
    assert np.allclose(a, b, atol=1e-7)
    # counting each tied winner as a full win would be another estimate
    full = [np.where(ws > 0, 1.0, 0.0) for ws in shares]
    wrong = choice_data(hand_rows(tables, full), NAMES)
    assert not np.allclose(fit(wrong.sets, *wrong.totals(), anchor=1, alpha=0.0), a,
                           atol=1e-3)


def test_ranking_everyone_shares_tied_points_and_drops_the_last_stage():
    hands = hand_rows([["expert", "patient", "beginner", "patient"]], [[1, 0, 0, 0]],
                      points=[[0, 3, 3, 5]])
    d = choice_data(hands, NAMES, rank="points")
    stages = {tuple(int(x) for x in s): (e, tuple(w)) for s, e, w in
              zip(d.sets, d.events[0], d.wins[0])}
    # the expert (index 1) wins among everyone; then a patient and the beginner, tied on
    # 3 points, share the choice from {patient, beginner, patient} (1/2 each); the last
    # patient, left alone, says nothing
    assert stages == {(1, 1, 2, 0): (1.0, (0.0, 1.0, 0.0, 0.0)),
                      (1, 0, 2, 0): (1.0, (0.5, 0.0, 0.5, 0.0))}
    theta = np.array([-1.0, 0.0, 0.4, 0.0])
    e = np.exp(theta)
    by_hand = (theta[1] - math.log(e[0] + e[1] + 2 * e[2])
               + 0.5 * (theta[2] - math.log(e[0] + 2 * e[2]))
               + 0.5 * (theta[0] - math.log(e[0] + 2 * e[2])))
    ll = log_likelihood(theta, d.sets, d.events.sum(0), d.wins.sum(0))
    assert ll == pytest.approx(by_hand)


def test_hands_nobody_wins_say_nothing_about_strength():
    hands = hand_rows([["expert", "patient", "beginner", "patient"]] * 2,
                      [[0, 0, 0, 0], [0.25, 0.25, 0.25, 0.25]])
    d = choice_data(hands, NAMES)
    assert d.events.sum() == 0


def test_deal_clustered_intervals_are_wider_than_naive_on_clustered_data():
    rng = np.random.default_rng(21)

    def widths(hands, cluster):
        r, _ = ladder(hands, NAMES, resamples=300, seed=1, cluster=cluster)
        r = r[r["strategy"] != "expert"]
        return float((r["rating_hi"] - r["rating_lo"]).mean())

    clustered = simulate(PLANTED, LINEUPS, deals=40, rng=rng, shock=0.8, hands_per_lineup=2)
    assert widths(clustered, "deal") > 1.5 * widths(clustered, "hand")
    plain = simulate(PLANTED, LINEUPS, deals=40, rng=rng, hands_per_lineup=2)
    assert 0.75 < widths(plain, "deal") / widths(plain, "hand") < 1.3


def test_head_to_head_is_the_pairs_share_of_their_wins_per_seat():
    tables = [["expert", "patient", "patient", "beginner"],
              ["expert", "patient", "beginner", "beginner"],
              ["expert", "expert", "patient", "beginner"]]
    shares = [[0, 1, 0, 0], [1, 0, 0, 0], [0, 0, 0, 1]]
    _, h2h = ladder(hand_rows(tables, shares), NAMES[:3], resamples=0)
    h = h2h.set_index(["strategy", "opponent"])
    # per seat: patient 1/2, 0, 0; expert 0, 1, 0 -> patient's share 0.5 / 1.5
    assert h.loc[("patient", "expert"), "win_share"] == pytest.approx(1 / 3)
    assert h.loc[("expert", "patient"), "win_share"] == pytest.approx(2 / 3)
    assert h.loc[("beginner", "expert"), "win_share"] == pytest.approx(1 / 2)
    assert h.loc[("patient", "expert"), "hands"] == 3
    p = h.loc[("patient", "expert")]
    q = h.loc[("expert", "patient")]
    assert p["predicted"] + q["predicted"] == pytest.approx(1.0)


def test_win_share_against_experts_is_predicted_from_the_ratings_and_measured():
    hands = simulate(PLANTED, LINEUPS, deals=40, rng=np.random.default_rng(2))
    r, _ = ladder(hands, NAMES, resamples=100, seed=3)
    r = r.set_index("strategy")
    theta = r.loc["patient", "rating"]
    assert r.loc["patient", "vs_experts_predicted"] == pytest.approx(
        math.exp(theta) / (math.exp(theta) + 3))
    assert r.loc["expert", "vs_experts_predicted"] == pytest.approx(0.25)
    sel = ((hands[[f"strategy_{i}" for i in range(4)]] == "expert").sum(axis=1) == 3) & \
          ((hands[[f"strategy_{i}" for i in range(4)]] == "patient").sum(axis=1) == 1)
    seat = (hands[[f"strategy_{i}" for i in range(4)]] == "patient").to_numpy()
    ws = hands[[f"win_share_{i}" for i in range(4)]].to_numpy()
    measured = (ws * seat)[sel.to_numpy()].sum(axis=1).mean()
    assert r.loc["patient", "vs_experts_measured"] == pytest.approx(measured)
    assert r.loc["patient", "vs_experts_hands"] == sel.sum() == 40
    assert math.isnan(r.loc["expert", "vs_experts_measured"])
    true = math.exp(0.3) / (math.exp(0.3) + 3)
    assert r.loc["patient", "vs_experts_predicted_lo"] < true < r.loc[
        "patient", "vs_experts_predicted_hi"]


def test_the_ladder_is_the_same_for_the_same_seed():
    hands = simulate(PLANTED, LINEUPS, deals=10, rng=np.random.default_rng(9))
    a, ha = ladder(hands, NAMES, resamples=50, seed=4)
    b, hb = ladder(hands, NAMES, resamples=50, seed=4)
    c, _ = ladder(hands, NAMES, resamples=50, seed=5)
    pd.testing.assert_frame_equal(a, b)
    pd.testing.assert_frame_equal(ha, hb)
    assert not a["rating_lo"].equals(c["rating_lo"])


def test_a_strategy_that_never_wins_is_rated_minus_infinity():
    tables = [["expert", "patient", "beginner", "expert"]] * 6
    shares = [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 0, 1]] * 2
    r, h2h = ladder(hand_rows(tables, shares, replicate=[0, 0, 1, 1, 2, 2]), NAMES[:3],
                    resamples=30, seed=1)
    b = r.set_index("strategy").loc["beginner"]
    assert b["rating"] == b["rating_lo"] == b["rating_hi"] == -math.inf
    assert b["vs_experts_predicted"] == 0.0 and int(b["rank"]) == 3
    h = h2h.set_index(["strategy", "opponent"])
    assert h.loc[("beginner", "patient"), "predicted"] == 0.0


def test_without_an_expert_the_first_strategy_is_the_anchor_and_no_table_of_experts():
    names = ["beginner", "patient", "intermediate"]
    keep = [lu for lu in LINEUPS if 1 not in lu]
    hands = simulate(PLANTED, keep, deals=10, rng=np.random.default_rng(6))
    r, _ = ladder(hands, names, resamples=20)
    assert (r["anchor"] == "beginner").all()
    assert r.set_index("strategy").loc["beginner", "rating"] == 0.0
    assert r["vs_experts_predicted"].isna().all() and r["vs_experts_measured"].isna().all()

"""Deal-clustered statistics: hand-computed values, coverage by simulation, public tables."""

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from tests.report_data import random_hand_study
from fastmach.analysis import stats as S
from fastmach.errors import FastmachError

T975_1 = 12.706204736174707  # t quantile 0.975, 1 degree of freedom


# ----------------------------------------------------------------- hand-computed values

def test_ratio_estimate_hand_computed():
    # two deals, sums Y = (3, 7), X = (2, 2): R = 10 / 4 = 2.5, e = (-2/4, +2/4)
    e = S.ratio_estimate([1, 2, 3, 4], [1, 1, 1, 1], [0, 0, 1, 1])
    assert e.value == 2.5 and e.deals == 2
    assert e.se == pytest.approx(math.sqrt(2 * (0.25 + 0.25)))
    lo, hi = e.interval()
    assert (lo, hi) == pytest.approx((2.5 - T975_1, 2.5 + T975_1))


def test_ratio_estimate_of_turns_per_hand_over_unequal_matches():
    # deal 0: a match of 3 hands, 60 turns; deal 1: one hand, 30 turns; deal 2: 2 hands, 50
    turns = [20, 20, 20, 30, 25, 25]
    deal = [0, 0, 0, 1, 2, 2]
    e = S.ratio_estimate(turns, np.ones(6), deal)
    r = 140 / 6
    assert e.value == pytest.approx(r)
    infl = np.array([60 - r * 3, 30 - r, 50 - r * 2]) / 6
    assert e.se == pytest.approx(math.sqrt(3 / 2 * (infl ** 2).sum()))
    # a mean over matches would weight the one-hand match as much as the 3-hand one
    assert e.value != pytest.approx(np.mean([60 / 3, 30, 50 / 2]))


def test_clustering_widens_when_rows_share_a_deal():
    y = np.array([1, 1, 1, 1, 0, 0, 0, 0], dtype=float)
    iid = S.ratio_estimate(y, np.ones(8), np.arange(8))
    clustered = S.ratio_estimate(y, np.ones(8), [0, 0, 0, 0, 1, 1, 1, 1])
    assert clustered.se > 2 * iid.se


def test_paired_difference_pairs_deal_by_deal():
    v = S.ratio_estimate([5, 7, 9], [1, 1, 1], [0, 1, 2])
    b = S.ratio_estimate([4, 6, 8], [1, 1, 1], [0, 1, 2])
    d = v - b
    assert d.value == pytest.approx(1.0) and d.se == pytest.approx(0.0)
    assert d.p_value() == 0.0
    assert (v - v).p_value() == 1.0


def test_holm_hand_computed():
    p = [0.01, 0.04, 0.03, 0.005, math.nan]
    adj = S.holm(p)
    # sorted: 0.005*4 = 0.02, 0.01*3 = 0.03, 0.03*2 = 0.06, max(0.04*1, 0.06) = 0.06
    assert adj[:4] == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert math.isnan(adj[4])
    assert S.holm([0.9, 0.8]) == pytest.approx([1.0, 1.0])


def newcombe_table(a, b, c, d, z=1.959963984540054):
    """Newcombe (1998) method 10 from the 2x2 table of pairs, written out independently."""
    n = a + b + c + d

    def wilson(k):
        p = k / n
        centre = (2 * n * p + z * z) / (2 * (n + z * z))
        half = z * math.sqrt(z * z + 4 * n * p * (1 - p)) / (2 * (n + z * z))
        return p, centre - half, centre + half

    p1, l1, u1 = wilson(a + b)
    p2, l2, u2 = wilson(a + c)
    den = (a + b) * (c + d) * (a + c) * (b + d)
    phi = (a * d - b * c) / math.sqrt(den) if den else 0.0
    diff = p1 - p2
    dl = math.sqrt((p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2)
    du = math.sqrt((u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2)
    return diff - dl, diff + du


def _pairs(a, b, c, d):
    """Variant and baseline 0/1 outcomes of a+b+c+d pairs (a: both 1; b: variant only...)."""
    v = [1] * a + [1] * b + [0] * c + [0] * d
    w = [1] * a + [0] * b + [1] * c + [0] * d
    return np.array(v, float), np.array(w, float)


@pytest.mark.parametrize("table", [(36, 12, 2, 0), (5, 3, 1, 41), (0, 2, 0, 48),
                                   (10, 0, 0, 10)])
def test_newcombe_paired_equals_method_10_with_one_pair_per_deal(table):
    v, w = _pairs(*table)
    deals = np.arange(len(v))
    ev = S.ratio_estimate(v, np.ones(len(v)), deals)
    eb = S.ratio_estimate(w, np.ones(len(w)), deals)
    assert S.newcombe_paired(ev, eb) == pytest.approx(newcombe_table(*table), abs=1e-9)


def test_newcombe_paired_does_not_collapse_when_every_pair_agrees():
    v, w = _pairs(0, 0, 0, 60)  # the stock never runs out under either rule
    deals = np.repeat(np.arange(20), 3)
    lo, hi = S.newcombe_paired(S.ratio_estimate(v, np.ones(60), deals),
                               S.ratio_estimate(w, np.ones(60), deals))
    assert lo < 0 < hi and hi - lo > 0.02


def test_seat_table_hand_computed():
    # 3 players, 4 hands in 2 deals; win shares given per physical seat
    hands = pd.DataFrame({
        "cell": "c", "rules": "classic", "players": 3, "lineup": "expert", "replicate":
        [0, 0, 1, 1], "hand": [0, 1, 0, 1], "first_player": [0, 1, 2, 0],
        "turns": 30, "end": ["emptied"] * 3 + ["blocked"], "stock_exhausted": False,
        "win_share_0": [1.0, 0.0, 1.0, 0.0], "win_share_1": [0.0, 1.0, 0.0, 0.5],
        "win_share_2": [0.0, 0.0, 0.0, 0.5]})
    t = S.seat_table(hands)
    # relative to the first player: hand0 seat0 wins; hand1 seat0 (=1) wins;
    # hand2 first=2 -> seat 1 (=0) wins; hand3 seats 1 and 2 share
    assert t["win_share"].tolist() == pytest.approx([2 / 4, 1.5 / 4, 0.5 / 4])
    assert t["fair"].tolist() == pytest.approx([1 / 3] * 3)
    assert t["seat"].tolist() == [0, 1, 2]
    # seat 0: per-hand contrasts 2/3, 2/3, -1/3, -1/3 -> deal sums 4/3, -2/3, mean 1/6
    e = np.array([4 / 3 - 2 * (1 / 6), -2 / 3 - 2 * (1 / 6)]) / 4
    assert t["se"].iloc[0] == pytest.approx(math.sqrt(2 * (e ** 2).sum()))
    assert t["p_adjusted"].tolist() == pytest.approx(S.holm(t["p_value"]).tolist())


def test_blocked_counts_hands_that_ended_blocked_hand_computed():
    # 6 hands in 3 deals: two ended blocked (one after the stock ran out), two stock-out
    hands = pd.DataFrame({
        "cell": "c", "rules": "ace-low", "players": 3, "lineup": "expert",
        "replicate": [0, 0, 1, 1, 2, 2], "hand": [0, 1] * 3, "first_player": 0,
        "turns": 30, "end": ["emptied", "blocked", "stock-out", "stock-out", "emptied",
                             "blocked"],
        "stock_exhausted": [False, True, True, True, False, False],
        "win_share_0": [1.0, 0, 0.5, 0, 1, 0], "win_share_1": [0, 0, 0.5, 1, 0, 0],
        "win_share_2": 0.0})
    assert S.hand_metrics(hands)["blocked"].tolist() == [0, 1, 0, 0, 0, 1]
    r = S.scorecard(hands.drop_duplicates("replicate"), hands).iloc[0]
    assert r["blocked"] == pytest.approx(2 / 6)
    assert r["stock_out_per_hand"] == pytest.approx(3 / 6)
    assert r["blocked_lo"] < 2 / 6 < r["blocked_hi"]



def test_every_per_hand_metric_of_the_catalogue_is_its_hand_value_hand_computed():
    """The catalogue names each metric's per-hand value (``hand_value``); the scorecard's
    figure is its mean over the hands, computed by hand here (one hand per deal)."""
    from fastmach.analysis.metrics import METRICS
    hands = pd.DataFrame({
        "cell": "c", "rules": "classic(match=single)", "players": 2,
        "lineup": "expert,beginner", "replicate": [0, 1, 2, 3], "hand": 0,
        "first_player": 0, "turns": [10, 20, 30, 44],
        "end": ["emptied", "blocked", "stock-out", "emptied"],
        "stock_exhausted": [False, True, True, False],
        "strategy_0": ["expert", "beginner", "expert", "beginner"],
        "strategy_1": ["beginner", "expert", "beginner", "expert"],
        "win_share_0": [1.0, 0, 0.5, 1], "win_share_1": [0.0, 0, 0.5, 0]})
    want = {"turns_per_hand": 26.0,          # (10 + 20 + 30 + 44) / 4
            "stock_out_per_hand": 0.5,       # two of four hands
            "blocked": 0.25,                 # one of four
            "first_seat_edge": 0.25,         # seat 1's share minus the hand's total / 2
            "skill_gap": 0.0}                # expert minus beginner: +1, 0, 0, -1
    card = S.scorecard(hands, hands).iloc[0]
    assert sorted(n for n, m in METRICS.items() if m.hand_value) == sorted(want)
    for name, value in want.items():
        assert card[name] == pytest.approx(value), name


# ----------------------------------------------------------------- coverage by simulation

def _clustered_sample(rng, deals, truth, sd_deal=4.0, sd_hand=6.0):
    """Matches of 1-4 hands on each deal, 2 rotations per deal, a deal effect on length."""
    rows_y, rows_d = [], []
    for g in range(deals):
        u = rng.normal(0, sd_deal)
        for _ in range(2):
            k = rng.integers(1, 5)
            rows_y.append(truth + u + rng.normal(0, sd_hand, k))
            rows_d.append(np.full(k, g))
    return np.concatenate(rows_y), np.concatenate(rows_d)


def test_coverage_of_turns_per_hand_intervals_on_clustered_data():
    rng = np.random.default_rng(11)
    hits = naive_hits = 0
    sims = 1500  # Monte Carlo sd of the coverage 0.6 pp: 95 +- 2 is more than 3 sd
    for _ in range(sims):
        y, d = _clustered_sample(rng, 30, truth=50.0)
        lo, hi = S.ratio_estimate(y, np.ones(len(y)), d).interval()
        hits += lo <= 50.0 <= hi
        nlo, nhi = S.ratio_estimate(y, np.ones(len(y)), np.arange(len(y))).interval()
        naive_hits += nlo <= 50.0 <= nhi
    assert 0.93 <= hits / sims <= 0.97
    assert naive_hits / sims < 0.90  # treating hands as independent under-covers


def test_coverage_of_paired_share_differences_on_clustered_data():
    rng = np.random.default_rng(12)
    sims, hits = 1200, 0  # Monte Carlo sd of the coverage 0.6 pp
    pv, pb = 0.25, 0.18
    for _ in range(sims):
        deals = 40
        shift = np.repeat(rng.normal(0, 1.0, deals), 3)  # a deal effect on both rules
        noise = rng.normal(0, 1.0, deals * 3)
        d = np.repeat(np.arange(deals), 3)
        from statistics import NormalDist
        scale = math.sqrt(2.0)
        v = (shift + noise < NormalDist().inv_cdf(pv) * scale).astype(float)
        b = (shift + noise < NormalDist().inv_cdf(pb) * scale).astype(float)
        lo, hi = S.newcombe_paired(S.ratio_estimate(v, np.ones(len(v)), d),
                                   S.ratio_estimate(b, np.ones(len(b)), d))
        hits += lo <= pv - pb <= hi
    assert 0.93 <= hits / sims <= 0.97


def test_coverage_of_seat_intervals_on_fair_clustered_seats():
    """Fair seats, hands clustered by deal: per-seat 95% intervals cover 1/3 about 95%."""
    rng = np.random.default_rng(13)
    sims, hits, total, deals = 300, 0, 0, 40
    for _ in range(sims):
        deal = np.repeat(np.arange(deals), 3)
        fav = np.repeat(rng.integers(0, 3, deals), 3)  # the deal favours one physical seat
        w = np.ones((deals * 3, 3))
        w[np.arange(deals * 3), fav] = 3.0
        cum = np.cumsum(w / w.sum(axis=1, keepdims=True), axis=1)
        win = (rng.random(deals * 3)[:, None] > cum).sum(axis=1)
        hands = pd.DataFrame({
            "cell": "c", "rules": "classic", "players": 3, "lineup": "expert",
            "replicate": deal, "hand": np.tile([0, 1, 2], deals),
            "first_player": rng.integers(0, 3, deals * 3), "turns": 30, "end": "emptied",
            "stock_exhausted": False, **{f"win_share_{i}": (win == i).astype(float)
                                         for i in range(3)}})
        t = S.seat_table(hands, alpha=0.05 * 3)  # m = 3 rows: each seat at 95%
        hits += int(((t["lo"] <= t["fair"]) & (t["fair"] <= t["hi"])).sum())
        total += len(t)
    # simultaneous intervals: each seat's own coverage is at least about 95% (900
    # intervals, correlated within a study: Monte Carlo sd about 0.8 pp)
    assert 0.93 <= hits / total <= 0.97


# ----------------------------------------------------------------- seat spread

def _two_seat_hands(rules, wins):
    """Two players, two hands per deal, seat 0 first; ``wins[g]``: seat 0's wins in deal g."""
    w0 = np.array(wins, dtype=float).ravel()
    g = len(wins)
    return pd.DataFrame({
        "cell": f"{rules}|players=2", "rules": rules, "players": 2, "lineup": "expert",
        "seed": 1, "replicate": np.repeat(np.arange(g), 2), "rotation": 0,
        "hand": np.tile([0, 1], g), "first_player": 0, "turns": 30, "end": "emptied",
        "stock_exhausted": False, "win_share_0": w0, "win_share_1": 1 - w0})


def test_seat_spread_interval_hand_computed():
    # 20 deals: in 10 seat 0 wins both hands, in 10 one each -> shares 3/4 and 1/4
    hv = _two_seat_hands("classic(ace=low-only)", [(1, 1)] * 10 + [(1, 0)] * 10)
    # seat 0's contrast (share - 1/2) per deal sums to 1 or 0, mean 1/4 per hand:
    # influence +-1/80, se^2 = 20/19 * 20/80^2 = 1/304 (seat 1 the same)
    se = 1 / math.sqrt(304)
    q = sps.t.ppf(1 - 0.05 / 4, 19)  # Bonferroni over the 2 seats, 19 degrees of freedom
    r = S.scorecard(hv.drop_duplicates("replicate"), hv).iloc[0]
    assert r["seat_spread"] == pytest.approx(0.5)
    # [max(0, lo_0 - hi_1), hi_0 - lo_1]
    assert (r["seat_spread_lo"], r["seat_spread_hi"]) == pytest.approx(
        (0.5 - 2 * q * se, 0.5 + 2 * q * se))
    # the baseline splits every deal: spread 0 with no error, so the difference's
    # interval is the variant's at 97.5% (Bonferroni over the two cells)
    hb = _two_seat_hands("classic", [(1, 0)] * 20)
    hands = pd.concat([hv, hb], ignore_index=True)
    e = S.effects(hands.drop_duplicates(["rules", "replicate"]), hands,
                  [("classic(ace=low-only)", "classic")])
    d = e[e["metric"] == "seat_spread"].iloc[0]
    q2 = sps.t.ppf(1 - 0.025 / 4, 19)
    assert d["diff"] == pytest.approx(0.5) and d["baseline_value"] == 0.0
    assert (d["lo"], d["hi"]) == pytest.approx((0.5 - 2 * q2 * se, 0.5 + 2 * q2 * se))
    # p-value: the alpha at which the lower end reaches 0, t(1 - alpha / 8) = 1 / (4 se)
    assert d["p_value"] == pytest.approx(8 * sps.t.sf(1 / (4 * se), 19), rel=1e-4)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_seat_spread_intervals_contain_their_estimate(seed):
    games, hands = random_hand_study(games=12, seed=seed)
    card = S.scorecard(games, hands)
    assert (card["seat_spread_lo"] >= 0).all()
    assert ((card["seat_spread_lo"] <= card["seat_spread"])
            & (card["seat_spread"] <= card["seat_spread_hi"])).all()
    e = S.effects(games, hands, [("classic(ace=low-only)", "classic")])
    sp = e[e["metric"] == "seat_spread"]
    assert len(sp) == 4
    assert ((sp["lo"] <= sp["diff"]) & (sp["diff"] <= sp["hi"])).all()
    assert ((sp["p_value"] < 0.05) == ((sp["lo"] > 0) | (sp["hi"] < 0))).all()


def _seat_sample(rng, base, favoured, per_deal=3, rules="classic"):
    """Hands of one cell: each deal favours one seat relative to the first player.

    The favoured seat's weight is multiplied by 2.5 in all the deal's hands (clustering);
    in 10% of hands nobody wins.
    """
    p, deals = len(base), len(favoured)
    n = deals * per_deal
    w = np.tile(np.asarray(base, dtype=float), (n, 1))
    w[np.arange(n), np.repeat(favoured, per_deal)] *= 2.5
    cum = np.cumsum(w / w.sum(axis=1, keepdims=True), axis=1)
    rel = np.minimum((rng.random(n)[:, None] > cum).sum(axis=1), p - 1)
    first = rng.integers(0, p, n)
    shares = np.zeros((n, p))
    shares[np.arange(n), (first + rel) % p] = 1.0
    shares[rng.random(n) < 0.1] = 0.0
    return pd.DataFrame({
        "cell": f"{rules}|players={p}", "rules": rules, "players": p, "lineup": "expert",
        "seed": 1, "replicate": np.repeat(np.arange(deals), per_deal), "rotation": 0,
        "hand": np.tile(np.arange(per_deal), deals), "first_player": first, "turns": 30,
        "end": "emptied", "stock_exhausted": False,
        **{f"win_share_{i}": shares[:, i] for i in range(p)}})


def _true_spread(base):
    """Expected seat shares of :func:`_seat_sample`: its spread."""
    p = len(base)
    m = np.tile(np.asarray(base, dtype=float), (p, 1))  # row f: the deal favours seat f
    m[np.arange(p), np.arange(p)] *= 2.5
    share = 0.9 * (m / m.sum(axis=1, keepdims=True)).mean(axis=0)
    return float(share.max() - share.min())


@pytest.mark.parametrize("base", [(1, 1, 1), (1.1, 1, 1), (1.5, 1, 0.8)])
def test_coverage_of_seat_spread_intervals_on_clustered_data(base):
    """At least 95% of the intervals contain the true spread (0, 0.026, 0.170)."""
    rng = np.random.default_rng(14)
    truth = _true_spread(base)
    sims, hits, percentile_hits = 150, 0, 0
    for _ in range(sims):
        h = _seat_sample(rng, base, rng.integers(0, 3, 40))
        r = S.scorecard(h.drop_duplicates("replicate"), h).iloc[0]
        assert r["seat_spread_lo"] <= r["seat_spread"] <= r["seat_spread_hi"]
        hits += r["seat_spread_lo"] <= truth <= r["seat_spread_hi"]
        # the percentile interval of a deal bootstrap of the plug-in spread
        phys = h[[f"win_share_{i}" for i in range(3)]].to_numpy()
        seat = (h["first_player"].to_numpy()[:, None] + np.arange(3)) % 3
        rel = np.take_along_axis(phys, seat, axis=1)  # seat 0 = the first player
        sums = pd.DataFrame(rel).assign(n=1.0, d=h["replicate"].to_numpy()).groupby("d").sum()

        def spread(s):
            sh = s[..., :-1] / s[..., -1:]
            return sh.max(axis=-1) - sh.min(axis=-1)
        lo, hi = np.quantile(S.cluster_bootstrap(sums.to_numpy(), spread, 400), [0.025, 0.975])
        percentile_hits += lo <= truth <= hi
    assert hits / sims >= 0.95
    if truth == 0:  # the biased statistic's percentile interval almost never holds 0
        assert truth == 0.0 and percentile_hits / sims < 0.5


@pytest.mark.parametrize("bases", [((1, 1, 1), (1, 1, 1)), ((1.5, 1, 0.8), (1, 1, 1)),
                                   ((1.5, 1, 0.8), (1.2, 1, 1))])
def test_coverage_of_seat_spread_differences_on_paired_clustered_data(bases):
    """Variant and baseline replay the same deals (the same favoured seat)."""
    rng = np.random.default_rng(15)
    truth = _true_spread(bases[0]) - _true_spread(bases[1])
    sims, hits = 150, 0
    for _ in range(sims):
        fav = rng.integers(0, 3, 40)
        hv = _seat_sample(rng, bases[0], fav, rules="classic(ace=low-only)")
        hb = _seat_sample(rng, bases[1], fav)
        d, lo, hi, p, _ = S._spread_diff(hv, hb, 0.95)
        assert lo <= d <= hi and 0 < p <= 1
        hits += lo <= truth <= hi
    assert hits / sims >= 0.95


# ----------------------------------------------------------------- public tables

@pytest.fixture(scope="module")
def study():
    return random_hand_study(games=30)


def test_scorecard_columns_and_point_values(study):
    games, hands = study
    card = S.scorecard(games, hands)
    assert list(card.columns[:13]) == [
        "cell", "rules", "players", "lineup", "games", "hands", "deals", "turns_per_hand",
        "turns_per_hand_lo", "turns_per_hand_hi", "hands_per_game", "hands_per_game_lo",
        "hands_per_game_hi"]
    for m in S.SCORECARD_METRICS:
        assert {m, f"{m}_lo", f"{m}_hi"} <= set(card.columns)
    for _, r in card.iterrows():
        h = hands[hands["cell"] == r["cell"]]
        g = games[games["cell"] == r["cell"]]
        assert r["games"] == len(g) and r["hands"] == len(h)
        assert r["turns_per_hand"] == pytest.approx(h["turns"].sum() / len(h))
        assert r["hands_per_game"] == pytest.approx(len(h) / len(g))
        assert r["stock_out_per_hand"] == pytest.approx(h["stock_exhausted"].mean())
        assert r["blocked"] == pytest.approx((h["end"] == "blocked").mean())
        assert r["turns_per_hand_lo"] < r["turns_per_hand"] < r["turns_per_hand_hi"]
    classic = card[card["rules"] == "classic"]
    assert (classic["hands_per_game"] == classic["players"]).all()
    assert card.loc[card["lineup"] == "expert", "skill_gap"].isna().all()
    assert card.loc[card["lineup"] == "expert,beginner", "skill_gap"].mean() > 0.1


def test_blocked_is_not_stock_out(study):
    # the synthetic study has stock-out endings: "nobody emptied" would count them twice
    games, hands = study
    card = S.scorecard(games, hands).set_index("cell")
    by_cell = hands.groupby("cell")["end"]
    ended_blocked = by_cell.apply(lambda e: (e == "blocked").mean())
    not_emptied = by_cell.apply(lambda e: (e != "emptied").mean())
    assert card["blocked"].to_numpy() == pytest.approx(ended_blocked[card.index].to_numpy())
    assert (not_emptied > ended_blocked + 0.05).any()


def test_scorecard_pools_lineups_by_rules_and_players(study):
    games, hands = study
    card = S.scorecard(games, hands, by=("rules", "players"))
    assert len(card) == hands[["rules", "players"]].drop_duplicates().shape[0]
    r = card[(card["rules"] == "jokers") & (card["players"] == 3)].iloc[0]
    h = hands[(hands["rules"] == "jokers") & (hands["players"] == 3)]
    assert r["turns_per_hand"] == pytest.approx(h["turns"].mean())


def test_seat_table_names_a_seat_only_when_its_interval_excludes_fair(study):
    _, hands = study
    t = S.seat_table(hands)
    assert list(t.columns[:5]) == ["cell", "rules", "players", "lineup", "seat"]
    out = (t["lo"] > t["fair"]) | (t["hi"] < t["fair"])
    assert (t["named"] == out.astype(int)).all()
    assert (t.loc[t["named"] == 1, "p_adjusted"] < 0.05).all()
    for cell, g in t.groupby("cell"):
        assert g["win_share"].sum() == pytest.approx(g["fair"].iloc[0] * len(g))


def test_effects_per_context_and_pooled(study):
    games, hands = study
    e = S.effects(games, hands, [("classic(ace=low-only)", "classic")])
    assert list(e.columns[:11]) == ["variant", "baseline", "players", "lineup", "metric",
                                    "diff", "lo", "hi", "rel_diff", "p_value", "p_adjusted"]
    turns = e[e["metric"] == "turns_per_hand"]
    assert len(turns) == 4 + 1  # 2 player counts x 2 line-ups, and the pooled row
    pooled = turns[turns["players"].isna()].iloc[0]
    assert pooled["diff"] == pytest.approx(6.0, abs=0.5)  # the built-in +6 turns per hand
    assert pooled["lo"] < 6.0 < pooled["hi"] or abs(pooled["diff"] - 6.0) < 0.3
    ctx = turns[turns["players"].notna()]
    assert pooled["diff"] == pytest.approx(np.average(ctx["diff"], weights=ctx["pairs"]))
    assert pooled["pairs"] == ctx["pairs"].sum()
    # stock exhaustion is the same deal in both rules: its interval does not collapse
    so = e[e["metric"] == "stock_out_per_hand"]
    assert (so["diff"] == 0).all() and (so["hi"] > so["lo"]).all()
    # expert-only line-ups have no skill gap row
    sg = e[(e["metric"] == "skill_gap") & e["players"].notna()]
    assert set(sg["lineup"]) == {"expert,beginner"}


def test_effects_refuse_unknown_rules(study):
    games, hands = study
    with pytest.raises(FastmachError, match="no hand of rules"):
        S.effects(games, hands, [("classic(jokers=2)", "classic")])


def test_write_tables_writes_numeric_csv(study, tmp_path):
    games, hands = study
    paths = S.write_tables(games, hands, tmp_path / "tables")
    assert {"scorecard", "seats", "effects"} <= set(paths)
    ids = {"cell", "rules", "lineup", "variant", "baseline", "metric"}
    for name, path in paths.items():
        t = pd.read_csv(path)
        assert len(t) > 0
        for c in t.columns:
            if c not in ids:
                assert pd.api.types.is_numeric_dtype(t[c]), (name, c)


def test_share_interval_stays_in_bounds_and_widens_with_clustering():
    none = S.ratio_estimate(np.zeros(30), np.ones(30), np.repeat(np.arange(10), 3))
    lo, hi = S.share_interval(none)
    assert lo == 0.0 and 0 < hi < 0.2  # Wilson upper bound at n = 30
    y = np.array([1, 1, 1, 0, 0, 0] * 10, dtype=float)
    iid = S.share_interval(S.ratio_estimate(y, np.ones(60), np.arange(60)))
    assert iid == pytest.approx(S.wilson_interval(30, 60))  # independent rows: Wilson
    clustered = S.share_interval(S.ratio_estimate(y, np.ones(60), np.repeat(np.arange(20), 3)))
    assert clustered[1] - clustered[0] > 1.5 * (iid[1] - iid[0])

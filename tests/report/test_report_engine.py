"""The report's tables against an independent recomputation from real hand and game rows.

A study of classic and classic(ace=low-only), 3 and 4 players, expert and expert+beginner
line-ups, rotated, played by the engine. Point values must agree exactly; interval widths
within 25% of a deal-clustered bootstrap written here from scratch.
"""

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

import fastmach
from fastmach.report import build_report
from fastmach.study import Study
from fastmach.study.driver import run_study

STUDY = """[study]
name = "ace-check"
seed = 5
games = 40
chunk = 40

[grid]
rules = ["classic", "classic(ace=low-only)"]
players = [3, 4]
lineup = [["expert"], ["expert", "beginner"]]
rotate = true
"""

RESAMPLES = 600


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    root = tmp_path_factory.mktemp("engine")
    run_study(Study.from_toml(STUDY), root / "results", workers=1, progress=False)
    index = build_report(root / "results", root / "report")
    games = pd.read_parquet(root / "results")
    hands = fastmach.read_hands(root / "results")
    tables = {n: pd.read_csv(index.parent / "tables" / f"{n}.csv")
              for n in ("scorecard", "seats", "effects")}
    return games, hands, tables


def rel_seat_shares(h: pd.DataFrame) -> np.ndarray:
    """Win share of each seat counted from the first player, written with plain loops."""
    p = int(h["players"].iloc[0])
    out = np.zeros((len(h), p))
    for k, (_, r) in enumerate(h.iterrows()):
        for s in range(p):
            out[k, s] = r[f"win_share_{(int(r['first_player']) + s) % p}"]
    return out


def spread_bounds(h: pd.DataFrame, alpha: float) -> tuple[float, float]:
    """Seat-spread interval from Bonferroni t intervals of the seats, at family level alpha.

    Each seat: its share +- t(1 - alpha / 2p, deals - 1) times the deal-clustered error of
    share minus the hand's total / p; then [max(0, max lo - min hi), max hi - min lo].
    """
    rel = rel_seat_shares(h)
    p, n = rel.shape[1], len(rel)
    contrast = rel - rel.sum(axis=1, keepdims=True) / p
    per_deal = (pd.DataFrame(contrast).assign(n=1.0, d=h["replicate"].to_numpy())
                .groupby("d").sum())
    sums, counts = per_deal.to_numpy()[:, :p], per_deal["n"].to_numpy()
    g = len(per_deal)
    infl = (sums - contrast.mean(axis=0) * counts[:, None]) / n
    se = np.sqrt(g / (g - 1) * (infl ** 2).sum(axis=0))
    q = sps.t.ppf(1 - alpha / (2 * p), g - 1)
    share = rel.mean(axis=0)
    lo, hi = share - q * se, share + q * se
    return max(0.0, lo.max() - hi.min()), hi.max() - lo.min()


def bootstrap_width(per_deal: dict, stat, seed: int = 3) -> float:
    """Width of the 95% percentile interval of ``stat`` over deals drawn with replacement.

    ``per_deal`` maps a deal to its tuple of sums; ``stat`` maps summed tuples to a value.
    """
    rng = np.random.default_rng(seed)
    keys = list(per_deal)
    vals = np.array([per_deal[k] for k in keys], dtype=float)
    reps = [stat(vals[rng.integers(0, len(keys), len(keys))].sum(axis=0))
            for _ in range(RESAMPLES)]
    lo, hi = np.quantile(reps, [0.025, 0.975])
    return hi - lo


def test_study_has_rotations_and_matches(study):
    games, hands, _ = study
    assert (hands.groupby(["cell", "replicate", "rotation"]).size() > 1).all()  # matches
    assert hands.groupby("cell")["rotation"].nunique().max() > 1


def test_scorecard_agrees_with_raw_rows(study):
    games, hands, t = study
    card = t["scorecard"].set_index("cell")
    assert set(card.index) == set(games["cell"])
    for cell, h in hands.groupby("cell"):
        r = card.loc[cell]
        g = games[games["cell"] == cell]
        assert r["games"] == len(g) and r["hands"] == len(h)
        assert r["turns_per_hand"] == pytest.approx(h["turns"].sum() / len(h), rel=1e-12)
        assert r["hands_per_game"] == pytest.approx(len(h) / len(g), rel=1e-12)
        assert r["stock_out_per_hand"] == pytest.approx(h["stock_exhausted"].mean(), abs=1e-12)
        # blocked: hands that ended blocked, not stock-out endings (stock_out_per_hand's)
        assert r["blocked"] == pytest.approx((h["end"] == "blocked").mean(), abs=1e-12)
        rel = rel_seat_shares(h)
        p = rel.shape[1]
        edge = rel[:, 0] - rel.sum(axis=1) / p
        assert r["first_seat_edge"] == pytest.approx(edge.mean(), abs=1e-12)
        shares = rel.mean(axis=0)
        assert r["seat_spread"] == pytest.approx(shares.max() - shares.min(), abs=1e-12)
        lo, hi = spread_bounds(h, 0.05)
        assert (r["seat_spread_lo"], r["seat_spread_hi"]) == pytest.approx((lo, hi), abs=1e-9)
        assert r["seat_spread_lo"] <= r["seat_spread"] <= r["seat_spread_hi"]
        # interval widths against a deal-clustered bootstrap
        per_deal = {}
        for (rep), d in h.groupby("replicate"):
            dr = rel_seat_shares(d)
            per_deal[rep] = (d["turns"].sum(), len(d),
                             (dr[:, 0] - dr.sum(axis=1) / p).sum())
        for metric, stat in (("turns_per_hand", lambda s: s[0] / s[1]),
                             ("first_seat_edge", lambda s: s[2] / s[1])):
            width = r[f"{metric}_hi"] - r[f"{metric}_lo"]
            boot = bootstrap_width(per_deal, stat)
            assert width == pytest.approx(boot, rel=0.25), (cell, metric, width, boot)


def test_seats_agree_with_raw_rows(study):
    _, hands, t = study
    seats = t["seats"]
    m = len(seats)
    from statistics import NormalDist
    q_adj = NormalDist().inv_cdf(1 - 0.05 / (2 * m))
    for cell, h in hands.groupby("cell"):
        s = seats[seats["cell"] == cell].sort_values("seat")
        rel = rel_seat_shares(h)
        p = rel.shape[1]
        assert s["win_share"].to_numpy() == pytest.approx(rel.mean(axis=0), abs=1e-12)
        per_deal = {}
        for rep, d in h.groupby("replicate"):
            dr = rel_seat_shares(d)
            per_deal[rep] = (*(dr - dr.sum(axis=1, keepdims=True) / p).sum(axis=0), len(d))
        for seat in range(p):
            width = float(s["hi"].iloc[seat] - s["lo"].iloc[seat])
            boot95 = bootstrap_width(per_deal, lambda v, k=seat: v[k] / v[-1])
            # the table's interval is simultaneous: scale the bootstrap's 95% width to it
            boot = boot95 * q_adj / 1.959963984540054
            assert width == pytest.approx(boot, rel=0.25), (cell, seat, width, boot)


def test_effects_agree_with_raw_rows(study):
    _, hands, t = study
    e = t["effects"]
    turns = e[(e["metric"] == "turns_per_hand") & e["players"].notna()]
    assert len(turns) == 4
    for _, r in turns.iterrows():
        def cell(rules):
            return hands[(hands["rules"] == rules) & (hands["players"] == r["players"])
                         & (hands["lineup"] == r["lineup"])]
        hv, hb = cell(r["variant"]), cell(r["baseline"])
        assert r["diff"] == pytest.approx(hv["turns"].mean() - hb["turns"].mean(), abs=1e-9)
        assert r["pairs"] == len(hv.drop_duplicates(["replicate", "rotation"]))
        per_deal = {}
        for rep in hv["replicate"].unique():
            a, b = hv[hv["replicate"] == rep], hb[hb["replicate"] == rep]
            per_deal[rep] = (a["turns"].sum(), len(a), b["turns"].sum(), len(b))
        boot = bootstrap_width(per_deal, lambda s: s[0] / s[1] - s[2] / s[3])
        assert r["hi"] - r["lo"] == pytest.approx(boot, rel=0.25)
    pooled = e[(e["metric"] == "turns_per_hand") & e["players"].isna()]
    assert len(pooled) == 1 and pooled["pairs"].iloc[0] == turns["pairs"].sum()
    spread = e[e["metric"] == "seat_spread"]
    assert len(spread) == 4 and spread["players"].notna().all()  # no pooled spread
    for _, r in spread.iterrows():
        def cell(rules):
            return hands[(hands["rules"] == rules) & (hands["players"] == r["players"])
                         & (hands["lineup"] == r["lineup"])]
        # each cell's spread at 97.5% (Bonferroni over the two), their difference
        lv, uv = spread_bounds(cell(r["variant"]), 0.025)
        lb, ub = spread_bounds(cell(r["baseline"]), 0.025)
        assert (r["lo"], r["hi"]) == pytest.approx((lv - ub, uv - lb), abs=1e-9)
        assert r["lo"] <= r["diff"] <= r["hi"]

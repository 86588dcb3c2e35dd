"""Where an effect lives: pooled only with one sign and size, else per player count.

Synthetic hand rows (tests/report_data.py: ``ace=low-only`` adds 6 turns per hand
in every context) with planted effects; and the intervals of the effects checked by
simulation on data with a known truth.
"""

import numpy as np
import pandas as pd
import pytest
from tests.report_data import random_hand_study

from fastmach.analysis.heterogeneity import effects_by_players, equal_test, verdict
from fastmach.analysis.inference import ratio_estimate
from fastmach.analysis.tables import bounded_interval, paired_interval, pooled, relative
from fastmach.report.findings import effect_sentences

PAIR = ("classic(ace=low-only)", "classic")
NAMES = {PAIR[0]: "ace=low-only", PAIR[1]: "classic"}


def _hands(shift_at_3: float = 0.0, shift_at_4: float = 0.0, games: int = 40):
    _, hands = random_hand_study(games=games, presets=("classic",), players=(3, 4),
                                 variants=(PAIR[0],),
                                 lineups=(("expert",), ("expert", "beginner")))
    for p, shift in ((3, shift_at_3), (4, shift_at_4)):
        at = (hands["rules"] == PAIR[0]) & (hands["players"] == p)
        hands.loc[at, "turns"] += int(shift)
    return hands


def test_one_sign_and_size_everywhere_is_stated_pooled():
    t = effects_by_players(_hands(), [PAIR])
    v = verdict(t, *PAIR, "turns_per_hand")
    assert v.pooled is not None and v.pooled["named"] == 1
    assert v.pooled["diff"] == pytest.approx(6.0, abs=0.6)
    (text,) = [f.text for f in effect_sentences(t, [PAIR], NAMES)[0]
               if "turns per hand" in f.text]
    assert "pooled, over 3-4 players and every line-up (no difference between them" in text
    assert "makes hands longer" in text


def test_a_planted_sign_change_is_stated_per_player_count():
    # +6 turns at 4 players, -6 at 3: the pooled figure (about 0) would hide both
    t = effects_by_players(_hands(shift_at_3=-12), [PAIR])
    v = verdict(t, *PAIR, "turns_per_hand")
    assert v.pooled is None and v.sign_change
    assert v.up == (4,) and v.down == (3,)
    over = v.overall
    assert over["heterogeneity_p_adjusted"] < 0.05 and over["one_effect"] == 0
    text = next(f.text for f in effect_sentences(t, [PAIR], NAMES)[0]
                if "hands longer" in f.text)
    assert text.startswith("ace=low-only (against classic) makes hands longer at 4 players")
    assert "but makes hands shorter at 3 players" in text
    assert "changes sign with the player count" in text
    assert "pooled" not in text


def test_one_sign_but_unequal_sizes_is_stated_per_player_count():
    t = effects_by_players(_hands(shift_at_4=14), [PAIR])  # +6 at 3 players, +20 at 4
    v = verdict(t, *PAIR, "turns_per_hand")
    assert v.pooled is None and not v.sign_change and v.up == (3, 4)
    text = next(f.text for f in effect_sentences(t, [PAIR], NAMES)[0]
                if "hands longer" in f.text)
    assert "its size differs across player counts (heterogeneity adjusted p" in text
    rows = v.rows.set_index("players")
    assert rows.loc[3, "rel_diff"] == pytest.approx(6 / rows.loc[3, "baseline_value"],
                                                    rel=0.15)
    assert rows.loc[3, "rel_lo_adjusted"] < rows.loc[3, "rel_diff"] < rows.loc[3, "rel_hi_adjusted"]


def test_named_effects_have_holm_p_below_alpha_and_adjusted_intervals_excluding_zero():
    t = effects_by_players(_hands(shift_at_3=-12), [PAIR])
    n = t[t["named"] == 1]
    assert len(n) > 0
    assert (n["p_adjusted"] < 0.05).all()
    assert ((n["lo_adjusted"] > 0) | (n["hi_adjusted"] < 0)).all()
    # the adjusted intervals contain the 95% ones
    ok = t.dropna(subset=["lo", "lo_adjusted"])
    assert ((ok["lo_adjusted"] <= ok["lo"] + 1e-12) & (ok["hi"] <= ok["hi_adjusted"] + 1e-12)).all()


# ----------------------------------------------------------------- the test's promise

def _contexts(rng, deals: int, effects: list[float], binary: bool = False):
    """Estimates of correlated contexts on common deals: deal effect + noise per hand."""
    deal = np.repeat(np.arange(deals), 2)
    d = rng.normal(0, 3, deals)[deal]
    out = []
    for eff in effects:
        if binary:
            p = 1 / (1 + np.exp(-(d / 3 - 0.8)))
            yb = (rng.random(len(deal)) < p).astype(float)
            yv = np.where(rng.random(len(deal)) < 0.5, yb,
                          (rng.random(len(deal)) < p + eff).astype(float))
        else:
            yb = 40 + d + rng.normal(0, 4, len(deal))
            yv = yb + eff + rng.normal(0, 4, len(deal))
        one = np.ones(len(deal))
        out.append((deals, ratio_estimate(yv, one, deal), ratio_estimate(yb, one, deal)))
    return out


def test_equal_effects_test_holds_its_level_on_correlated_contexts():
    rng = np.random.default_rng(5)
    p = [equal_test([v - b for _, v, b in _contexts(rng, 25, [3.0, 3.0, 3.0])])
         for _ in range(400)]
    assert np.mean(np.array(p) < 0.05) <= 0.075
    q = [equal_test([v - b for _, v, b in _contexts(rng, 25, [3.0, 3.0, 8.0])])
         for _ in range(100)]
    assert np.mean(np.array(q) < 0.05) > 0.9


SIMS = 600


def test_effect_intervals_cover_the_truth():
    """Per-context and pooled differences and relative effects: 95% +- 2."""
    rng = np.random.default_rng(11)
    hits = {"context": 0, "pooled": 0, "relative": 0}
    for _ in range(SIMS):
        parts = _contexts(rng, 30, [2.0, 4.0])  # baseline 40 turns per hand
        _, ev, eb = parts[0]
        lo, hi = paired_interval("turns_per_hand", ev, eb, 0.95)
        hits["context"] += lo <= 2.0 <= hi
        _, pv, pb = pooled(parts)
        lo, hi = paired_interval("turns_per_hand", pv, pb, 0.95)
        hits["pooled"] += lo <= 3.0 <= hi
        lo, hi = relative(ev, eb).interval(0.95)
        hits["relative"] += lo <= 2.0 / 40 <= hi
    for k, h in hits.items():
        assert abs(h / SIMS - 0.95) <= 0.02, (k, h / SIMS)


def test_paired_share_intervals_cover_the_truth():
    rng = np.random.default_rng(12)
    hits = 0
    for _ in range(SIMS):
        (_, sv, sb), = _contexts(rng, 40, [0.0], binary=True)
        lo, hi = paired_interval("stock_out_per_hand", sv, sb, 0.95)
        hits += lo <= 0.0 <= hi
    assert abs(hits / SIMS - 0.95) <= 0.02, hits / SIMS


def test_a_skill_gap_of_one_in_every_hand_is_not_a_point():
    deal = np.repeat(np.arange(20), 3)
    e = ratio_estimate(np.ones(len(deal)), np.ones(len(deal)), deal)
    lo, hi = bounded_interval(e, -1.0, 1.0)
    assert hi == 1.0 and 0.8 < lo < 1.0
    e = ratio_estimate(np.zeros(len(deal)), np.ones(len(deal)), deal)
    lo, hi = bounded_interval(e, -1.0, 1.0)
    assert lo < 0.0 < hi


def test_effects_by_players_pools_the_line_ups_of_each_player_count():
    hands = _hands()
    t = effects_by_players(hands, [PAIR])
    turns = t[t["metric"] == "turns_per_hand"]
    assert list(turns["players"].fillna(0)) == [3, 4, 0]
    assert (turns["contexts"].to_numpy() == [2, 2, 4]).all()
    r = turns.iloc[0]
    at3 = hands[hands["players"] == 3]
    means = at3.groupby(["rules", "lineup", "replicate", "rotation"])["turns"].mean()
    assert isinstance(means, pd.Series)
    assert r["variant_value"] - r["baseline_value"] == pytest.approx(r["diff"])


def test_an_equal_difference_on_unequal_baselines_quotes_no_pooled_relative_change():
    """+6 turns at both counts, but on hands 60 turns longer at 3 players: the difference
    is stated pooled, its relative change (about twice as large at 4 players) is not."""
    hands = _hands()
    hands.loc[hands["players"] == 3, "turns"] += 60   # both rule sets: the baseline
    t = effects_by_players(hands, [PAIR])
    v = verdict(t, *PAIR, "turns_per_hand")
    assert v.pooled is not None and v.pooled["one_effect"] == 1
    assert v.pooled["rel_heterogeneity_p_adjusted"] < 0.05 and v.pooled["one_relative"] == 0
    rows = v.rows.set_index("players")
    assert rows.loc[4, "rel_diff"] > 1.5 * rows.loc[3, "rel_diff"] > 0
    (text,) = [f.text for f in effect_sentences(t, [PAIR], NAMES)[0]
               if "turns per hand" in f.text]
    assert "pooled, over 3-4 players" in text
    assert "relative change unequal across player counts: +" in text
    assert "at 3 players to +" in text and "at 4 players)" in text
    # the planted equal effects keep their pooled relative change
    t = effects_by_players(_hands(), [PAIR])
    over = verdict(t, *PAIR, "turns_per_hand").pooled
    assert over["one_relative"] == 1
    (text,) = [f.text for f in effect_sentences(t, [PAIR], NAMES)[0]
               if "turns per hand" in f.text]
    assert "relative change unequal" not in text and "%" in text


def test_line_ups_with_opposite_effects_give_no_figure_over_the_line_ups():
    """+12 turns for the expert line-up, -12 for expert,beginner, at both player counts:
    each count's figure (about 0, or the larger line-up's sign) is no effect of the rule;
    the sentence says where it depends on the line-up and states no pooled number."""
    hands = _hands()
    at = hands["rules"] == PAIR[0]
    hands.loc[at & (hands["lineup"] == "expert"), "turns"] += 12
    hands.loc[at & (hands["lineup"] == "expert,beginner"), "turns"] -= 12
    t = effects_by_players(hands, [PAIR])
    v = verdict(t, *PAIR, "turns_per_hand")
    assert v.pooled is None and v.by_lineup == (3, 4) and not v.up and not v.down
    (text,) = [f.text for f in effect_sentences(t, [PAIR], NAMES)[0]
               if "turns per hand" in f.text]
    assert text.startswith("ace=low-only (against classic) changes turns per hand: at 3-4 "
                           "players it depends on the line-up (heterogeneity adjusted p")
    assert "no figure over the line-ups is given" in text
    assert "longer" not in text and "shorter" not in text and " turns (" not in text


def test_line_ups_of_one_sign_and_unequal_sizes_give_their_range_not_a_pooled_figure():
    """+6 turns for the expert line-up, +30 for expert,beginner: one direction, two sizes;
    the sentence keeps the direction and gives the line-ups' range."""
    hands = _hands()
    at = hands["rules"] == PAIR[0]
    hands.loc[at & (hands["lineup"] == "expert,beginner"), "turns"] += 24
    t = effects_by_players(hands, [PAIR])
    v = verdict(t, *PAIR, "turns_per_hand")
    assert v.pooled is None and v.up == (3, 4) and v.by_lineup == ()
    (text,) = [f.text for f in effect_sentences(t, [PAIR], NAMES)[0]
               if "turns per hand" in f.text or "hands longer" in f.text]
    assert "makes hands longer at 3-4 players" in text
    assert "turns by line-up at 3 players" in text and "turns by line-up at 4 players" in text
    assert "its size differs between line-ups at 3-4 players" in text

"""The presets: each tradition's rule values, as its source text gives them or as chosen
where the text is silent (docs/rules.md quotes each clause), and the player counts each
source gives."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fastmach.rules import Rules

__all__ = ["PRESETS", "SOURCE_PLAYERS", "source_warning"]

# the sources are the rule texts 000, 001, 003 and 004; docs/rules.md quotes the
# clause behind every value (TABLE holds the quotes, `fastmach rules RULES` prints them)

PRESETS: dict[str, dict[str, Any]] = {
    # 000_fe2f...: 104 cards without jokers, 13 each, ace low or high, a failed manipulation
    # restores the table and draws 3, 1 penalty per card, explicit empty-stock convention
    # (drawing passes, a round without additions ends the hand whatever the seats could
    # have played, nobody wins it), a match of fixed dealer rotations (the count is not
    # given: 1 here, a sweep varies it).
    "classic": dict(
        players=4, decks=2, jokers=0, jokers_per_meld=1, joker_swap="table", hand_size=13,
        first_player_by="left-of-dealer", ace="low-or-high", ace_both_ends=True,
        may_draw_when_able=True, may_pass_when_able=True, opening_points=0, failed_penalty=3,
        stock_empty="play-on", blocked_when="round",
        blocked_winner="none", ties="shared", scoring="penalties", hand_points="cards",
        match="rotations:1", threshold_reached="reach",
    ),
    # 001_1720...: 108 cards (4 jokers, one per meld), "si tu ne peux pas ou ne veux pas
    # jouer, pioche", a pure race ("ni score"); blocked game: lowest hand points win
    # (A 11, 10 and figures 10, joker 25). failed_penalty 3 is our choice: the text is
    # silent on failed manipulations, and 3 is the classic tradition's penalty.
    "jokers": dict(
        players=4, decks=2, jokers=4, jokers_per_meld=1, joker_swap="table", hand_size=13,
        first_player_by="left-of-dealer", ace="low-or-high", ace_both_ends=False,
        may_draw_when_able=True, may_pass_when_able=False, opening_points=0, failed_penalty=3,
        stock_empty="play-on", blocked_when="nobody-can-play",
        blocked_winner="lowest", ties="draw", scoring="penalties", hand_points="face-ace11",
        match="single", threshold_reached="reach",
    ),
    # 003_1b83...: ace always low, restore + 1 penalty card, penalties at face value
    # (A 1, J/Q/K 10), session to 100 or 200 (100 here), "si la pioche s'épuise avant que
    # quiconque ne termine, le joueur ayant le moins de points en main remporte la donne"
    # (ends-hand + lowest). No jokers by default; joker_swap "hand" takes effect when a
    # sweep adds them: the variant text says the swapper "conserve le joker".
    "ace-low": dict(
        players=4, decks=2, jokers=0, jokers_per_meld=1, joker_swap="hand", hand_size=13,
        first_player_by="cut", ace="low-only", ace_both_ends=False, may_draw_when_able=True,
        may_pass_when_able=False,
        opening_points=0, failed_penalty=1, stock_empty="ends-hand",
        blocked_when="nobody-can-play", blocked_winner="lowest",
        ties="shared", scoring="penalties", hand_points="face-ace1", match="threshold:100",
        threshold_reached="reach",
    ),
    # 004_3b54...: 104 cards, jolly optional (0 here) and unrestricted ("può assumere il
    # valore e il seme che il suo proprietario desidera": unlimited per meld), Q-K-A valid,
    # draw only when no play exists ("se non può calare ... è costretto a pescare"), empty
    # stock: pass without drawing (play-on), points A 11 / figures 10 / jolly 25.
    # Our choices where the text is silent: failed_penalty 1 (no penalty rule is given;
    # one card is the mildest rule of the other traditions) and blocked_winner "lowest"
    # (the text never ends a blocked hand; lowest by its own point count is the natural
    # reading). match "single": the text offers "partita singola" or points with no target.
    "italian": dict(
        players=4, decks=2, jokers=0, jokers_per_meld=0, joker_swap="table", hand_size=13,
        first_player_by="left-of-dealer", ace="low-or-high", ace_both_ends=True,
        may_draw_when_able=False, may_pass_when_able=False, opening_points=0, failed_penalty=1,
        stock_empty="play-on", blocked_when="nobody-can-play",
        blocked_winner="lowest", ties="shared", scoring="penalties", hand_points="face-ace11",
        match="single", threshold_reached="reach",
    ),
}

#: The player counts each preset's source text gives: (fewest, most; None = no limit).
#: 000 "Pour 2–5 personnes"; 001 "pour 2 à 4 joueurs"; 003 "De deux à cinq joueurs" and
#: "pour cinq ou six joueurs, utilisez trois jeux (156 cartes) et distribuez 15 cartes";
#: 004 "Giocatori: 2 o più". Outside it a rule set is ours, not the source's: the CLI warns.
SOURCE_PLAYERS: dict[str, tuple[int, int | None]] = {
    "classic": (2, 5), "jokers": (2, 4), "ace-low": (2, 6), "italian": (2, None),
}


def source_warning(rules: "Rules") -> str | None:
    """Why ``rules`` plays outside its preset source's player range (None when inside)."""
    lo, hi = SOURCE_PLAYERS[rules.preset]
    P = rules.players
    span = f"{lo}-{hi}" if hi is not None else f"{lo} or more"
    if P < lo or (hi is not None and P > hi):
        return (f"{rules}: players={P} is outside the {span} players of the {rules.preset} "
                f"source text (docs/rules.md); these games extrapolate its rules")
    if rules.preset == "ace-low" and P in (5, 6) and (rules.decks, rules.hand_size) != (3, 15):
        return (f"{rules}: the ace-low source plays {P} players with decks=3 and "
                f"hand_size=15 (\"Pour cinq ou six joueurs, utilisez trois jeux\", "
                f"docs/rules.md); these games extrapolate its rules")
    return None

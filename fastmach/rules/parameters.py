"""The rule parameters: :data:`TABLE` holds each one's name, type, allowed values, default,
meaning and the clause of each preset's source behind it (:class:`Parameter`); the
validation and the text of a value are derived from it."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable, TypeGuard

import numpy as np

from fastmach.core.cards import POINT_SCHEMES
from fastmach.errors import FastmachError

__all__ = ["Parameter", "TABLE", "PARAMETERS", "MAX_MATCH_HANDS", "MAX_THRESHOLD",
           "check_value", "parse_value", "format_value", "is_integer"]


@dataclass(frozen=True)
class Parameter:
    """One rule parameter: the single place that defines it.

    ``type`` is int, bool or str; ``allowed`` is ``(lowest, highest or None)`` for an int,
    the choices for a str, ``()`` for a bool or where ``check`` decides. ``summary`` says
    what it means, ``values`` what each value means, and ``sources`` maps each preset to
    ``(original, translation)`` quoted from its source text, or to ``("", note)`` where the
    text is silent and ``note`` states the choice made. ``text`` replaces the generated
    description of the allowed values in messages; ``aliases`` are words accepted for
    values (and written back in rules strings); ``check`` validates and normalises a
    value that the type and ``allowed`` cannot describe (raises ValueError or TypeError).
    """

    name: str
    type: type
    allowed: tuple
    default: Any
    summary: str
    values: dict[str, str]
    sources: dict[str, tuple[str, str]]
    text: str = ""
    aliases: dict[str, Any] = field(default_factory=dict)
    check: Callable[[Any], Any] | None = None


def _q(original: str, translation: str) -> tuple[str, str]:
    return (original, translation)


def _choice(note: str) -> tuple[str, str]:
    return ("", note)


_MATCH_RE = re.compile(r"(rotations|threshold)\s*:\s*(\d+)")
#: the most hands one match may last: the engine stops a longer one as an error, so a
#: rotations:N that needs more (N x players) is refused, and T of threshold:T is at most
#: MAX_THRESHOLD points (a total gains at least a point in nearly every hand)
MAX_MATCH_HANDS = 100_000
MAX_THRESHOLD = 100_000
_MATCH_ALLOWED = ("'single', 'rotations:N' or 'threshold:T' (N, T positive integers; "
                  f"N x players at most {MAX_MATCH_HANDS:,} hands, T at most "
                  f"{MAX_THRESHOLD:,})")


def _check_match(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(value)
    v = value.strip().lower()
    if v == "single":
        return v
    m = _MATCH_RE.fullmatch(v)
    if m is None or not m.group(2).isascii() or int(m.group(2)) < 1:
        raise ValueError(value)
    n = int(m.group(2))
    if n > (MAX_MATCH_HANDS if m.group(1) == "rotations" else MAX_THRESHOLD):
        raise ValueError(value)
    return f"{m.group(1)}:{n}"


#: Every rule parameter, in the order of the fields of :class:`Rules`; the default is the
#: classic preset's value.
TABLE: tuple[Parameter, ...] = (
    Parameter(
        "players", int, (2, 8), 4,
        "Number of players (2..8 accepted). Each preset's source gives a range; outside it "
        "the CLI warns that the games extrapolate the source's rules.",
        {"N": "N players, seated 0..N-1 clockwise"},
        {
            "classic": _q("Pour 2–5 personnes", "For 2-5 people"),
            "jokers": _q("pour 2 à 4 joueurs", "for 2 to 4 players"),
            "ace-low": _q("De deux à cinq joueurs [...] Pour cinq ou six joueurs, utilisez "
                          "trois jeux (156 cartes) et distribuez 15 cartes à chacun",
                          "From two to five players [...] For five or six players, use three "
                          "decks (156 cards) and deal 15 cards each"),
            "italian": _q("Giocatori: 2 o più", "Players: 2 or more"),
        }),
    Parameter(
        "decks", int, (2, 3), 2,
        "Standard 52-card decks shuffled together (2 or 3): each card exists `decks` times.",
        {"2": "104 cards", "3": "156 cards (003's variant for 5-6 players)"},
        {
            "classic": _q("réunissez 2 jeux ordinaires sans jokers : 104 cartes",
                          "gather 2 ordinary decks without jokers: 104 cards"),
            "jokers": _q("On utilise deux jeux de 52 cartes et quatre jokers (108 cartes)",
                         "Two 52-card decks and four jokers are used (108 cards)"),
            "ace-low": _q("Deux jeux standards de 52 cartes mélangés ensemble (104 cartes)",
                          "Two standard 52-card decks shuffled together (104 cards)"),
            "italian": _q("il cosiddetto \"mazzo da Ramino\", composto da 104 carte, quindi, "
                          "2 mazzi di carte francesi",
                          "the so-called \"Ramino deck\" of 104 cards, that is, 2 French decks"),
        },
        text="2 or 3"),
    Parameter(
        "jokers", int, (0, 4), 0,
        "Jokers added to the deck (0..4).",
        {"0": "no jokers", "1..4": "that many jokers"},
        {
            "classic": _q("Y a-t-il des jokers? [...] Pas dans ce profil.",
                          "Are there jokers? Not in this profile."),
            "jokers": _q("deux jeux de cartes et quatre jokers (108 cartes)",
                         "two decks and four jokers (108 cards)"),
            "ace-low": _q("La plupart des tables jouent sans jokers ; une variante ajoutant 2 "
                          "ou 4 jokers [...] est décrite",
                          "Most tables play without jokers; a variant adding 2 or 4 jokers "
                          "[...] is described"),
            "italian": _q("A piacere dei partecipanti possono essere usati anche i Jolly.",
                          "If the players like, the Jolly (jokers) may be used too. "
                          "Optional: 0 in the preset; the default study also plays "
                          "italian(jokers=2)."),
        }),
    Parameter(
        "jokers_per_meld", int, (0, 1), 1,
        "How many jokers one meld may hold. A meld always holds at least one real card (a "
        "choice: no text allows a meld of jokers only).",
        {"1": "at most one joker per meld", "unlimited": "any number (written 0 internally)"},
        {
            "classic": _choice("No jokers in 000; 1 applies when a sweep adds some."),
            "jokers": _q("Une combinaison ne peut contenir qu'un seul joker.",
                         "A meld may hold only one joker."),
            "ace-low": _choice("003's joker variant sets no limit per meld beyond \"un joker "
                               "remplace n'importe quelle carte manquante\" (a joker replaces "
                               "any missing card); 1, as in 001, is our choice."),
            "italian": _q("Il Jolly può assumere il valore e il seme che il suo proprietario "
                          "desidera",
                          "The Jolly can take whatever value and suit its owner wishes: read "
                          "as no limit per meld"),
        },
        text="1 or 'unlimited' (0)", aliases={"unlimited": 0}),
    Parameter(
        "joker_swap", str, ("table", "hand"), "table",
        "What happens to a joker replaced on the table by the real card it stands for.",
        {"table": "it stays on the table, free for any meld of the rearrangement",
         "hand": "the player who puts the real card in its place takes it into hand (an "
                 "opened player; it counts as a play)"},
        {
            "classic": _choice("No jokers in 000; 'table' applies when a sweep adds some."),
            "jokers": _q("Remplace un joker par la carte qu'il représente et utilise le joker "
                         "ailleurs.",
                         "Replace a joker by the card it stands for and use the joker "
                         "elsewhere (on the table)."),
            "ace-low": _q("un joueur détenant la carte que représente le joker peut échanger "
                          "la vraie carte contre le joker à son tour et conserver le joker",
                          "a player holding the card the joker stands for may swap the real "
                          "card for the joker on their turn and keep the joker"),
            "italian": _q("può essere prelevato dal tavolo alla maniera delle altre carte",
                          "it can be taken from the table like the other cards (and, like "
                          "them, must be put back into play: 'table')"),
        }),
    Parameter(
        "hand_size", int, (1, None), 13,
        "Cards dealt to each player, one at a time, starting left of the dealer. The deal "
        "must leave a stock: players x hand_size < 52 x decks + jokers, else an error names "
        "players, hand_size and decks.",
        {"N": "N cards each"},
        {
            "classic": _q("Donnez 13 chacun une à une", "Deal 13 each, one at a time"),
            "jokers": _q("Chacun reçoit 13 cartes.", "Everyone receives 13 cards."),
            "ace-low": _q("Distribuez 13 cartes à chaque joueur, une par une",
                          "Deal 13 cards to each player, one at a time (15 with three decks)"),
            "italian": _q("Il cartaio distribuisce 13 carte a testa coperte, una alla volta",
                          "The dealer deals 13 cards each, face down, one at a time"),
        }),
    Parameter(
        "first_player_by", str, ("left-of-dealer", "cut"), "left-of-dealer",
        "Who plays first. (Named `first_player_by` because `first_player` is the seat that "
        "played first, a column of the game and hand rows.)",
        {"left-of-dealer": "the seat left of the dealer; the dealer moves one seat clockwise "
                           "each hand",
         "cut": "the seat that cuts the highest card: drawn as a uniform seat (every seat "
                "alike, ties re-cut), then the next seat clockwise starts each later hand"},
        {
            "classic": _q("Commencez à gauche, sens horaire.", "Start on the left, clockwise."),
            "jokers": _choice("001 does not say who starts; left of the dealer."),
            "ace-low": _q("Le premier joueur est désigné en coupant le jeu, la carte la plus "
                          "haute entamant la partie.",
                          "The first player is chosen by cutting the deck, the highest card "
                          "starting the game. Later hands of a session: the text is silent; "
                          "the next seat clockwise starts each hand."),
            "italian": _choice("004 names a dealer who rotates but not who starts; left of "
                               "the dealer."),
        }),
    Parameter(
        "ace", str, ("low-or-high", "low-only"), "low-or-high",
        "Where an ace may sit in a run. Whether a run may hold an ace at each end (A 2 ... "
        "K A) is `ace_both_ends`.",
        {"low-or-high": "A-2-3 and Q-K-A are runs, K-A-2 is not",
         "low-only": "A-2-3 is a run, Q-K-A is not"},
        {
            "classic": _q("As bas ou haut, jamais intérieur : A 2 3 et Q K A valides, K A 2 non.",
                          "Ace low or high, never inside: A 2 3 and Q K A valid, K A 2 not."),
            "jokers": _q("L'As est bas ou haut, jamais les deux : As-2-3 et Dame-Roi-As sont "
                         "valides, Roi-As-2 ne l'est pas.",
                         "The ace is low or high, never both: A-2-3 and Q-K-A are valid, "
                         "K-A-2 is not."),
            "ace-low": _q("Les As sont toujours bas (la suite A, 2, 3 est valide ; D, R, A ne "
                          "l'est pas).",
                          "Aces are always low (the run A, 2, 3 is valid; Q, K, A is not)."),
            "italian": _q("L'Asso è combinabile con Due e Tre (Asso + Due + Tre), denominato "
                          "Scala Bassa, ed anche con Donna e Rè (Donna + Rè + Asso), "
                          "denominato Scala Alta.",
                          "The ace combines with two and three (low run) and also with queen "
                          "and king (high run)."),
        }),
    Parameter(
        "ace_both_ends", bool, (), True,
        "Under ace = low-or-high, whether one run may hold an ace at each end (A 2 ... K A, "
        "14 cards). Under false such cards are laid as two runs (A..7 and 8..A: always "
        "possible, so the plays that exist are the same; only the meld list differs). No "
        "effect under ace = low-only.",
        {"true": "A 2 ... K A is one run", "false": "an ace is low or high, never both in "
                                                   "one run"},
        {
            "classic": _q("As bas ou haut, jamais intérieur",
                          "Ace low or high, never inside: an ace at each end of A 2 ... K A is "
                          "inside no run, so the run stands (a reading: the text does not "
                          "speak of it)."),
            "jokers": _q("L'As est bas ou haut, jamais les deux",
                         "The ace is low or high, never both"),
            "ace-low": _choice("Moot: aces are always low (ace = low-only)."),
            "italian": _q("Scala Bassa [...] Scala Alta",
                          "Low run and high run: the text does not forbid both in one run "
                          "(a reading; true)."),
        }),
    Parameter(
        "may_draw_when_able", bool, (), True,
        "Whether a player who can play may draw instead. Under false the player must play: "
        "a skill level is bound by the plays it can see (beginner, intermediate; a reading "
        "of 004's \"se non può calare\": the player's own view decides, and the hand rows "
        "count the draws made while a play existed, draws_when_able_i), every other seat "
        "by the exact solver.",
        {"true": "drawing is always allowed (playing is optional)",
         "false": "draw only when no play exists"},
        {
            "classic": _q("Poser reste facultatif.", "Playing remains optional."),
            "jokers": _q("Si tu ne peux pas ou ne veux pas jouer, pioche une carte et ton "
                         "tour se termine.",
                         "If you cannot or do not want to play, draw a card and your turn "
                         "ends."),
            "ace-low": _q("vous pouvez soit jouer une ou plusieurs cartes sur la table, soit "
                          "piocher une carte et terminer votre tour",
                          "you may either play one or more cards to the table, or draw a card "
                          "and end your turn"),
            "italian": _q("Se non può calare alcuna delle proprie carte è costretto a pescare "
                          "dal mazzo",
                          "If they cannot lay down any of their cards they must draw from "
                          "the stock"),
        }),
    Parameter(
        "may_pass_when_able", bool, (), True,
        "With an empty stock (stock_empty = play-on) a player who would draw passes; this "
        "says whether a player who can play may pass. Under false a skill level is bound "
        "by the plays it can see (beginner, intermediate; a reading: the player's own view "
        "decides, and the hand rows count the passes made while a play existed), every "
        "other seat by the exact solver.",
        {"true": "a voluntary pass (a round without additions ends the hand)",
         "false": "pass only when no play exists"},
        {
            "classic": _q("Convention explicite si pioche vide : piocher passe [...] et un tour "
                          "de table sans ajout termine la donne.",
                          "Explicit convention for an empty stock: drawing passes [...] and a "
                          "round of the table without additions ends the hand."),
            "jokers": _q("Si la pioche est épuisée et que personne ne peut jouer pendant un "
                         "tour complet, la partie s'arrête",
                         "If the stock is exhausted and nobody can play for a full round, "
                         "the game stops"),
            "ace-low": _q("Vous ne pouvez pas passer volontairement sans piocher.",
                          "You may not pass voluntarily without drawing. (Moot under "
                          "ends-hand: the hand is over when the stock runs out.)"),
            "italian": _q("Se un giocatore, nel suo turno, non riesce a calare nessuna carta "
                          "deve passare la mano senza pescare.",
                          "If a player, on their turn, cannot lay down any card, they must "
                          "pass without drawing."),
        }),
    Parameter(
        "opening_points", int, (0, 1000), 0,
        "A player's first play must be new melds of hand cards only (the table untouched) "
        "worth at least this many points (A 1, J/Q/K 10, others face; a joker counts as the "
        "card it stands for, a choice). 0: no opening rule.",
        {"0": "no opening rule", "N": "first play worth N points or more"},
        {
            "classic": _q("Ni défausse, atout, enchère ni seuil d’ouverture.",
                          "No discard, trump, bidding or opening threshold."),
            "jokers": _q("Il n'y a ni score ni points d'ouverture", "There is no score and no "
                         "opening points"),
            "ace-low": _q("Certaines tables exigent que la première combinaison posée sur la "
                          "table vaille au moins 36 points (valeur faciale, avec A = 1, V/D/R "
                          "= 10). Une fois cette combinaison initiale posée, vous pouvez "
                          "manipuler librement lors des tours suivants.",
                          "Some tables require the first meld laid down to be worth at least "
                          "36 points (face value, A = 1, J/Q/K = 10). Once it is laid, you "
                          "may manipulate freely on later turns. (A variant: 0 in the "
                          "preset, 36 in the default study.)"),
            "italian": _choice("004 has no opening rule; 0."),
        }),
    Parameter(
        "failed_penalty", int, (0, 1000), 3,
        "Cards drawn after a failed manipulation (the table is restored exactly and the "
        "placed cards return to the hand; this draw replaces the normal one; an exhausted "
        "stock gives only what it holds). A failure is legal only where a play is legal: a "
        "botched play (a manipulation, or a new meld of hand cards: 000 \"Cette annulation "
        "pénalise aussi une nouvelle combinaison tentée sans succès\"), not a free action. "
        "Perfect players never fail; fallible strategies do.",
        {"N": "N penalty cards"},
        {
            "classic": _q("Si toutes les cartes ne finissent pas dans des combinaisons légales, "
                          "restaurez exactement la table, reprenez vos ajouts et piochez 3 de "
                          "pénalité à la place du tirage normal.",
                          "If not every card ends in legal melds, restore the table exactly, "
                          "take back your additions and draw 3 as a penalty instead of the "
                          "normal draw."),
            "jokers": _choice("001 is silent on failed manipulations; 3, the classic "
                              "tradition's penalty."),
            "ace-low": _q("vous devez rétablir la table exactement telle qu'elle était au "
                          "début de votre tour et piocher une carte de pénalité",
                          "you must restore the table exactly as it was at the start of your "
                          "turn and draw one penalty card"),
            "italian": _choice("004 gives no penalty rule (\"Tutte le carte prelevate devono "
                               "essere rimesse in gioco\": every card taken must be put back "
                               "into play); 1, the mildest rule of the other texts."),
        }),
    Parameter(
        "stock_empty", str, ("play-on", "ends-hand"), "play-on",
        "What happens when the stock runs out.",
        {"play-on": "a player who would draw passes; a full round of turns begun with an "
                    "empty stock in which nobody adds a card ends the hand (blocked) as "
                    "`blocked_when` says",
         "ends-hand": "the hand ends (stock-out) at the end of the turn that draws the "
                      "stock's last card (by a draw or a failure's penalty)"},
        {
            "classic": _q("Convention explicite si pioche vide : piocher passe, manipulation "
                          "ratée prend les pénalités disponibles seulement, et un tour de "
                          "table sans ajout termine la donne.",
                          "Explicit convention for an empty stock: drawing passes, a failed "
                          "manipulation takes only the penalty cards available, and a round "
                          "of the table without additions ends the hand."),
            "jokers": _q("Si la pioche est épuisée et que personne ne peut jouer pendant un "
                         "tour complet, la partie s'arrête",
                         "If the stock is exhausted and nobody can play for a full round, "
                         "the game stops"),
            "ace-low": _q("Si la pioche s'épuise avant que quiconque ne termine, le joueur "
                          "ayant le moins de points en main remporte la donne.",
                          "If the stock runs out before anyone finishes, the player with the "
                          "fewest points in hand wins the hand."),
            "italian": _q("Fine del mazzo: [...] Se un giocatore, nel suo turno, non riesce a "
                          "calare nessuna carta deve passare la mano senza pescare.",
                          "End of the stock: [...] a player who cannot lay down any card "
                          "passes without drawing. (The text never ends a blocked hand; a "
                          "round of passes does, as in 000.)"),
        }),
    Parameter(
        "blocked_when", str, ("round", "nobody-can-play"), "round",
        "Under stock_empty = play-on: what a full round of turns begun with an empty stock "
        "that adds no card does to the hand.",
        {"round": "it ends the hand (blocked), whether or not a seat could have played "
                  "(a pass while able is a choice under may_pass_when_able = true)",
         "nobody-can-play": "it ends the hand only when no seat can add a card (the exact "
                            "solver: a fact of the position, not of the players' skill); "
                            "while one could, play goes on (a player who misses a play is "
                            "making an error), and the hand is blocked after 10 such "
                            "rounds all the same (only players who cannot see their plays "
                            "remain)"},
        {
            "classic": _q("Convention explicite si pioche vide : piocher passe, manipulation "
                          "ratée prend les pénalités disponibles seulement, et un tour de "
                          "table sans ajout termine la donne.",
                          "Explicit convention for an empty stock: drawing passes, a failed "
                          "manipulation takes only the penalty cards available, and a round "
                          "of the table without additions ends the hand (whatever the "
                          "seats could have played)."),
            "jokers": _q("Si la pioche est épuisée et que personne ne peut jouer pendant un "
                         "tour complet, la partie s'arrête",
                         "If the stock is exhausted and nobody can play for a full round, "
                         "the game stops"),
            "ace-low": _choice("Moot under stock_empty = ends-hand (003: the hand ends with "
                               "the stock); nobody-can-play where a sweep plays on, as the "
                               "other traditions that forbid a voluntary pass."),
            "italian": _q("Se un giocatore, nel suo turno, non riesce a calare nessuna carta "
                          "deve passare la mano senza pescare.",
                          "If a player, on their turn, cannot lay down any card, they must "
                          "pass without drawing. (The text never ends a blocked hand; a "
                          "round of passes where nobody can play does, as in 001.)"),
        }),
    Parameter(
        "blocked_winner", str, ("none", "lowest"), "none",
        "Who wins a blocked or stock-out hand (an emptied hand is always won by the player "
        "who emptied it: 000 \"La première main vide gagne aussitôt\").",
        {"none": "nobody; everyone counts their cards",
         "lowest": "the fewest hand points (ties: see `ties`)"},
        {
            "classic": _q("Tous comptent leurs restes, sans gagnant de main vide.",
                          "Everyone counts their remaining cards, with no empty-hand winner."),
            "jokers": _q("le joueur avec le moins de points en main l'emporte",
                         "the player with the fewest points in hand wins"),
            "ace-low": _q("le joueur ayant le moins de points en main remporte la donne",
                          "the player with the fewest points in hand wins the hand"),
            "italian": _choice("004 never ends a blocked hand; the lowest hand by its own "
                               "point count wins."),
        }),
    Parameter(
        "ties", str, ("shared", "draw"), "shared",
        "Equal lowest values: tied hands of a blocked or stock-out hand under "
        "blocked_winner = lowest, and tied match totals. `winner` is -1 on a tie either way; "
        "`win_share_i` is 1/k for each of k tied winners, or 0 for everyone.",
        {"shared": "the k tied players share the win (1/k each) and, in a hand, pay nothing",
         "draw": "nobody wins (shares 0); everyone pays their hand points"},
        {
            "classic": _q("Cumulez les rotations fixées ; plus petit total gagnant, égalités "
                          "partagées.",
                          "Add up the fixed rotations; the lowest total wins, ties shared."),
            "jokers": _q("En cas d'égalité de points, c'est match nul.",
                         "In case of equal points, it is a draw."),
            "ace-low": _choice("003 is silent on ties; shared, as in 000."),
            "italian": _choice("004 is silent on ties; shared, as in 000."),
        }),
    Parameter(
        "scoring", str, ("penalties", "winner-takes"), "penalties",
        "What a hand adds to each player's score (`score_i`). In every tradition the hand's "
        "winners pay nothing: the player who emptied their hand holds no card, and a "
        "blocked or stock-out hand's winner is not charged either.",
        {"penalties": "each other player adds their hand points; lower totals are better",
         "winner-takes": "003's single deal (match = single only): the winners score the sum "
                         "of the other players' hand points, the others 0; higher is better; "
                         "k tied winners split it, sum // k each (003 speaks of one winner; "
                         "points stay whole numbers)"},
        {
            "classic": _q("Les autres marquent 1 pénalité par carte restante",
                          "The others score 1 penalty per remaining card"),
            "jokers": _q("Il n'y a ni score ni points d'ouverture : le Machiavelli est une "
                         "simple course pour vider sa main.",
                         "There is no score: a simple race to empty one's hand (score_i "
                         "records the penalties all the same)."),
            "ace-low": _q("Chaque autre joueur compte les cartes encore en main comme points "
                          "de pénalité [...] Alternativement, le jeu peut se jouer en une "
                          "seule donne, le vainqueur marquant la somme de tous les points de "
                          "pénalité de ses adversaires.",
                          "Each other player counts the cards still in hand as penalty "
                          "points [...] Alternatively, the game can be played as a single "
                          "deal, the winner scoring the sum of all the opponents' penalty "
                          "points."),
            "italian": _q("la smazzata termina e gli avversari devono contare i punti "
                          "sommando le carte rimaste nella propria mano",
                          "the hand ends and the opponents must count the points of the "
                          "cards left in their hand"),
        }),
    Parameter(
        "hand_points", str, tuple(POINT_SCHEMES), "cards",
        "Points of the cards left in a hand.",
        {"cards": "1 per card, whatever its value",
         "face-ace1": "2-10 face value, J/Q/K 10, A 1, joker 25 (the joker's value is a "
                      "choice: 003 gives none)",
         "face-ace11": "2-10 face value, J/Q/K 10, A 11, joker 25"},
        {
            "classic": _q("Les autres marquent 1 pénalité par carte restante, quelle que soit "
                          "sa valeur",
                          "The others score 1 penalty per remaining card, whatever its value"),
            "jokers": _q("As 11, 10 et figures 10, joker 25, les autres cartes valent leur "
                         "valeur", "Ace 11, ten and face cards 10, joker 25, the other cards "
                         "their value"),
            "ace-low": _q("les cartes numériques à leur valeur faciale, Valet, Dame et Roi à "
                          "10 chacun, As à 1",
                          "number cards at face value, jack, queen and king 10 each, ace 1"),
            "italian": _q("Le carte dal Due al Dieci valgono tanti punti quant'è il loro "
                          "valore. [...] 10 punti per ogni Figura [...] 11 punti per ogni "
                          "Asso [...] 25 punti per ogni Jolly",
                          "Cards two to ten are worth their value; 10 points per face card; "
                          "11 per ace; 25 per jolly."),
        }),
    Parameter(
        "match", str, (), "rotations:1",
        "What one game is: a single hand or a match of several. A match's winner has the "
        "lowest total (ties: see `ties`).",
        {"single": "one hand",
         "rotations:N": "N full dealer rotations: N x players hands (at most 100,000 "
                        "hands a match: the engine's limit)",
         "threshold:T": "hands until a total reaches T (or, under `threshold_reached = "
                        "\"exceed\"`, passes it); the match ends after that hand; T at "
                        "most 100,000, and a match still going after 100,000 hands is an error"},
        {
            "classic": _q("Fixez des rotations complètes de donneurs pour le match. [...] "
                          "Cumulez les rotations fixées",
                          "Fix complete rotations of dealers for the match. [...] Add up the "
                          "fixed rotations (their number is not given: 1 here)"),
            "jokers": _q("le Machiavelli est une simple course pour vider sa main",
                         "Machiavelli is a simple race to empty one's hand"),
            "ace-low": _q("Une session se joue habituellement jusqu'à 100 ou 200 points de "
                          "pénalité ; le joueur ayant le total le plus bas lorsque quelqu'un "
                          "franchit le seuil est le vainqueur général.",
                          "A session is usually played to 100 or 200 penalty points; the "
                          "player with the lowest total when someone crosses the threshold "
                          "is the overall winner (100 here)."),
            "italian": _q("Si può giocare a punti [...] oppure a partita singola e chi finisce "
                          "le carte vince.",
                          "One can play for points [...] or a single game where whoever "
                          "runs out of cards wins (no target is given for points: single)."),
        },
        text=_MATCH_ALLOWED, check=_check_match),
    Parameter(
        "threshold_reached", str, ("reach", "exceed"), "reach",
        "When a total ends a `threshold:T` match (unused by the other matches): 003's "
        "\"franchit le seuil\" (crosses the threshold) may mean reaching T or going past it; "
        "a total of exactly T decides.",
        {"reach": "a total of T or more ends the match after its hand",
         "exceed": "only a total above T ends it (a total of exactly T plays on)"},
        {
            "classic": _choice("No threshold match (rotations:1): unused; 'reach'."),
            "jokers": _choice("No threshold match (single): unused; 'reach'."),
            "ace-low": _q("le joueur ayant le total le plus bas lorsque quelqu'un franchit le "
                          "seuil est le vainqueur général",
                          "the player with the lowest total when someone crosses the "
                          "threshold is the overall winner: \"franchit\" (crosses) is read "
                          "as reaching it, a choice; 'exceed' is the other reading"),
            "italian": _choice("No threshold match (single): unused; 'reach'."),
        }),
)

_BY_NAME: dict[str, Parameter] = {p.name: p for p in TABLE}

#: Parameter names in declaration order (every field of :class:`Rules` but ``preset``).
PARAMETERS: tuple[str, ...] = tuple(_BY_NAME)


def _allowed(name: str) -> str:
    """Human text of the values a parameter accepts (used in every message)."""
    p = _BY_NAME[name]
    if p.text:
        return p.text
    if p.type is int:
        lo, hi = p.allowed
        return f"an integer {lo}..{hi}" if hi is not None else f"an integer >= {lo}"
    if p.type is bool:
        return "true or false"
    return "one of " + ", ".join(repr(v) for v in p.allowed)


def _bad(name: str, value: Any) -> FastmachError:
    return FastmachError(f"rules parameter '{name}' must be {_allowed(name)}, got {value!r}")


def is_integer(v: Any) -> TypeGuard[int]:
    """An int or a NumPy integer, not a bool (the arguments that count something)."""
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def _unknown(name: str) -> FastmachError:
    return FastmachError(f"unknown rules parameter {name!r}; known: {', '.join(PARAMETERS)}")


def check_value(name: str, value: Any) -> Any:
    """Validated, normalised value of one parameter (raises naming the parameter)."""
    p = _BY_NAME.get(name)
    if p is None:
        raise _unknown(name)
    if p.check is not None:
        try:
            return p.check(value)
        except (TypeError, ValueError):
            raise _bad(name, value) from None
    if p.type is int:
        if isinstance(value, str) and value.strip().lower() in p.aliases:
            return p.aliases[value.strip().lower()]
        lo, hi = p.allowed
        if not is_integer(value) or value < lo or (hi is not None and value > hi):
            raise _bad(name, value)
        return int(value)
    if p.type is bool:
        if not isinstance(value, (bool, np.bool_)):
            raise _bad(name, value)
        return bool(value)
    v = value.strip().lower() if isinstance(value, str) else value
    if v not in p.allowed:
        raise _bad(name, value)
    return v


def parse_value(name: str, text: str) -> Any:
    """Typed value of parameter ``name`` written as text (as in a rules string)."""
    p = _BY_NAME.get(name)
    if p is None:
        raise _unknown(name)
    t = text.strip()
    low = t.lower()
    try:
        if p.type is int:
            if low in p.aliases:
                return p.aliases[low]
            if not re.fullmatch(r"[+-]?\d+", t):
                raise _bad(name, t)
            return check_value(name, int(t))
        if p.type is bool:
            if low not in ("true", "false"):
                raise _bad(name, t)
            return low == "true"
        return check_value(name, t)
    except (FastmachError, ValueError):
        raise FastmachError(
            f"bad value {t!r} for rules parameter '{name}': expected {_allowed(name)}"
        ) from None


def format_value(name: str, value: Any) -> str:
    """Text of a parameter value as written in rules strings."""
    p = _BY_NAME.get(name)
    for word, v in (p.aliases.items() if p is not None else ()):
        if value == v:
            return word
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)

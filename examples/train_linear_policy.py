"""Train a linear policy against three experts on the vectorised environment (NumPy only),
save it as a fastmach player, and measure it on held-out deals.

    python examples/train_linear_policy.py --rules classic --workers 2 \
        --generations 9 --out agent.npz --eval 100

The policy plays the legal macro-action (docs/env.md) of the highest
``W[a] . x + b[a]``, with ``x`` a few parts of the observation vector: the stock, every
seat's hand size, the ``max_play`` part (the share of the hand the expert's play places,
whether it empties the hand) and the mask; ``--actions`` limits the actions it chooses
among (default ``draw,max_cards``: whether to hold; any legal action where neither is).

Learners (``--learner``): ``cem`` (default), the cross-entropy method: each generation
draws ``--candidates`` weight vectors from a Gaussian, plays each on the same ``--deals``
deals (common random numbers) in a VectorEnv of candidates x deals games, and moves the
Gaussian to the best fifth; ``pg``, REINFORCE (Adam, a discounted reward to go, a linear
baseline) on the per-hand reward. Measured on the 2-core development machine: ``cem``
with the defaults and the command above (9 generations, 88,422 learner steps, half a
minute of wall time) won 59.5% [49.9, 69.1] of 100 held-out classic matches against three
experts (the expert in that seat 27.0% on the same deals), and 56.0% of 1,600 ``fastmach
play --rotate --seed 5`` games (400 deals; each expert 14.7%); ``pg`` for 2 minutes only
reached the expert's 27.0% (from a uniform start its gradient leads to playing more, not
to holding). ``--self-play 3`` (the latest
snapshot in one seat from generation 4 on) won 19.5% [12.2, 26.8]: the answer to a
holding snapshot is to play early, which loses to experts (docs/env.md).

Saved: ``--out`` (.npz, ``W`` over the whole vector and ``b``), a player for every command
that seats a Python bot::

    fastmach play --strategies "fastmach.env.policy:PolicyBot(policy=agent.npz),expert,expert,expert" \
        --games 100 --rotate --out agent.parquet

Printed: the learning curve, then the greedy policy's match win share over ``--eval``
held-out deals against three experts with its 95% interval (normal approximation over
matches), the expert's own share in that seat on the same deals, the learner steps and
the minutes of training.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from fastmach.env import ACTIONS, N_ACTIONS, LinearPolicy, SingleAgentEnv, VectorEnv
from fastmach.env.moves import DRAW, MAX_CARDS
from fastmach.env.policy import PolicyBot
from fastmach.rules import Rules

PARTS = ("stock", "hand_sizes", "max_play", "legal")


def feature_index(layout) -> np.ndarray:
    """The vector positions the policy reads."""
    return np.concatenate([np.arange(layout.slices[p].start, layout.slices[p].stop)
                           for p in PARTS])


def restrict(masks: np.ndarray, uses: np.ndarray) -> np.ndarray:
    """The masks cut to the actions the policy uses, where one of them is legal."""
    own = masks & uses
    return np.where(own.any(axis=1, keepdims=True), own, masks)


def using(actions: str) -> np.ndarray:
    uses = np.zeros(N_ACTIONS, dtype=bool)
    uses[[ACTIONS.index(a) for a in actions.split(",")]] = True
    return uses


def probabilities(W, b, X, masks) -> np.ndarray:
    logits = np.where(masks, X @ W.T + b, -np.inf)
    logits -= logits.max(axis=1, keepdims=True)
    p = np.exp(logits)
    return p / p.sum(axis=1, keepdims=True)


def train(args) -> tuple[np.ndarray, np.ndarray, object, int, float]:
    venv = VectorEnv(args.rules, num_envs=args.envs, workers=args.workers,
                     opponents="expert", reward="hand")
    idx = feature_index(venv.layout)
    F = len(idx)
    W = np.zeros((N_ACTIONS, F))
    b = np.zeros(N_ACTIONS)
    b[MAX_CARDS] = args.start   # (towards the expert at the start)
    uses = using(args.actions)
    b[~uses] = -100.0   # (actions the policy does not use: never, where one it uses is legal)
    rng = np.random.default_rng(args.seed)
    obs, _ = venv.reset(seed=args.seed)
    traj: list[list] = [[] for _ in range(args.envs)]
    batch: list = []
    steps, blocks = 0, []
    V, v0 = np.zeros(F), 0.0
    mW, sW, mb, sb = np.zeros_like(W), np.zeros_like(W), np.zeros_like(b), np.zeros_like(b)
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < args.minutes * 60:
        masks = restrict(venv.action_masks(), uses)
        X = obs[:, idx].astype(np.float64)
        p = probabilities(W, b, X, masks)
        acts = (p.cumsum(axis=1) > rng.random((args.envs, 1))).argmax(axis=1)
        obs, rew, term, trunc, _ = venv.step(acts)
        steps += args.envs
        for i in range(args.envs):
            traj[i].append((X[i], p[i], acts[i], rew[i]))
            if term[i] or trunc[i]:
                batch.append(traj[i])
                traj[i] = []
        if len(batch) >= args.batch:
            gW, gb, total, n = np.zeros_like(W), np.zeros_like(b), 0.0, 0
            xs, gs = [], []
            for ep in batch:
                rewards = np.array([s[3] for s in ep])
                g, togo = 0.0, np.zeros(len(ep))
                for t in range(len(ep) - 1, -1, -1):   # (discounted reward to go)
                    g = rewards[t] + args.gamma * g
                    togo[t] = g
                for (x, pi, a, _), g in zip(ep, togo):
                    adv = g - (V @ x + v0)
                    d = -pi
                    d[a] += 1.0
                    gW += adv * np.outer(d, x)
                    gb += adv * d
                    n += 1
                    xs.append(x)
                    gs.append(g)
                total += rewards.sum()
            mean = total / len(batch)
            Xb, Gb = np.array(xs), np.array(gs)   # (the baseline: least squares on x)
            err = Gb - (Xb @ V + v0)
            V += 0.5 * Xb.T @ err / len(Gb)
            v0 += 0.5 * err.mean()
            for param, grad, m, s2 in ((W, gW / n, mW, sW), (b, gb / n, mb, sb)):
                step_no = len(blocks) + 1   # (Adam)
                m *= 0.9
                m += 0.1 * grad
                s2 *= 0.999
                s2 += 0.001 * grad ** 2
                param += args.lr * (m / (1 - 0.9 ** step_no)) / (
                    np.sqrt(s2 / (1 - 0.999 ** step_no)) + 1e-8)
            b[~uses] = -100.0
            blocks.append(mean)
            print(f"{steps:>9,} steps  {time.perf_counter() - t0:6.0f} s  hands won per "
                  f"match {mean:.3f}", flush=True)
            batch = []
    venv.close()
    return W, b, idx, steps, (time.perf_counter() - t0) / 60


def linear(W: np.ndarray, b: np.ndarray, idx: np.ndarray, size: int) -> LinearPolicy:
    """The policy of weights ``W`` over the features ``idx`` as one over the whole vector."""
    full = np.zeros((N_ACTIONS, size))
    full[:, idx] = W
    return LinearPolicy(full, b)


def opponents(rules: str, snapshots: list) -> list:
    """The other seats: three experts, or, once self-play has snapshots, the latest
    snapshot (a PolicyBot) in the first of them and experts in the rest (so the learner
    keeps meeting the field it is measured against)."""
    others = ["expert"] * (Rules.parse(rules).players - 1)
    if snapshots:
        others[0] = PolicyBot.of(snapshots[-1])
    return others


def train_cem(args) -> tuple[np.ndarray, np.ndarray, object, int, float]:
    """The cross-entropy method: each generation draws ``--candidates`` weight vectors
    from a Gaussian, plays each on the same ``--deals`` deals (common random numbers), and
    moves the Gaussian to the best fifth. With ``--self-play K`` every K generations the
    mean joins the snapshots and the next generations play against the latest one."""
    C, K = args.candidates, args.deals
    snapshots: list[LinearPolicy] = []
    venv = VectorEnv(args.rules, num_envs=C * K, workers=args.workers,
                     opponents=opponents(args.rules, snapshots))
    idx = feature_index(venv.layout)
    F = len(idx)
    shape = (N_ACTIONS, F + 1)   # (a weight per feature and a bias, per action)
    mean = np.zeros(shape)
    mean[MAX_CARDS, F] = 1.0     # (the expert's choice preferred at the start)
    std = np.full(shape, 1.0)
    uses = using(args.actions)
    mean[~uses] = 0.0
    std[~uses] = 0.0
    mean[~uses, F] = -100.0   # (an action the policy does not use scores lowest)
    rng = np.random.default_rng(args.seed)
    steps, gen, t0 = 0, 0, time.perf_counter()
    while time.perf_counter() - t0 < args.minutes * 60 and (
            args.generations is None or gen < args.generations):
        thetas = mean + std * rng.standard_normal((C, *shape))
        base = args.seed * 10**6 + gen * K
        obs, _ = venv.reset(seed=[base + k for _ in range(C) for k in range(K)])
        total = np.zeros(C * K)
        live = np.ones(C * K, dtype=bool)
        who = np.repeat(np.arange(C), K)
        while live.any():
            X = np.hstack([obs[:, idx], np.ones((C * K, 1))])
            scores = np.einsum("naf,nf->na", thetas[who], X)
            masks = restrict(venv.action_masks(), uses)
            acts = np.where(masks, scores, -np.inf).argmax(axis=1)
            obs, rew, term, trunc, _ = venv.step(acts)
            steps += int(live.sum())
            total += rew * live
            live &= ~(term | trunc)
        fitness = total.reshape(C, K).mean(axis=1)
        elite = thetas[np.argsort(fitness)[-max(2, C // 5):]]
        mean, std = elite.mean(axis=0), np.maximum(elite.std(axis=0), args.min_std)
        gen += 1
        print(f"generation {gen:>3}  {steps:>9,} steps  {time.perf_counter() - t0:6.0f} s  "
              f"win share: best {fitness.max():.3f}, mean {fitness.mean():.3f}"
              f"{'  (against a snapshot)' if snapshots else ''}", flush=True)
        if args.self_play and gen % args.self_play == 0:
            snapshots.append(linear(mean[:, :F], mean[:, F], idx, venv.layout.size))
            venv.close()
            venv = VectorEnv(args.rules, num_envs=C * K, workers=args.workers,
                             opponents=opponents(args.rules, snapshots))
    venv.close()
    return mean[:, :F], mean[:, F], idx, steps, (time.perf_counter() - t0) / 60


def evaluate(policy, rules: str, deals: int, seed: int, expert: bool = False) -> np.ndarray:
    """The match win share of each held-out deal (the learner at seat 0, three experts)."""
    env = SingleAgentEnv(rules, opponents="expert", observation="vector")
    out = []
    for d in range(deals):
        vec, info = env.reset(seed=seed + d)
        total, done = info["reward_before"], False
        while not done:
            mask = env.action_masks()
            a = (MAX_CARDS if mask[MAX_CARDS] else DRAW) if expert else \
                int(np.argmax(np.where(mask, policy(vec, mask), -np.inf)))
            vec, r, term, trunc, _ = env.step(a)
            total += r
            done = term or trunc
        out.append(total)
    return np.array(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rules", default="classic")
    ap.add_argument("--generations", type=int, default=None,
                    help="cem: stop after this many generations (reproducible; also "
                         "stopped by --minutes)")
    ap.add_argument("--learner", choices=["cem", "pg"], default="cem",
                    help="the cross-entropy method, or REINFORCE")
    ap.add_argument("--candidates", type=int, default=12, help="cem: weight vectors a generation")
    ap.add_argument("--deals", type=int, default=16, help="cem: deals each candidate plays")
    ap.add_argument("--min-std", type=float, default=0.3, help="cem: the least spread")
    ap.add_argument("--self-play", type=int, default=0, metavar="K",
                    help="cem: every K generations the policy joins the snapshots, and the "
                         "generations after it play against the latest in one seat (0: "
                         "against experts only)")
    ap.add_argument("--actions", default="draw,max_cards",
                    help="the macro-actions the policy may choose (comma list; where "
                         "none of them is legal, any legal one)")
    ap.add_argument("--minutes", type=float, default=10.0, help="the most training time")
    ap.add_argument("--envs", type=int, default=16, help="pg: games stepped together")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--batch", type=int, default=32, help="pg: episodes per update")
    ap.add_argument("--lr", type=float, default=0.05, help="pg: Adam's step size")
    ap.add_argument("--gamma", type=float, default=0.9, help="pg: discount of the reward to go")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--start", type=float, default=0.0,
                    help="pg: initial preference of max_cards")
    ap.add_argument("--eval", type=int, default=400, help="held-out deals")
    ap.add_argument("--out", default="agent.npz")
    args = ap.parse_args(argv)

    W, b, idx, steps, minutes = (train_cem if args.learner == "cem" else train)(args)
    policy = linear(W, b, idx, SingleAgentEnv(args.rules).layout.size)
    policy.save(args.out)
    held_out = 10**9   # (deals no training episode saw)
    got = evaluate(policy, args.rules, args.eval, held_out)
    ref = evaluate(None, args.rules, args.eval, held_out, expert=True)
    half = 1.96 * got.std(ddof=1) / np.sqrt(len(got))
    print(f"trained: {steps:,} learner steps in {minutes:.1f} min ({args.workers} worker(s))")
    print(f"held-out {args.eval} deals vs three experts: win share {got.mean():.3f} "
          f"[{got.mean() - half:.3f}, {got.mean() + half:.3f}] (fair 0.250); the expert in "
          f"that seat {ref.mean():.3f}; saved {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Train a small linear policy on ``fastmach.env.SingleAgentEnv`` (numpy only, CPU, minutes).

    python examples/train_agent.py --rules "classic(match=single)" \
        --opponents beginner --episodes 500 --every 100 --eval 100

The policy is a softmax over the legal macro-actions (fastmach.env.moves) of
``theta . phi(obs, a)``, with ``phi`` the action's one-hot times a few numbers read from
the observation (the stock, the seat's hand size, the smallest other hand, the table's
size). It starts at theta = 0 (uniform over the legal macro-actions) and learns by
REINFORCE with a running-mean baseline on the match reward (the learner's win share).

Printed: the win share per block of ``--every`` training episodes (unit: per match, each
match a new deal), then the learned policy (greedy) and the untrained one (uniform) on the
same ``--eval`` held-out deals, with the paired difference and its 95% interval (the deal
is the unit: both policies play the same deals). The fair share is 1 / players.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from fastmach.env import N_ACTIONS, SingleAgentEnv

STATE = 5   # a constant, the stock, the own hand size, the smallest other hand, the table
FEATURES = N_ACTIONS * STATE


def features(env: SingleAgentEnv, obs: dict) -> np.ndarray:
    """phi(obs, a) for every macro-action a: an (N_ACTIONS, FEATURES) array, the action's
    one-hot times a few numbers read from the observation (each in [0, 1])."""
    v = env.layout.view(obs["observation"])
    state = np.array([1.0, v["stock"][0], v["hand_sizes"][0], v["hand_sizes"][1:].min(),
                      v["table"].sum() / 4])
    phi = np.zeros((N_ACTIONS, N_ACTIONS, STATE))
    phi[np.arange(N_ACTIONS), np.arange(N_ACTIONS)] = state
    return phi.reshape(N_ACTIONS, FEATURES)


def policy(theta: np.ndarray, phi: np.ndarray, mask: np.ndarray) -> np.ndarray:
    logits = np.where(mask > 0, phi @ theta, -np.inf)
    p = np.exp(logits - logits.max())
    return p / p.sum()


def episode(env, theta, rng, seed=None, greedy=False, learn=None):
    """Play one match; returns the learner's reward and its (phi, mask, action) steps."""
    obs, info = env.reset(seed=seed)
    total, steps, done = info["reward_before"], [], False
    while not done:
        phi = features(env, obs)
        p = policy(theta, phi, obs["action_mask"])
        a = int(np.argmax(p)) if greedy else int(rng.choice(N_ACTIONS, p=p))
        steps.append((phi, p, a))
        obs, r, term, trunc, _ = env.step(a)
        total += r
        done = term or trunc
    return total, steps


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rules", default="classic(match=single)")
    ap.add_argument("--opponents", default="beginner", help="strategy of every other seat")
    ap.add_argument("--episodes", type=int, default=500)
    ap.add_argument("--every", type=int, default=100, help="episodes per block of the curve")
    ap.add_argument("--eval", type=int, default=100, help="held-out deals for the evaluation")
    ap.add_argument("--lr", type=float, default=0.1)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)

    env = SingleAgentEnv(args.rules, opponents=args.opponents)
    P = env.rules.players
    rng = np.random.default_rng(args.seed)
    theta = np.zeros(FEATURES)
    baseline, block = 1.0 / P, []
    t0 = time.perf_counter()
    print(f"{env.rules} vs {args.opponents}: fair share {1 / P:.3f}")
    print("episodes  win share (block)  seconds")
    for ep in range(args.episodes):
        g, steps = episode(env, theta, rng, seed=args.seed if ep == 0 else None)
        adv = g - baseline
        baseline += 0.05 * (g - baseline)
        grad = sum(phi[a] - p @ phi for phi, p, a in steps)
        theta += args.lr * adv * grad
        block.append(g)
        if (ep + 1) % args.every == 0:
            print(f"{ep + 1:8d}  {np.mean(block):17.3f}  {time.perf_counter() - t0:7.0f}")
            block = []
    # held-out deals (another root seed), each played by the learned and the untrained policy
    held = 10**6 + args.seed
    learned, untrained = [], []
    for i in range(args.eval):
        for th, out, greedy in ((theta, learned, True), (np.zeros(FEATURES), untrained, False)):
            out.append(episode(env, th, rng, seed=held + i, greedy=greedy)[0])
    d = np.array(learned) - np.array(untrained)
    half = 1.96 * d.std(ddof=1) / np.sqrt(len(d)) if len(d) > 1 else float("nan")
    print(f"held-out {args.eval} deals: learned {np.mean(learned):.3f}, untrained "
          f"{np.mean(untrained):.3f}, difference {d.mean():+.3f} +- {half:.3f} (95%, per "
          f"deal); fair share {1 / P:.3f}")
    names = [f"a{k}" for k in range(N_ACTIONS)] + ["cards", "points", "jokers", "taken",
                                                   "empties", "draw:stock", "draw:hand"]
    print("theta: " + ", ".join(f"{n} {x:+.2f}" for n, x in zip(names, theta)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

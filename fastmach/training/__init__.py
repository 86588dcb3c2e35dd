"""Good play found per rule set by the toolkit: training by self-play and exploitability.

- :mod:`~fastmach.training.space`: the policy space, strong's parameters that matter under
  the rules in play, as a grid.
- :mod:`~fastmach.training.payoffs`: line-ups played on common deals, each seat's share of
  the rule set's own win.
- :mod:`~fastmach.training.oracle`: best responses raced against a mixture, and a
  strategy's gain over it on fresh deals.
- :mod:`~fastmach.training.meta`: the symmetric meta-game, its equilibrium and alpha-rank.
- :mod:`~fastmach.training.train`: the training loop (PSRO), stored and resumable.
- :mod:`~fastmach.training.exploit`: a strategy's exploitability.
- :mod:`~fastmach.training.command`: ``fastmach train`` and ``fastmach exploit``.
"""
from fastmach.training.exploit import exploit
from fastmach.training.train import TrainConfig, Training, train

__all__ = ["exploit", "train", "TrainConfig", "Training"]

"""A PettingZoo loop over the aggregation experiment: every E-Puck2 is an agent, here driven by a
random policy (a MARL library's policy takes its place: it reads ``observations[agent]`` and
returns ``actions[agent]``).

    .venv/bin/python examples/learning/random_parallel.py --episodes 1
"""

import argparse
from pathlib import Path

from swarmstack import learn

HERE = Path(__file__).resolve().parent


def main(episodes: int = 1, seed: int = 0) -> list[float]:
    env = learn.parallel_env(HERE / "aggregation.toml", reward="aggregation",
                             commands=["wheels"], flat=True)
    returns = []
    for episode in range(episodes):
        observations, infos = env.reset(seed=seed + episode)
        for agent in env.possible_agents:
            env.action_space(agent).seed(seed + episode)
        total = 0.0
        while env.agents:
            actions = {agent: env.action_space(agent).sample() for agent in env.agents}
            observations, rewards, terminations, truncations, infos = env.step(actions)
            total += rewards[env.possible_agents[0]]   # the run's reward, shared by its agents
        returns.append(total)
        print(f"episode {episode}: return {total:.3f} (robot-ticks on black / robots)")
    return returns


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    main(args.episodes, args.seed)

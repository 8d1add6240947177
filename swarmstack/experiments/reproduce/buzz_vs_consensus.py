"""buzz-vs-consensus: consensus time of virtual stigmergy (BittyBuzz thesis §4.6.2, Fig. 4.7).

Ten robots, one writer (robot 0) putting a value, nine readers calling ``get`` every step
(``examples/buzz/vstig_consensus.bzz``), no packet loss, two configurations as in the thesis:
a *chain* with the writer at one end and a *circle* with every reader at the same distance from
the writer, all in radio range. The thesis measured 17-87 ms at a 50 ms step: every reader has
the value one or two steps after the put. On a chain the value travels one hop per step, so a
reader h hops away has it within h steps. Twenty tests alternate the two configurations, with
the put at a different step each time.
"""

from __future__ import annotations

from pathlib import Path

from swarmstack.experiments.reproduce import (Reproduction, Row, pyplot, save_plot,
                                             validation)

ROBOTS = 10
TESTS = 20
STEP_MS = 50


def examples_dir() -> Path:
    return Path(__file__).resolve().parents[3] / "examples" / "buzz"


def consensus_run(topology: str, put_step: int, robots: int = ROBOTS, seed: int = 0) -> tuple[list[int], list[int]]:
    """(delay in steps from the put to each reader's first read, hop count of each reader)."""
    from swarmstack.buzz.swarm import Harness, make_topology

    src = (examples_dir() / "vstig_consensus.bzz").read_text()
    topo = make_topology(topology, robots, seed=seed)
    hops = topo.hops_from(0)
    h = Harness(src, robots, filename="vstig_consensus.bzz", topology=topo, seed=seed,
                params={"WRITER": 0, "PUT_STEP": put_step}).load()
    for _ in range(put_step + 3 * robots):
        h.step()
        if all(h.get_global(i, "seen_at") not in (None, -1) for i in range(robots)):
            break
    if any(r.failed for r in h.results):
        bad = [r for r in h.results if r.failed][0]
        raise RuntimeError(f"robot {bad.id} failed: {bad.error}")
    delays = []
    for i in range(1, robots):
        s = h.get_global(i, "seen_at")
        delays.append(s - put_step if s not in (None, -1) else -1)
    return delays, [hops[i] for i in range(1, robots)]


@validation("buzz-vs-consensus")
def reproduce(out_dir: Path, quick: bool = False) -> Reproduction:
    tests = 4 if quick else TESTS
    circle: list[int] = []
    chain: list[tuple[int, int]] = []  # (hops, delay)
    for t in range(tests):
        put_step = 2 + t // 2
        if t % 2 == 0:
            d, _ = consensus_run("star", put_step, seed=t)
            circle += d
        else:
            d, hops = consensus_run("line", put_step, seed=t)
            chain += list(zip(hops, d))

    rows = []
    circ_ok = bool(circle) and all(1 <= d <= 2 for d in circle)
    rows.append(Row("circle: steps from put to read (every reader)", "1-2 steps (17-87 ms at 50 ms)",
                    f"{min(circle)}-{max(circle)} steps ({min(circle) * STEP_MS}-{max(circle) * STEP_MS} ms), "
                    f"mean {sum(circle) / len(circle):.2f}", circ_ok))
    chain_ok = bool(chain) and all(0 < d <= h for h, d in chain)
    worst = max(d - h for h, d in chain)
    rows.append(Row("chain: steps from put to read <= hop count", "one hop per step",
                    f"max(delay - hops) = {worst}; farthest reader {max(h for h, _ in chain)} hops, "
                    f"{max(d for _, d in chain)} steps", chain_ok))
    rows.append(Row("every reader reached consensus", "all", f"{sum(d > 0 for d in circle) + sum(d > 0 for _, d in chain)}"
                    f"/{len(circle) + len(chain)}", all(d > 0 for d in circle) and all(d > 0 for _, d in chain)))

    files = []
    plt = pyplot()

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
    ax1.hist([d * STEP_MS for d in circle], bins=range(0, 4 * STEP_MS, STEP_MS // 2), color="tab:blue")
    ax1.set_xlabel(f"time from put to read (ms, {STEP_MS} ms steps)")
    ax1.set_ylabel("readers")
    ax1.set_title("Circle: consensus time")
    hs = sorted({h for h, _ in chain})
    ax2.plot(hs, hs, "k--", label="hop count")
    ax2.scatter([h for h, _ in chain], [d for _, d in chain], label="measured", zorder=3)
    ax2.set_xlabel("hops from the writer")
    ax2.set_ylabel("steps from put to read")
    ax2.set_title("Chain: one hop per step")
    ax2.legend()
    path = save_plot(fig, out_dir / "buzz_vs_consensus.png")
    files.append(path)

    return Reproduction(
        name="buzz-vs-consensus",
        title="virtual-stigmergy consensus, 10 robots, one writer, chain and circle",
        rows=rows,
        files=files,
        notes=f"{tests} tests alternating circle/chain, no packet loss; step period taken as {STEP_MS} ms.",
    )

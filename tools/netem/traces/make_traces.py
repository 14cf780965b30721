#!/usr/bin/env python3
"""Writes the link traces shipped in tools/netem/traces (Mahimahi's format: one line per
1500-byte delivery opportunity, a millisecond timestamp; the trace repeats with the period of
its last timestamp). Deterministic: the same files every run.

  constant-12mbps.trace     one opportunity every millisecond: 12 Mbit/s, no variation.
  cellular-variable.trace   60 s of a cellular-like downlink: the rate follows a Markov chain
                            over five levels (0.5, 2, 5, 10, 20 Mbit/s, mean dwell 500 ms,
                            moving one level at a time, as a mobile link's scheduler does
                            with changing signal), with two 300 ms outages (no opportunity
                            at all) at 17 s and 41 s; opportunities within a millisecond are
                            Poisson around the level's mean.
  bursty-aggregated.trace   12 Mbit/s on average, delivered in bursts: 8 opportunities every
                            8 ms (as Wi-Fi frame aggregation or a cable modem's grants do).

Run: python3 tools/netem/traces/make_traces.py (from the repository root).
"""

import math
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))


def write(name, times, header):
    with open(os.path.join(HERE, name), "w") as f:
        for line in header.strip().splitlines():
            f.write("# " + line + "\n")
        for t in times:
            f.write("%d\n" % t)


def constant():
    return list(range(1, 1001))


def poisson(rng, lam):
    # Knuth's method: fine for the small means here.
    l, k, p = math.exp(-lam), 0, 1.0
    while True:
        p *= rng.random()
        if p <= l:
            return k
        k += 1


def cellular():
    rng = random.Random(20261127)
    levels_mbps = [0.5, 2, 5, 10, 20]
    level = 3
    times = []
    dwell_left = 0
    for ms in range(1, 60001):
        if dwell_left <= 0:
            level = max(0, min(len(levels_mbps) - 1, level + rng.choice((-1, 1))))
            dwell_left = int(rng.expovariate(1 / 500.0)) + 1
        dwell_left -= 1
        if 17000 <= ms < 17300 or 41000 <= ms < 41300:
            continue
        per_ms = levels_mbps[level] * 1e6 / 8 / 1500 / 1000
        times += [ms] * poisson(rng, per_ms)
    if times[-1] != 60000:
        times.append(60000)  # the period: the trace is 60 s long
    return times


def bursty():
    times = []
    for burst in range(1, 126):
        times += [burst * 8] * 8
    return times


def main():
    write("constant-12mbps.trace", constant(),
          "12 Mbit/s constant: one 1500-byte opportunity per ms (tools/netem/traces/make_traces.py)")
    write("cellular-variable.trace", cellular(),
          "cellular-like, 60 s, 0.5-20 Mbit/s with two 300 ms outages "
          "(tools/netem/traces/make_traces.py)")
    write("bursty-aggregated.trace", bursty(),
          "12 Mbit/s mean in bursts of 8 opportunities every 8 ms "
          "(tools/netem/traces/make_traces.py)")


if __name__ == "__main__":
    main()

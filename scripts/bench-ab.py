#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench-ab.py - run time of the series against the base, A B A B.

Builds the base and the series with a runtime config and every debug
option off (the 'bench' variant of scripts/boot-test.py), then boots
them alternately, --pairs times each, under the same QEMU settings, and
runs rtinit's microbenchmarks: fork+exit, mmap/touch/munmap of 2 MiB,
page-fault throughput and zram write/read throughput.  For each pair
the series/base ratio of every benchmark (higher is better for all of
them) is taken; the report gives min/median/max of the ratios and says
whether the median meets --goal (default 0.99).

Results: RESULTS/bench/bench.md, bench.json, and each boot's console.
This is a measurement, not a test: it exits 0 unless a boot failed.
"""

import argparse
import importlib.util
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kbuild import BUILD, RESULTS, TOP, Config, ccache_env, die, log  # noqa: E402

spec = importlib.util.spec_from_file_location(
    "boot_test", os.path.join(os.path.dirname(os.path.abspath(__file__)), "boot-test.py"))
bt = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bt)

OUT = os.path.join(RESULTS, "bench")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 epilog=__doc__.split("\n", 2)[2],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--config", default="x86_64", help="runtime config (default: %(default)s)")
    ap.add_argument("--pairs", type=int, default=5, help="A/B pairs (default: %(default)s)")
    ap.add_argument("--goal", type=float, default=0.99)
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 2)
    args = ap.parse_args()

    env = ccache_env()
    os.makedirs(OUT, exist_ok=True)
    path = os.path.join(bt.RUNTIME, args.config + ".config")
    name = args.config + "+bench"
    kernels = {}
    for tree in ("base", "series"):
        commit = bt.tree_commit(tree)
        builddir = os.path.join(BUILD, "runtime", f"{name}-{tree}")
        cfg = Config(path, "bench", bt.VARIANTS["bench"], builddir=builddir)
        log(f"{name} {tree}: building at {commit[:12]}")
        image, err = bt.build_kernel(cfg, tree, commit, args.jobs, env,
                                     os.path.join(OUT, f"{tree}.build.log"))
        if err:
            die(f"{tree}: {err}")
        cpio, err, _ = bt.build_initramfs(cfg, os.path.join(builddir, "initramfs"), [])
        if err:
            die(f"{tree}: {err}")
        kernels[tree] = (cfg, image, cpio, commit)

    runs = {"base": [], "series": []}
    for i in range(args.pairs):
        for tree in ("base", "series"):
            cfg, image, cpio, _ = kernels[tree]
            logf = os.path.join(OUT, f"{tree}-{i + 1}.log")
            secs, status = bt.boot(cfg, image, cpio, "bench", 600, logf, "")
            res = bt.evaluate(logf, status)
            if res["verdict"] != "PASS" or not res["bench"]:
                die(f"{tree} boot {i + 1}: {res['first_failure'] or 'no benchmark output'}")
            runs[tree].append({k: v[0] for k, v in res["bench"].items()})
            log(f"pair {i + 1} {tree}: " +
                ", ".join(f"{k} {v:.1f}" for k, v in runs[tree][-1].items()))

    report = {"date": time.strftime("%Y-%m-%d"), "config": name,
              "base": kernels["base"][3], "series": kernels["series"][3],
              "pairs": args.pairs, "runs": runs, "ratios": {}}
    md = [f"# Run time: series / base, {name}, {args.pairs} A/B pairs", "",
          f"Base {kernels['base'][3][:12]}, series {kernels['series'][3][:12]}, "
          f"{report['date']}.", "",
          "| benchmark | base median | series median | ratio min | median | max | goal |",
          "|---|---|---|---|---|---|---|"]
    for k in runs["base"][0]:
        ratios = [s[k] / b[k] for b, s in zip(runs["base"], runs["series"])]
        med = statistics.median(ratios)
        report["ratios"][k] = {"min": min(ratios), "median": med, "max": max(ratios)}
        met = "met" if med >= args.goal else f"missed by {args.goal - med:.3f}"
        md.append(f"| {k} | {statistics.median(b[k] for b in runs['base']):.1f} | "
                  f"{statistics.median(s[k] for s in runs['series']):.1f} | "
                  f"{min(ratios):.3f} | {med:.3f} | {max(ratios):.3f} | {met} |")
        print(f"bench {k}: series/base min {min(ratios):.3f} median {med:.3f} "
              f"max {max(ratios):.3f} ({met})", flush=True)
    with open(os.path.join(OUT, "bench.json"), "w") as f:
        json.dump(report, f, indent=1)
    with open(os.path.join(OUT, "bench.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    log(f"report: {os.path.relpath(os.path.join(OUT, 'bench.md'), TOP)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

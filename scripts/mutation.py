"""Mutation testing of napari_mood/core (mutmut 3, configured in pyproject [tool.mutmut]).

    python scripts/mutation.py                    # every module of core, then the kill-rate table
    python scripts/mutation.py metrics objects    # only these modules (names under napari_mood/core)
    python scripts/mutation.py --sample 40        # 40 random mutants per module (an estimate)
    python scripts/mutation.py --report           # only print the table of the last run
    python scripts/mutation.py --survivors        # ... and the diff of every surviving mutant
    python scripts/mutation.py --rerun            # run the survivors, untested and new mutants again

The table has one row per module file (and one per package): the mutants mutmut made in it,
how many were run, killed, survived or reached by no test, the kill rate over the mutants run,
and whether the row is a full run (every mutant run) or a sample.

mutmut copies the package and tests/ into mutants/ (git-ignored), mutates one function at a
time and runs, per mutant, only the tests under tests/core that reach that function. A mutant
that no test kills is a rule the tests do not pin: add a test against an independent value
(hand-worked, sklearn, scipy, pycocotools, tests/reference_scorer.py) or explain why the
mutant is equivalent. The whole core makes about 11,600 mutants; with ``--jobs 2`` on two idle
cores mutmut runs 1 - 2.5 a second (objects/, 3,276 mutants, in about 25 minutes), far fewer on a
shared machine: run one package at a time, niced, e.g.
``nice -n 15 python scripts/mutation.py objects --jobs 2``, or estimate every kill rate on a seeded
random sample with ``--sample``. After a change to ``[tool.mutmut]`` wipe ``mutants/`` first.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORE = ROOT / "napari_mood" / "core"
# every module and package of the core, e.g. "metrics", "_checks", "objects", "simulate"
MODULES = tuple(
    sorted(
        path.stem if path.is_file() else path.name
        for path in CORE.iterdir()
        if (path.suffix == ".py" and path.name != "__init__.py") or (path / "__init__.py").is_file()
    )
)
KILLED = {1, 3, 24, -24, 152, 255, 36, 37}  # a failing test, a timeout or the type checker
SURVIVED = {0}
NO_TESTS = {5, 33}


def main(argv: list[str] | None = None) -> int:
    """Run mutmut on the chosen modules and print the kill rate per module."""
    args = _parse(argv)
    os.chdir(ROOT)
    if not args.report and not args.survivors:
        patterns = [f"napari_mood.core.{name}.*" for name in args.modules]
        if args.rerun:
            patterns = _not_killed(Path("mutants"), patterns)
            if not patterns:
                print("no survivor to run again")
                return 0
        elif args.sample:
            patterns = _sample(patterns, args.sample, args.seed, args.jobs)
        command = ["mutmut", "run", "--max-children", str(args.jobs), *patterns]
        completed = subprocess.run(command, check=False)
        if completed.returncode != 0:
            return completed.returncode
    rows = _count_by_module(Path("mutants"))
    if not rows:
        print("no mutmut results under mutants/: run the script without --report first")
        return 1
    print(_table(rows))
    if args.survivors:
        for name in _survivor_names(Path("mutants")):
            subprocess.run(["mutmut", "show", name], check=False)
    return 0


def _parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Mutation testing of napari_mood/core's rule modules (mutmut).",
        epilog="example: nice -n 15 python scripts/mutation.py --sample 30 --seed 0",
    )
    parser.add_argument(
        "modules",
        nargs="*",
        default=list(MODULES),
        help="module or package names under napari_mood/core (default: all of them)",
    )
    parser.add_argument("--jobs", type=int, default=1, help="parallel mutant runs (default: 1)")
    parser.add_argument(
        "--sample", type=int, default=0, help="run N random mutants of each file (default: all)"
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of --sample (default: 0)")
    parser.add_argument(
        "--rerun",
        action="store_true",
        help="run again the mutants of the chosen modules that survived, reached no test or were "
        "never run (made again after a source change)",
    )
    parser.add_argument("--report", action="store_true", help="only print the last run's table")
    parser.add_argument(
        "--survivors", action="store_true", help="print the table and every survivor's diff"
    )
    return parser.parse_args(argv)


def _sample(patterns: list[str], size: int, seed: int, jobs: int) -> list[str]:
    """``size`` random mutant names of each module file matching a pattern (made on a first run)."""
    if not _results(Path("mutants")):
        # a pattern that matches nothing: mutmut makes the mutants and the test map, then stops
        print("making the mutants and the map of which tests reach which function ...")
        command = ["mutmut", "run", "--max-children", str(jobs), "napari_mood.core.-none-"]
        subprocess.run(command, check=False, capture_output=True)
    names = sorted(_results(Path("mutants")))
    rng = random.Random(seed)
    chosen: list[str] = []
    for pattern in patterns:
        prefix = pattern.removesuffix("*")
        by_file: dict[str, list[str]] = {}
        for name in names:
            if name.startswith(prefix):
                by_file.setdefault(_module_of(name), []).append(name)
        for _, matching in sorted(by_file.items()):
            chosen += rng.sample(matching, min(size, len(matching)))
    return chosen


def _results(mutants: Path) -> dict[str, int | None]:
    """Exit code of every mutant of the last runs, keyed by mutant name."""
    codes: dict[str, int | None] = {}
    for meta in sorted(mutants.rglob("*.py.meta")):
        codes.update(json.loads(meta.read_text())["exit_code_by_key"])
    return codes


def _module_of(mutant: str) -> str:
    """``napari_mood.core.objects.match.x_f__mutmut_3`` -> ``objects/match``."""
    parts = mutant.split(".")[2:-1]
    return "/".join(parts)


def _count_by_module(mutants: Path) -> dict[str, Counter[str]]:
    rows: dict[str, Counter[str]] = {}
    for name, code in _results(mutants).items():
        row = rows.setdefault(_module_of(name), Counter())
        if code is None:
            row["not run"] += 1
        elif code in KILLED:
            row["killed"] += 1
        elif code in SURVIVED:
            row["survived"] += 1
        elif code in NO_TESTS:
            row["no tests"] += 1
        else:
            row["other"] += 1
    return rows


def _table(rows: dict[str, Counter[str]]) -> str:
    """One line per module file and per package; the rate counts the mutants that were run."""
    groups: dict[str, Counter[str]] = {}
    for module, row in rows.items():
        if "/" in module:
            groups.setdefault(module.split("/")[0] + "/ (all)", Counter()).update(row)
    header = (
        f"{'module':<26}{'mutants':>8}{'run':>6}{'killed':>8}{'survived':>9}{'no tests':>9}"
        f"{'kill rate':>10}  coverage"
    )
    lines = [header]
    total: Counter[str] = Counter()
    for module, row in sorted({**rows, **groups}.items()):
        if not module.endswith("(all)"):
            total.update(row)
        lines.append(_row(module, row))
    lines.append(_row("core (all)", total))
    return "\n".join(lines)


def _row(module: str, row: Counter[str]) -> str:
    """``module  mutants  run  killed  survived  no tests  rate  full run|sample|not run``."""
    run = row["killed"] + row["survived"] + row["no tests"] + row["other"]
    rate = f"{100 * row['killed'] / run:.1f}%" if run else "-"
    coverage = "not run" if run == 0 else "full run" if row["not run"] == 0 else "sample"
    return (
        f"{module:<26}{sum(row.values()):>8}{run:>6}{row['killed']:>8}{row['survived']:>9}"
        f"{row['no tests']:>9}{rate:>10}  {coverage}"
    )


def _not_killed(mutants: Path, patterns: list[str]) -> list[str]:
    """The mutants matching ``patterns`` that survived, reached no test or were never run.

    A mutant is never run when a change to its function made mutmut generate it again.
    """
    prefixes = [pattern.removesuffix("*") for pattern in patterns]
    return sorted(
        name
        for name, code in _results(mutants).items()
        if (code is None or code in SURVIVED or code in NO_TESTS)
        and name.startswith(tuple(prefixes))
    )


def _survivor_names(mutants: Path) -> list[str]:
    return sorted(name for name, code in _results(mutants).items() if code in SURVIVED)


if __name__ == "__main__":
    sys.exit(main())

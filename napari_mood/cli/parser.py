"""The ``napari-mood`` argument parser: a table of subcommands, each built when used.

``napari-mood --help`` lists the subcommands from :data:`COMMANDS` alone: no subcommand
module is imported (they pull numpy, scipy, nibabel, matplotlib). A subcommand's options
are added when it is parsed or its help is shown (:class:`CommandParser`), and its module
is imported only when it runs (:class:`Lazy`). The words every subcommand shares are
described in :mod:`napari_mood.cli._args` and ``docs/cli-vocabulary.md``.
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from napari_mood._version import __version__

__all__ = ["COMMANDS", "Command", "CommandParser", "Lazy", "build_parser"]


class Lazy:
    """``"module:function"`` imported when called: a subcommand's code loads when it runs."""

    __slots__ = ("target",)

    def __init__(self, target: str) -> None:
        self.target = target

    def __repr__(self) -> str:
        """Show the target, not the function (nothing is imported)."""
        return f"Lazy({self.target!r})"

    def resolve(self) -> Callable[..., Any]:
        """Return the function itself (its module imported now)."""
        module, _, name = self.target.partition(":")
        return getattr(importlib.import_module(module), name)  # type: ignore[no-any-return]

    def __call__(self, *args: Any) -> Any:
        """Call the function, importing its module first."""
        return self.resolve()(*args)


class Command(NamedTuple):
    """Description of one subcommand.

    One subcommand: its name, one-line help, the function adding its options
    (``module:function``, called with the subcommand's parser) and a short example.
    """

    name: str
    help: str
    build: str
    example: str


_MOOD = "napari_mood.cli.parser_mood"
_RECON = "napari_mood.cli.parser_recon"
_ANALYSES = "napari_mood.cli.parser_analyses"

COMMANDS: tuple[Command, ...] = (
    Command(
        "demo", "open napari with the bundled sample case", f"{_MOOD}:add_demo",
        "napari-mood demo\n  xvfb-run -a napari-mood demo --screenshot demo.png",
    ),
    Command(
        "view", "open files, a case or a dataset in napari", f"{_MOOD}:add_view",
        "napari-mood view data/ --pred mine=runs/residual",
    ),
    Command(
        "evaluate", "score methods on a MOOD-layout dataset like the official scorer",
        f"{_MOOD}:add_evaluate",
        "napari-mood evaluate data/ --preds runs/ --format json --out results.json\n"
        "  napari-mood evaluate data/ --batches 10 --bootstrap 1000 --report report/",
    ),
    Command(
        "validate", "check a dataset and its methods without scoring", f"{_MOOD}:add_validate",
        "napari-mood validate data/ --preds runs/ --format json",
    ),
    Command(
        "simulate", "write a MOOD-layout dataset with toy anomalies", f"{_RECON}:add_simulate",
        "napari-mood simulate normal.nii.gz --out toy/ --count 5 --normal 2\n"
        "  napari-mood simulate pet/scans/*.nii.gz --kind pet --mask pet/atlas.nii.gz "
        "--atlas-labels 3,4 --out pet_toy/",
    ),
    Command(
        "evaluate-recon",
        "judge reconstructions against healthy originals (MSE, MAE, PSNR, SSIM, t-tests)",
        f"{_RECON}:add_evaluate_recon",
        "napari-mood evaluate-recon pet_toy/ --recon recon/ --plot mse.png "
        "--save-maps recon_maps/",
    ),
    Command(
        "pet-sample", "write simulated PET-like scans, template and atlas",
        f"{_RECON}:add_pet_sample",
        "napari-mood pet-sample --out pet/ --subjects 3 --step 2",
    ),
    Command(
        "reconstruct", "toy reconstruction: the template scaled to each input",
        f"{_RECON}:add_reconstruct",
        "napari-mood reconstruct pet_toy/ --template pet/template.nii.gz --out recon/",
    ),
    Command(
        "figure", "draw slices x (scan, ground truth, methods) as a PNG, SVG or PDF figure",
        f"{_MOOD}:add_figure",
        "napari-mood figure data/ --cases brain_001,brain_003 --threshold 0.5 --out fig.pdf",
    ),
    Command(
        "evaluate-boxes", "score predicted boxes on a NOVA-style 2-D box dataset",
        "napari_mood.cli.parser_boxes:add_evaluate_boxes",
        "napari-mood evaluate-boxes nova/ --pred mine=nova/predictions/oracle_noisy.json "
        "--plot boxes.png",
    ),
    Command(
        "run",
        "run a method the MOOD docker way (CMD INPUT OUTPUT), case by case, with a time limit",
        f"{_ANALYSES}:add_run",
        "napari-mood run 'python mymethod.py' data/toy --out runs/mine/pixel\n"
        "  napari-mood run 'python mymethod.py' sweep/toy --out sweep_runs/mine --workdir .",
    ),
    Command(
        "sweep", "write a size or contrast sweep: one sphere at a fixed place, one case per value",
        f"{_ANALYSES}:add_sweep",
        "napari-mood sweep size normal.nii.gz --out sweep/ --radii 0:40:5",
    ),
    Command(
        "sweep-report", "AP against radius / intensity per method (CSV + plot)",
        f"{_ANALYSES}:add_sweep_report",
        "napari-mood sweep-report sweep/ --preds sweep_runs/ --out sweep_report/ --plot-formats png",
    ),
    Command(
        "rank",
        "rank methods per dataset and task (batch-mean AP), consensus, bootstrap, "
        "toy-vs-test tau",
        f"{_ANALYSES}:add_rank",
        "napari-mood rank brain=brain.json abdom=abdom.json --bootstrap 1000 --out ranks/",
    ),
    Command(
        "categories",
        "pixel / sample AP and FPR@95 per anomaly category and sub-category, with baselines",
        f"{_ANALYSES}:add_categories",
        "napari-mood categories data/ --preds runs/ --out categories/",
    ),
    Command(
        "review-report",
        "reader study: verdicts, precision, agreement (kappa), time, disagreements",
        "napari_mood.cli.parser_review:add_review_report",
        "napari-mood review-report data/reviews/ana.csv data/reviews/ben.csv --out study "
        "--plot study/precision.png",
    ),
)  # fmt: skip


class CommandParser(argparse.ArgumentParser):
    """A subcommand's parser whose options are added on first use (parsing or help).

    Options that replace a deprecated spelling may be required (``--out``): argparse
    would not count the old spelling as giving them, so they are declared with
    :meth:`require_option` and checked here after parsing.
    """

    def __init__(self, *args: Any, build: str | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._build = build
        self._required_options: list[argparse.Action] = []

    def ensure_built(self) -> CommandParser:
        """Add the options now (once); returns the parser."""
        build, self._build = self._build, None
        if build is not None:
            Lazy(build).resolve()(self)
        return self

    def require_option(self, action: argparse.Action) -> None:
        """Make ``action`` required, given by its name or by a deprecated alias."""
        action.required = False
        self._required_options.append(action)

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        """Parse ``args`` after adding the options, checking the required ones.

        An option registered with :meth:`require_option` counts as given when it or one
        of its deprecated aliases is.
        """
        self.ensure_built()
        parsed, rest = super().parse_known_args(args, namespace)
        missing = [a for a in self._required_options if getattr(parsed, a.dest, None) is None]
        if missing:
            names = ", ".join(
                a.option_strings[0] if a.option_strings else str(a.metavar or a.dest)
                for a in missing
            )
            self.error(f"the following arguments are required: {names}")
        from napari_mood.cli._args import print_deprecation_notes  # loaded by ensure_built

        print_deprecation_notes(parsed)
        return parsed, rest

    def format_help(self) -> str:
        """Help text of the parser, its options added first."""
        return self.ensure_built()._format_help()

    def format_usage(self) -> str:
        """Usage line of the parser, its options added first."""
        return self.ensure_built()._format_usage()

    def _format_help(self) -> str:
        return super().format_help()

    def _format_usage(self) -> str:
        return super().format_usage()


def build_parser(*, complete: bool = False) -> argparse.ArgumentParser:
    """Return the argument parser of the ``napari-mood`` command.

    Subcommands get their options when used; ``complete=True`` adds them all now (for
    documentation generated from the parser and tests that walk every option).
    """
    parser = argparse.ArgumentParser(
        prog="napari-mood",
        description="See, score and compare MOOD anomaly-detection outputs.",
        epilog="example:\n  napari-mood demo\n  napari-mood evaluate data/ --preds runs/\n"
        "run 'napari-mood COMMAND --help' for the options of a command\n",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"napari-mood {__version__}")
    sub = parser.add_subparsers(
        dest="command", required=True, metavar="COMMAND", parser_class=CommandParser
    )
    for command in COMMANDS:
        p = sub.add_parser(
            command.name,
            help=command.help,
            description=command.help[:1].upper() + command.help[1:] + ".",
            epilog=f"example:\n  {command.example}",
            formatter_class=argparse.RawDescriptionHelpFormatter,
            build=command.build,
        )
        if complete:
            p.ensure_built()
    return parser

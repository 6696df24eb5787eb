"""Value types and shared options of the ``napari-mood`` parser: one vocabulary.

Every subcommand says the same thing with the same word (``docs/cli-vocabulary.md``):

- inputs are positional; ``--out`` is the main output (a file or a folder);
- ``--format table|csv|json`` wherever a result is printed (:func:`add_format`);
- ``--plot FILE`` for a figure (:func:`add_plot`), ``--plot-formats png,svg,pdf`` for the
  figures of a report folder, ``--dpi`` wherever a figure is written (:func:`add_dpi`);
- ``--force`` replaces existing outputs, never an input (:func:`add_force`);
- ``--quiet``: no progress bar and no warnings (:func:`add_quiet`); ``--verbose``: more;
- ``--seed`` defaults to :data:`DEFAULT_SEED` everywhere (:func:`add_seed`);
- ``--threshold`` binarises scores (one value, or ``NAME=T,...`` per method).

An old spelling stays for one release as a hidden alias (:func:`deprecated_alias`): it
works, is left out of ``--help``, and prints one ``napari-mood: note:`` line (none with
``--quiet``).
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, cast

from napari_mood.services.options import (
    DEFAULT_SEED,
    PLANES,
    WORKERS_PER_CORE,
    check_threshold,
    usable_cores,
)
from napari_mood.services.paper import parse_width


def _pred_pair(text: str) -> tuple[str, Path]:
    """``NAME=DIR``, or a bare ``DIR`` named after its folder."""
    name, sep, folder = text.partition("=")
    if not sep:
        path = Path(text)
        name = path.name or path.resolve().name
        return name, path
    if not name or not folder:
        raise argparse.ArgumentTypeError(f"expected NAME=DIR or DIR, got {text!r}")
    return name, Path(folder)


class _AppendPred(argparse.Action):
    """``--pred`` repeated: each NAME once (a second one would silently replace the first)."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: object,
        option_string: str | None = None,
    ) -> None:
        pairs = list(getattr(namespace, self.dest, None) or [])
        name, folder = cast(tuple[str, Path], values)  # from _pred_pair
        for known, other in pairs:
            if known == name:
                raise argparse.ArgumentError(
                    self, f"method name {name!r} given twice ({other} and {folder}): rename one"
                )
        setattr(namespace, self.dest, [*pairs, (name, folder)])


def _output(text: str) -> Path:
    """Return an output path: not empty (an empty path would mean the current folder)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("must not be empty: give a path")
    return Path(text)


SCREENSHOT_SUFFIXES = (".png",)


def _screenshot(text: str) -> Path:
    """Return a window screenshot: a PNG file path (napari writes the format its name says)."""
    path = _output(text)
    if path.suffix.lower() not in SCREENSHOT_SUFFIXES:
        raise argparse.ArgumentTypeError(f"must be a .png file, got {text!r}")
    return path


MAX_BATCHES = 100_000
MAX_DPI = 2400.0
MIN_DPI = 10.0
"""Below, a figure is a handful of pixels (at 0.01 dpi, none: nothing can be written)."""


def _size_window(text: str) -> tuple[float, float]:
    parts = text.split(",")
    try:
        lo, hi = (float(p) for p in parts)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"expected LO,HI (two numbers), got {text!r}") from exc
    if not 0 <= lo <= hi:
        raise argparse.ArgumentTypeError(f"need 0 <= LO <= HI, got {text!r}")
    return lo, hi


def _threshold(text: str) -> float | str:
    if text == "auto":
        return text
    try:
        return check_threshold(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{exc} (or 'auto')") from exc


def _integer(text: str, *, minimum: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < minimum:
        raise argparse.ArgumentTypeError(f"must be {minimum} or more, got {value}")
    return value


def _count(text: str) -> int:
    """Return a whole number >= 0."""
    return _integer(text, minimum=0)


def _positive(text: str) -> int:
    """Return a whole number >= 1."""
    return _integer(text, minimum=1)


def _batches(text: str) -> int:
    """Return a number of batches: 0 .. MAX_BATCHES (each costs an AP over a batch of cases)."""
    value = _integer(text, minimum=0)
    if value > MAX_BATCHES:
        raise argparse.ArgumentTypeError(
            f"must be at most {MAX_BATCHES:,}, got {value:,} (the mean AP does not change "
            "beyond that, and each batch costs an AP)"
        )
    return value


def _dpi(text: str) -> float:
    """Return a resolution: MIN_DPI .. MAX_DPI (beyond it one figure needs gigabytes)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not (math.isfinite(value) and MIN_DPI <= value <= MAX_DPI):
        raise argparse.ArgumentTypeError(
            f"must be a positive number, at least {MIN_DPI:g} and at most {MAX_DPI:g} "
            f"(beyond, one figure needs gigabytes), got {text!r}"
        )
    return value


def _width(text: str) -> float:
    """Return a figure width in mm: a journal preset or a length with a unit."""
    try:
        return parse_width(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _planes(text: str) -> tuple[str, ...]:
    """``axial,coronal`` -> the planes of each case, in row order."""
    planes = tuple(p.strip().lower() for p in text.split(",") if p.strip())
    unknown = [p for p in planes if p not in PLANES]
    if unknown or not planes or len(set(planes)) != len(planes):
        raise argparse.ArgumentTypeError(
            f"expected distinct planes among {','.join(PLANES)}, got {text!r}"
        )
    return planes


def _name_part(text: str) -> str:
    if not text or any(sep in text for sep in "/\\") or text in (".", ".."):
        raise argparse.ArgumentTypeError(f"must be a plain file-name part, got {text!r}")
    return text


def _tasks(text: str) -> tuple[str, ...]:
    tasks = tuple(t.strip() for t in text.split(",") if t.strip())
    bad = [t for t in tasks if t not in ("pixel", "sample", "object")]
    if bad or not tasks:
        raise argparse.ArgumentTypeError(
            f"tasks are pixel, sample, object (comma separated), got {text!r}"
        )
    return tasks


def _add_method_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "dataset", type=Path, metavar="DATASET", help="folder holding toy/ and toy_label/"
    )
    parser.add_argument(
        "--preds",
        type=Path,
        metavar="DIR",
        help="folder whose subfolders are methods (default: DATASET/methods)",
    )
    parser.add_argument(
        "--pred",
        type=_pred_pair,
        action=_AppendPred,
        default=[],
        metavar="[NAME=]DIR",
        help="one method folder (named NAME, or after the folder); repeat for several",
    )
    parser.add_argument(
        "--labels",
        type=Path,
        metavar="DIR",
        help="label folder (holding pixel/ and sample/) if elsewhere",
    )
    parser.add_argument(
        "--scans",
        type=_subfolder,
        metavar="NAME",
        help="name of the scans subfolder (default: toy)",
    )


# generated datasets: simulate, sweep, pet-sample (each count bounded, checked at parse time)

MAX_CASES = 1_000
"""``simulate --count`` / ``--normal``: each case is a whole scan written."""
MAX_PER_CASE = 100
"""``simulate --per-case``: anomalies are placed apart, so a scan holds few."""
MAX_SUBJECTS = 100
"""``pet-sample --subjects``: each subject is a whole scan written."""


def _bounded(text: str, *, minimum: int, maximum: int, why: str) -> int:
    value = _integer(text, minimum=minimum)
    if value > maximum:
        raise argparse.ArgumentTypeError(f"must be at most {maximum:,}, got {value:,} ({why})")
    return value


def _cases(text: str) -> int:
    """Return a number of simulated cases: 0 .. MAX_CASES."""
    return _bounded(text, minimum=0, maximum=MAX_CASES, why="each case is a whole scan written")


def _per_case(text: str) -> int:
    """Anomalies per simulated case: 1 .. MAX_PER_CASE."""
    return _bounded(
        text, minimum=1, maximum=MAX_PER_CASE, why="anomalies are kept apart: few fit in a scan"
    )


def _subjects(text: str) -> int:
    """PET-like subjects of ``pet-sample``: 1 .. MAX_SUBJECTS."""
    return _bounded(
        text, minimum=1, maximum=MAX_SUBJECTS, why="each subject is a whole scan written"
    )


def _sweep_values(text: str, kind: str) -> tuple[float, ...]:
    from napari_mood.services.simulation import check_values, parse_values

    try:
        return check_values("size" if kind == "radii" else "contrast", parse_values(text))
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _radii(text: str) -> tuple[float, ...]:
    """``--radii``: R,R,... or START:STOP:STEP, each once, 0 .. MAX_RADIUS voxels, at most 1,000."""
    return _sweep_values(text, "radii")


def _intensities(text: str) -> tuple[float, ...]:
    """``--intensities``: V,V,... or START:STOP:STEP in [0, 1], at most 1,000."""
    return _sweep_values(text, "intensities")


def _radius(text: str) -> float:
    """Return a sphere radius in voxels: 0 .. MAX_RADIUS (the sweep's bound)."""
    from napari_mood.services.simulation import check_values

    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of voxels, got {text!r}") from None
    try:
        return check_values("size", [value])[0]
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _center(text: str) -> str | tuple[int, ...]:
    """``--center``: ``body``, ``random`` or voxel indices ``i,j[,k]`` (each >= 0)."""
    if text in ("body", "random"):
        return text
    try:
        point = tuple(int(p) for p in text.split(","))
    except ValueError:
        point = ()
    if len(point) not in (2, 3) or min(point) < 0:
        raise argparse.ArgumentTypeError(
            f"expected body, random or voxel indices i,j,k (each >= 0), got {text!r}"
        )
    return point


# messages and limits: evaluate --bootstrap / --workers, rank --bootstrap, figure --max-cases

MAX_BOOTSTRAP = 10_000
"""``--bootstrap`` rounds: each holds a weight per case (memory grows with rounds x cases)."""
MAX_FIGURE_CASES = 100
"""``figure --max-cases``: each case is a row read and drawn."""


def _bootstrap(text: str) -> int:
    """Bootstrap rounds: 0 .. MAX_BOOTSTRAP (a 95% interval is stable well before)."""
    return _bounded(
        text, minimum=0, maximum=MAX_BOOTSTRAP,
        why="the interval does not change beyond that, and each round costs memory per case",
    )  # fmt: skip


def _workers(text: str) -> int:
    """Local worker processes: the engine's rule (1 .. WORKERS_PER_CORE per usable core)."""
    return _bounded(
        text, minimum=1, maximum=WORKERS_PER_CORE * usable_cores(),
        why=f"{WORKERS_PER_CORE} per usable core: more processes only cost memory; "
        "use --scheduler for a cluster",
    )  # fmt: skip


def _figure_cases(text: str) -> int:
    """Cases drawn by ``figure`` when none are named: 1 .. MAX_FIGURE_CASES."""
    return _bounded(
        text, minimum=1, maximum=MAX_FIGURE_CASES, why="each case is a row of the figure"
    )


# sweep findings: --scans, evaluate-boxes --reader / --figure (each refused at parse time)


def _subfolder(text: str) -> str:
    """Parse ``--scans``: a folder name inside the dataset (a path could read anything on disk)."""
    try:
        return _name_part(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(
            f"must be a plain folder name inside the dataset (no '/' or '\\'; not '.' or '..'), "
            f"got {text!r}"
        ) from None


def _reader_name(text: str) -> str:
    """``--reader``: a reader's name or ``consensus``; empty would mean "the file as it is"."""
    if not text.strip():
        raise argparse.ArgumentTypeError(
            "must not be empty: give a reader's name or 'consensus' (or leave --reader out)"
        )
    return text.strip()


def _figure_file(text: str) -> Path:
    """Return an output figure whose extension napari-mood writes (refused before any work)."""
    from napari_mood.services.figure_files import check_figure_path

    try:
        return check_figure_path(_output(text))
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


# the shared vocabulary ------------------------------------------------------------------

RESULT_FORMATS = ("table", "csv", "json")


DEPRECATION_NOTES = "deprecation_notes"
"""The parsed namespace's list of notes on old spellings, printed by :func:`print_deprecation_notes`."""


class _DeprecatedAlias(argparse.Action):
    """An old spelling of ``target``: a note kept for after parsing, then ``target`` does the work."""

    def __init__(self, option_strings: list[str], dest: str, *, target: argparse.Action,
                 **kwargs: Any) -> None:  # fmt: skip
        super().__init__(option_strings, dest, **kwargs)
        self.target = target

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        new = self.target.option_strings[0] if self.target.option_strings else (
            f"the positional {self.target.metavar or self.target.dest.upper()}"
        )  # fmt: skip
        if self.target.option_strings and "new" in _spellings(namespace, self.dest):
            raise argparse.ArgumentError(self, _both(new, option_string))
        _spellings(namespace, self.dest).add("old")
        notes: list[str] = getattr(namespace, DEPRECATION_NOTES, None) or []
        note = f"napari-mood: note: {option_string} is deprecated, use {new}"
        setattr(namespace, DEPRECATION_NOTES, notes if note in notes else [*notes, note])
        setattr(namespace, _FROM_ALIAS, True)
        try:
            self.target(parser, namespace, values, new if self.target.option_strings else None)
        finally:
            delattr(namespace, _FROM_ALIAS)


_SPELLINGS = "_spellings"  # namespace attribute: dest -> {"old", "new"}, the spellings given
_FROM_ALIAS = "_from_alias"  # namespace attribute while an old spelling calls its target


def _spellings(namespace: argparse.Namespace, dest: str) -> set[str]:
    table: dict[str, set[str]] = getattr(namespace, _SPELLINGS, None) or {}
    setattr(namespace, _SPELLINGS, table)
    return table.setdefault(dest, set())


def _both(new: str, old: str | None) -> str:
    return f"give {new} or its deprecated spelling {old}, not both"


class _NewSpelling(argparse.Action):
    """Mixed into an option that has an old spelling: giving both spellings is a usage error.

    Otherwise the last one given would win silently (``--atlas-labels 3 --labels 4``).
    """

    old: str = ""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        if not getattr(namespace, _FROM_ALIAS, False):
            if "old" in _spellings(namespace, self.dest):
                raise argparse.ArgumentError(self, _both(self.option_strings[0], self.old))
            _spellings(namespace, self.dest).add("new")
        super().__call__(parser, namespace, values, option_string)


def _track_new_spelling(action: argparse.Action, old: str) -> None:
    if action.option_strings and not isinstance(action, _NewSpelling):
        kind = type(action)
        action.__class__ = type(f"_New{kind.__name__}", (_NewSpelling, kind), {"old": old})


def deprecated_alias(parser: argparse.ArgumentParser, action: argparse.Action, *old: str) -> None:
    """Accept the old spellings ``old`` of ``action`` for one release, hidden from ``--help``.

    The alias parses its value like ``action`` and notes
    ``napari-mood: note: --output is deprecated, use --out`` once in the parsed namespace;
    :func:`print_deprecation_notes` prints the notes after parsing unless ``--quiet`` was
    given (anywhere on the line, also after the old spelling). A required ``action`` is
    then checked after parsing (argparse would not count the alias as giving it).
    """
    if not action.option_strings:  # a positional that the old option may give instead
        action.type = _absent_or(action.type)
    if action.required or (not action.option_strings and action.nargs == "?"):
        require(parser, action)
    _track_new_spelling(action, old[0])
    same: dict[str, Any] = {"type": action.type} if action.type is not None else {}
    parser.add_argument(
        *old, action=_DeprecatedAlias, target=action, dest=action.dest,
        nargs=action.nargs if action.option_strings else None,
        const=action.const, choices=action.choices, metavar=action.metavar,
        default=argparse.SUPPRESS, help=argparse.SUPPRESS, **same,
    )  # fmt: skip


def print_deprecation_notes(args: argparse.Namespace) -> None:
    """Print the notes on the old spellings used, each once, unless ``--quiet`` hides them."""
    if not getattr(args, "quiet", False):
        for note in getattr(args, DEPRECATION_NOTES, ()):
            print(note, file=sys.stderr)


def _absent_or(kind: Any) -> Callable[[str], Any]:
    """``kind``, except that argparse's marker of an absent value stays absent.

    An optional positional with ``default=SUPPRESS`` would otherwise be set to
    ``kind("==SUPPRESS==")`` when it is not given (and overwrite its old option's value).
    """

    def convert(text: str) -> Any:
        if text == argparse.SUPPRESS:
            return argparse.SUPPRESS
        return text if kind is None else kind(text)

    convert.__name__ = getattr(kind, "__name__", "value")
    return convert


def require(parser: argparse.ArgumentParser, action: argparse.Action) -> None:
    """Make ``action`` required, checked after parsing so that an alias counts."""
    require_option = getattr(parser, "require_option", None)
    if require_option is not None:
        require_option(action)


def add_out(
    parser: argparse.ArgumentParser,
    help: str,
    *,
    metavar: str = "DIR",
    required: bool = False,
    type: Callable[[str], Path] = _output,
    old: tuple[str, ...] = (),
) -> argparse.Action:
    """``--out``: the main output (a file or a folder, ``metavar`` says which)."""
    action = parser.add_argument("--out", type=type, required=required, metavar=metavar, help=help)
    if old:
        deprecated_alias(parser, action, *old)
    return action


def add_force(parser: argparse.ArgumentParser, what: str) -> None:
    """``--force``: replace existing outputs (``--overwrite``: its deprecated spelling)."""
    action = parser.add_argument(
        "--force", action="store_true", help=f"replace existing {what} (never an input file)"
    )
    deprecated_alias(parser, action, "--overwrite")


def add_quiet(parser: argparse.ArgumentParser) -> None:
    """``--quiet``: no progress bar and no warnings on stderr (the same in every command)."""
    parser.add_argument(
        "--quiet", action="store_true", help="no progress bar and no warnings on stderr"
    )


def add_seed(parser: argparse.ArgumentParser, what: str) -> None:
    """``--seed`` with the one default of every subcommand."""
    parser.add_argument(
        "--seed", type=_count, default=DEFAULT_SEED, metavar="N",
        help=f"random seed of {what} (default {DEFAULT_SEED}, as the MOOD challenge)",
    )  # fmt: skip


def add_format(parser: argparse.ArgumentParser, what: str = "the result") -> None:
    """``--format table|csv|json``: how the result is printed (or written to ``--out``)."""
    parser.add_argument(
        "--format", choices=RESULT_FORMATS, default="table",
        help=f"how {what} is printed: an aligned table (default), CSV or JSON",
    )  # fmt: skip


def add_plot(parser: argparse.ArgumentParser, what: str, *, old: tuple[str, ...] = ()) -> None:
    """``--plot FILE``: a figure, ``.png`` / ``.svg`` / ``.pdf`` (checked before any work)."""
    action = parser.add_argument(
        "--plot", type=_figure_file, metavar="FILE", help=f"{what} (.png, .svg or .pdf)"
    )
    if old:
        deprecated_alias(parser, action, *old)


def add_dpi(parser: argparse.ArgumentParser, what: str = "figure") -> None:
    """``--dpi``: resolution of the figures written."""
    parser.add_argument(
        "--dpi", type=_dpi, default=300, metavar="DPI",
        help=f"{what} resolution (default 300, at most {MAX_DPI:g})",
    )  # fmt: skip


def _plot_formats(text: str) -> tuple[str, ...]:
    kinds = tuple(dict.fromkeys(t.strip().lower() for t in text.split(",") if t.strip()))
    if not kinds or any(k not in ("png", "svg", "pdf") for k in kinds):
        raise argparse.ArgumentTypeError(f"expected png,svg,pdf (any of them), got {text!r}")
    return kinds


def add_plot_formats(parser: argparse.ArgumentParser) -> None:
    """``--plot-formats png,svg,pdf``: the files of each figure of a report folder."""
    action = parser.add_argument(
        "--plot-formats", type=_plot_formats, default=("png", "svg", "pdf"), metavar="png,svg,pdf",
        help="file formats of each figure in --out (default: all three)",
    )  # fmt: skip
    deprecated_alias(parser, action, "--formats")

"""Build of the compiled parts only; everything else is in pyproject.toml.

``pip install .`` and ``pip install -e .`` build two optional speed-ups, each with a
pure-Python fallback the package runs on when it is absent:

- ``studengine.evaluator._ceval``, the C evaluator (its twin is ``evaluator/_twin.py``);
- the hot modules of ``COMPILED`` below (the rules engine, cards, the state codec and
  sealing, the Act path's API modules), compiled by mypyc from their own ``.py`` files,
  which stay the source. The build writes ``studengine/_mypyc_build.py``, the list of
  what it compiled with a hash of each source, so that an import runs a compiled module
  only while its ``.py`` is unchanged (``studengine/compiled.py``). The compiled encoder
  writes into librt's ``BytesWriter`` (mypyc's runtime library, a dependency): the
  record names the librt of the build, the least version a compiled run accepts.

``STUDENGINE_BUILD=pure`` at build time compiles no module (nor does a machine without
mypyc); ``STUDENGINE_PURE=1`` at run time runs the ``.py`` files of a compiled build.
"""

import hashlib
import importlib.metadata
import os
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup

HERE = Path(__file__).resolve().parent
SERVICE = HERE / "service"
EVALUATOR = "service/studengine/evaluator"
# the modules mypyc compiles (issue 22): the engine's hot path, as the profile shows it
COMPILED = (
    "studengine/cards.py",
    "studengine/rules/types.py",
    "studengine/rules/board.py",
    "studengine/rules/variants.py",
    "studengine/rules/betting.py",
    "studengine/rules/pots.py",
    "studengine/rules/showdown.py",
    "studengine/rules/validation.py",
    "studengine/rules/hand.py",
    "studengine/rules/visibility.py",
    "studengine/state/bounded.py",
    "studengine/state/wire.py",
    # generated (proto/generate.py): the encoder's field keys, inlined where they are used;
    # listed so that its hash in the build record marks a stale compiled encoder
    "studengine/state/_gen/stud/internal/v1/state_keys.py",
    "studengine/api/_gen/stud/v1/stud_engine_keys.py",  # the views' and updates' keys
    "studengine/api/_gen/stud/v1/stud_engine_writers.py",  # and writers (proto/fastpath.py)
    "studengine/state/checks.py",
    "studengine/state/reader.py",
    # generated (proto/fastpath.py): the state's records, their readers and writers
    "studengine/state/_gen/stud/internal/v1/state_fields.py",
    "studengine/state/codec.py",
    "studengine/state/encoding.py",
    "studengine/api/errors.py",
    "studengine/api/conversions.py",
    "studengine/api/seat_cards.py",
    "studengine/api/views.py",
    "studengine/api/updates.py",
    "studengine/api/requests.py",
    "studengine/api/handlers.py",
    "studengine/api/logfields.py",
    "studengine/state/sealing.py",
)
BUILD_RECORD = SERVICE / "studengine/_mypyc_build.py"

# The generated internal state schema and the API's field keys (gitignored) must exist
# before the packages are collected: a fresh clone built with `pip wheel .` gets them from
# proto/generate.py here (grpcio-tools is a build requirement). `make` regenerates them
# when the protos change.
if not all((SERVICE / f"studengine/{part}/_gen/__init__.py").exists() for part in ("state", "api")):
    subprocess.check_call([sys.executable, str(HERE / "proto/generate.py")])


def module_name(path: str) -> str:
    return path.removesuffix(".py").replace("/", ".")


def source_hash(path: str) -> str:
    return hashlib.sha256((SERVICE / path).read_bytes()).hexdigest()


def librt_version() -> str:
    """The librt beside the mypyc that compiles (mypy depends on it; "0": none found)."""
    try:
        return importlib.metadata.version("librt")
    except importlib.metadata.PackageNotFoundError:
        return "0"


def mypyc_extensions() -> list[Extension]:
    """The mypyc extensions of COMPILED, or none (pure build): recorded in _mypyc_build.py."""
    compiled: dict[str, str] = {}
    extensions: list[Extension] = []
    library = ""  # the shared library mypyc builds beside the package, all modules' code
    librt = ""  # the librt the compiled modules need, at least
    if os.environ.get("STUDENGINE_BUILD", "compiled") == "pure":
        print("studengine: STUDENGINE_BUILD=pure: no module compiled", file=sys.stderr)
    else:
        try:
            from mypyc.build import mypycify
        except ImportError:
            print("studengine: mypyc is not installed: a pure-Python build", file=sys.stderr)
        else:
            # The build's own type check, not the lint's: no config file (not strict), and
            # third-party imports without stubs in an isolated build env (protobuf,
            # tomli-w) are Any, as the compiled code treats them anyway.
            options = ["--config-file", os.devnull, "--ignore-missing-imports"]
            paths = [f"service/{path}" for path in COMPILED]
            try:
                extensions = mypycify([*options, *paths], opt_level="3")
            except (Exception, SystemExit) as error:  # its type check failed: no compile
                print(f"studengine: mypyc failed ({error}): a pure-Python build", file=sys.stderr)
            for extension in extensions:
                extension.optional = True  # no C compiler: the .py files run
    if extensions:
        compiled = {module_name(path): source_hash(path) for path in COMPILED}
        library = next(ext.name for ext in extensions if ext.name.endswith("__mypyc"))
        librt = librt_version()
    # an editable checkout may hold an earlier build's shared library (named after its
    # modules) and its compiled modules: those not compiled now (after a pure build, all;
    # a module taken off COMPILED) would shadow their .py files
    for stale in SERVICE.glob("*__mypyc.cpython-*.so"):
        stale.unlink()
    for stale in (SERVICE / "studengine").rglob("*.cpython-*.so"):
        name = module_name(str(stale.relative_to(SERVICE)).split(".cpython-")[0])
        if name not in compiled and name != "studengine.evaluator._ceval":
            stale.unlink()
    lines = [f"    {name!r}: {digest!r},\n" for name, digest in compiled.items()]
    BUILD_RECORD.write_text(
        '"""Written by setup.py: the modules mypyc compiled, with their sources\' sha256."""\n\n'
        f"LIBRARY = {library!r}\n"
        f"LIBRT = {librt!r}\n"
        "COMPILED: dict[str, str] = {\n" + "".join(lines) + "}\n"
    )
    return extensions


setup(
    ext_modules=[
        Extension(
            "studengine.evaluator._ceval",
            sources=[f"{EVALUATOR}/_ceval.c"],
            depends=[f"{EVALUATOR}/eval_core.h", f"{EVALUATOR}/equity_core.h"],
            extra_compile_args=["-O3", "-std=c99", "-Wall", "-Wno-unused-function"],
            optional=True,
        ),
        *mypyc_extensions(),
    ],
)

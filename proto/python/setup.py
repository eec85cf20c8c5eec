"""The ``studengine-api`` distribution: the ``stud_api`` package that ``proto/generate.py``
writes here (gitignored). A fresh clone built with ``pip wheel proto/python`` gets it
generated first (grpcio-tools is a build requirement); ``make gen`` regenerates it when
the protos change."""

import subprocess
import sys
from pathlib import Path

from setuptools import setup

HERE = Path(__file__).resolve().parent
if not (HERE / "stud_api" / "__init__.py").exists():
    subprocess.check_call([sys.executable, str(HERE.parent / "generate.py")])

setup()

"""Benchmarks (``make bench-eval``, ``bench-engine``, ``bench-rpc``): each runs the
alternative side by side and prints ratios. Not part of any wheel; their extra libraries
(benchmarks/requirements.txt) go into their own environment, ``.venv-bench``."""

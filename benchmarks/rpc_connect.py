"""The HTTP port's part of ``make bench-rpc``: Act over Connect (binary, HTTP/1.1 keep-alive)
on the same ASGI app (``studengine.server.http.build_app``) served by each candidate ASGI
server, to pick one by measurement: hypercorn (what ``--http-port`` uses), uvicorn and
granian (both in ``.venv-bench`` only).

``python -m benchmarks.rpc_connect --serve hypercorn|uvicorn|granian`` is the server process
(sealing keys from ``STUD_SEALING_KEYS``; it prints ``PORT n``).
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import importlib.util
import os
import threading
import time
from collections.abc import Sequence

SERVERS = ("hypercorn", "uvicorn", "granian")


def installed_servers() -> list[str]:
    """The ASGI servers importable here: all three in .venv-bench (``make bench-rpc``),
    hypercorn alone in the dev venv (the server's own dependency)."""
    return [kind for kind in SERVERS if importlib.util.find_spec(kind) is not None]


ACT_PATH = "/stud.v1.StudEngineService/Act"


def serve(kind: str) -> None:
    from studengine.api.calls import ApiCalls
    from studengine.api.expensive import ExpensiveCalls
    from studengine.api.handlers import Handlers
    from studengine.server import metrics
    from studengine.server.config import ServerConfig
    from studengine.server.http import build_app, listening_socket
    from studengine.server.logging import configure_logging
    from studengine.state.keys import keys_from_env_value
    from studengine.state.sealing import KeyRing

    configure_logging("info")
    config = ServerConfig(port=0, http_port=0)
    handlers = Handlers(
        KeyRing(keys_from_env_value(os.environ["STUD_SEALING_KEYS"])),
        allow_test_decks=False,
        observer=metrics,
        equity_cpu_seconds=config.equity_cpu_seconds,
    )
    expensive = ExpensiveCalls(config.threads, config.max_expensive_calls)
    app = build_app(config, ApiCalls(handlers, expensive))
    sock = listening_socket("127.0.0.1", 0, reuse_port=False)
    port = sock.getsockname()[1]
    if kind == "hypercorn":
        from hypercorn.asyncio import serve as hyper_serve
        from hypercorn.config import Config

        hyper = Config()
        hyper.bind = [f"fd://{sock.fileno()}"]
        hyper.accesslog = hyper.errorlog = None
        print(f"PORT {port}", flush=True)
        asyncio.run(hyper_serve(app, hyper))  # type: ignore[arg-type]
    elif kind == "uvicorn":
        import uvicorn

        print(f"PORT {port}", flush=True)
        uvicorn.Server(
            uvicorn.Config(
                app, fd=sock.fileno(), log_level="warning", access_log=False, lifespan="off"
            )
        ).run()
    else:
        from granian.constants import Interfaces
        from granian.server.embed import Server

        sock.close()  # granian binds its own socket
        server = Server(app, address="127.0.0.1", port=port, interface=Interfaces.ASGI,
                        log_access=False)  # fmt: skip
        print(f"PORT {port}", flush=True)
        asyncio.run(server.serve())


def drive(port: int, requests: Sequence[bytes], count: int, concurrency: int) -> list[float]:
    """``count`` Connect calls (binary) from ``concurrency`` threads, one connection each."""
    latencies: list[float] = []
    lock = threading.Lock()
    issued = [0]

    def worker() -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        headers = {"content-type": "application/proto"}
        while True:
            with lock:
                index = issued[0]
                if index >= count:
                    break
                issued[0] += 1
            t0 = time.perf_counter()
            conn.request("POST", ACT_PATH, requests[index % len(requests)], headers)
            response = conn.getresponse()
            response.read()
            if response.status != 200:
                raise RuntimeError(f"Act over Connect failed: HTTP {response.status}")
            latencies.append(time.perf_counter() - t0)
        conn.close()

    threads = [threading.Thread(target=worker) for _ in range(concurrency)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return latencies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--serve", choices=SERVERS, required=True)
    serve(parser.parse_args().serve)


if __name__ == "__main__":
    main()

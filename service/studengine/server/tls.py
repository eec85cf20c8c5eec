"""TLS for both ports: the certificate files (``--tls-cert``, ``--tls-key``, and
``--tls-client-ca`` to require client certificates: mTLS) and the gRPC port's credentials.

The gRPC port re-reads the files when they change, without a restart: gRPC asks
``fetch`` before each new handshake, and it loads the files again when their modification
times moved (a renewed certificate from cert-manager or a Kubernetes Secret). Connections
already open keep the certificate they began with.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import structlog

from studengine.server.config import ConfigError, ServerConfig

if TYPE_CHECKING:
    import grpc

_log = structlog.get_logger("studengine.server")


@dataclass(frozen=True)
class TlsFiles:
    cert: Path
    key: Path
    client_ca: Path | None = None  # client certificates required when given

    def read(self) -> tuple[bytes, bytes, bytes | None]:
        """The PEM bytes of the certificate chain, the key and the client CA."""
        try:
            cert, key = self.cert.read_bytes(), self.key.read_bytes()
            ca = self.client_ca.read_bytes() if self.client_ca else None
        except OSError as exc:
            raise ConfigError(f"cannot read a TLS file: {exc.filename}: {exc.strerror}") from None
        return cert, key, ca

    def stamp(self) -> tuple[float, ...]:
        """The files' modification times (a change means: load them again)."""
        files = [self.cert, self.key, *([self.client_ca] if self.client_ca else [])]
        return tuple(os.stat(f).st_mtime_ns for f in files)


def tls_files(config: ServerConfig) -> TlsFiles | None:
    """The configured files (each must be readable), or None without TLS."""
    if not (config.tls_cert or config.tls_key or config.tls_client_ca):
        return None
    if not (config.tls_cert and config.tls_key):
        raise ConfigError("TLS needs both --tls-cert and --tls-key")
    files = TlsFiles(
        Path(config.tls_cert),
        Path(config.tls_key),
        Path(config.tls_client_ca) if config.tls_client_ca else None,
    )
    files.read()
    return files


def grpc_credentials(files: TlsFiles) -> grpc.ServerCredentials:
    """Server credentials that reload the files when they change."""
    import grpc

    def configuration() -> grpc.ServerCertificateConfiguration:
        cert, key, ca = files.read()
        return grpc.ssl_server_certificate_configuration([(key, cert)], root_certificates=ca)

    lock = threading.Lock()
    seen = [files.stamp()]

    def fetch() -> grpc.ServerCertificateConfiguration | None:
        with lock:
            try:
                stamp = files.stamp()
                if stamp == seen[0]:
                    return None  # unchanged: gRPC keeps the current one
                fresh = configuration()
            except (OSError, ConfigError) as exc:  # half-written renewal: keep the old one
                _log.warning("TLS files unreadable, keeping the loaded ones", error=str(exc))
                return None
            seen[0] = stamp
            _log.info("TLS certificate reloaded", cert=str(files.cert))
            return fresh

    return grpc.dynamic_ssl_server_credentials(
        configuration(),
        fetch,  # type: ignore[arg-type]  # None: keep the current certificate (grpc's contract)
        require_client_authentication=files.client_ca is not None,
    )

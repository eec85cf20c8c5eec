"""TLS and mTLS on both ports (gRPC and HTTP) of a real stud-server, with a CA and
certificates the test makes: a trusting client is served, a plaintext client to a TLS port
fails, under mTLS a client without a certificate is refused and one with a certificate is
served (over Connect and native gRPC on the HTTP port too), and the gRPC port takes a
renewed certificate without a restart."""

from __future__ import annotations

import http.client
import json
import ssl
from collections.abc import Callable
from pathlib import Path

import grpc
import pytest
from stud_api.stud.v1 import stud_engine_pb2 as pb
from stud_api.stud.v1 import stud_engine_pb2_grpc as pb_grpc
from support.certs import CertAuthority, Issued
from support.server_harness import LiveServer

HAND = pb.EvaluateRequest(hands=[pb.CardSet(cards=["Ac", "Kc", "Qc", "Jc", "Tc"])])
CONNECT_BODY = json.dumps({"hands": [{"cards": ["Ac", "Kc", "Qc", "Jc", "Tc"]}]}).encode()
PATH = "/stud.v1.StudEngineService/Evaluate"


def start(live_server: Callable[..., LiveServer], server: Issued, client_ca: Path | None = None
          ) -> tuple[LiveServer, int]:  # fmt: skip
    args = ["--tls-cert", str(server.cert), "--tls-key", str(server.key), "--http-port", "0"]
    if client_ca is not None:
        args += ["--tls-client-ca", str(client_ca)]
    running = live_server(args=args, wait=False)
    running.wait_serving()
    return running, int(running.wait_for_log("serving")["http_port"])


def grpc_evaluate(target: str, credentials: grpc.ChannelCredentials | None) -> str:
    """The top hand's category, or the status code name of the failure."""
    options = [("grpc.use_local_subchannel_pool", 1)]
    channel = (
        grpc.insecure_channel(target, options=options)
        if credentials is None
        else grpc.secure_channel(target, credentials, options=options)
    )
    with channel:
        try:
            reply = pb_grpc.StudEngineServiceStub(channel).Evaluate(HAND, timeout=10)
        except grpc.RpcError as error:
            assert isinstance(error, grpc.Call)
            return str(error.code().name)
    return str(reply.values[0].category)


def https_evaluate(port: int, context: ssl.SSLContext | None) -> dict[str, object]:
    """Connect JSON over HTTPS (or plain HTTP without ``context``)."""
    if context is None:
        conn: http.client.HTTPConnection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    else:
        conn = http.client.HTTPSConnection("127.0.0.1", port, timeout=10, context=context)
    try:
        conn.request("POST", PATH, CONNECT_BODY, {"content-type": "application/json"})
        response = conn.getresponse()
        assert response.status == 200, response.read()
        return dict(json.loads(response.read()))
    finally:
        conn.close()


def client_context(ca: CertAuthority, client: Issued | None = None) -> ssl.SSLContext:
    context = ssl.create_default_context(cafile=str(ca.files.cert))
    if client is not None:
        context.load_cert_chain(str(client.cert), str(client.key))
    return context


def test_tls_on_both_ports_and_plaintext_fails(
    live_server: Callable[..., LiveServer], tmp_path: Path
) -> None:
    ca = CertAuthority(tmp_path / "ca")
    server, http_port = start(live_server, ca.issue("server", server=True))
    trusting = grpc.ssl_channel_credentials(ca.files.cert.read_bytes())
    assert grpc_evaluate(server.target, trusting) == "Straight Flush"
    assert grpc_evaluate(server.target, None) == "UNAVAILABLE"  # plaintext to a TLS port
    other = CertAuthority(tmp_path / "other", "another CA")
    untrusting = grpc.ssl_channel_credentials(other.files.cert.read_bytes())
    assert grpc_evaluate(server.target, untrusting) == "UNAVAILABLE"

    reply = https_evaluate(http_port, client_context(ca))
    assert reply["values"][0]["category"] == "Straight Flush"  # type: ignore[index]
    with pytest.raises((http.client.HTTPException, ConnectionError, AssertionError)):
        https_evaluate(http_port, None)  # plaintext HTTP to the TLS port
    with pytest.raises(ssl.SSLCertVerificationError):
        https_evaluate(http_port, client_context(other))


def test_mtls_refuses_a_client_without_a_certificate(
    live_server: Callable[..., LiveServer], tmp_path: Path
) -> None:
    ca = CertAuthority(tmp_path / "ca")
    client = ca.issue("client", server=False)
    server, http_port = start(live_server, ca.issue("server", server=True), ca.files.cert)
    root = ca.files.cert.read_bytes()
    anonymous = grpc.ssl_channel_credentials(root)
    assert grpc_evaluate(server.target, anonymous) == "UNAVAILABLE"
    cert, key = client.pem()
    known = grpc.ssl_channel_credentials(root, private_key=key, certificate_chain=cert)
    assert grpc_evaluate(server.target, known) == "Straight Flush"
    # a certificate from another CA is refused too
    stranger = CertAuthority(tmp_path / "other", "another CA").issue("stranger", server=False)
    cert, key = stranger.pem()
    foreign = grpc.ssl_channel_credentials(root, private_key=key, certificate_chain=cert)
    assert grpc_evaluate(server.target, foreign) == "UNAVAILABLE"

    with pytest.raises((ssl.SSLError, ConnectionError, http.client.HTTPException)):
        https_evaluate(http_port, client_context(ca))
    reply = https_evaluate(http_port, client_context(ca, client))
    assert reply["values"][0]["category"] == "Straight Flush"  # type: ignore[index]
    # native gRPC on the HTTP port: HTTP/2 by ALPN, the same client certificate rule
    assert grpc_evaluate(f"127.0.0.1:{http_port}", known) == "Straight Flush"
    assert grpc_evaluate(f"127.0.0.1:{http_port}", anonymous) == "UNAVAILABLE"


def test_the_grpc_port_takes_a_renewed_certificate_without_a_restart(
    live_server: Callable[..., LiveServer], tmp_path: Path
) -> None:
    ca = CertAuthority(tmp_path / "ca")
    files = ca.issue("server", server=True)
    server, _ = start(live_server, files)
    old_root = grpc.ssl_channel_credentials(ca.files.cert.read_bytes())
    assert grpc_evaluate(server.target, old_root) == "Straight Flush"
    renewed_ca = CertAuthority(tmp_path / "renewed", "renewed CA")
    renewed = renewed_ca.issue("server", server=True)
    cert, key = renewed.pem()
    files.key.write_bytes(key)
    files.cert.write_bytes(cert)
    new_root = grpc.ssl_channel_credentials(renewed_ca.files.cert.read_bytes())
    assert grpc_evaluate(server.target, new_root) == "Straight Flush"
    assert grpc_evaluate(server.target, old_root) == "UNAVAILABLE"
    server.wait_for_log("TLS certificate reloaded")

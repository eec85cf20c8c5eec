"""Sealing: AES-256-GCM envelope, key rotation, key specs, and one uniform refusal for
every state that does not open (tampered, truncated, foreign key, test deck)."""

from __future__ import annotations

import base64
import os
import random
import subprocess
import sys

import grpc
import pytest
from stud_api.stud.v1 import stud_engine_pb2 as pb
from studengine.api.errors import ApiError, Reason
from studengine.api.handlers import Handlers
from studengine.state.keys import (
    KeySpecError,
    keys_from_env_value,
    keys_from_file,
    new_key_spec,
    parse_key_spec,
)
from studengine.state.sealing import (
    INVALID_MESSAGE,
    PURPOSE,
    KeyRing,
    SealedStateInvalid,
)
from support.api_helpers import new_key, spec_of, table_7s

PLAYERS = [pb.Player(id=f"player-{i}", stack=500) for i in range(3)]


def start(handlers: Handlers, test_deck: list[str] | None = None) -> pb.HandUpdate:
    request = pb.StartHandRequest(
        variant=pb.VARIANT_SEVEN_CARD_STUD, table=table_7s(), players=PLAYERS, button=0
    )
    if test_deck:
        request.test_deck.extend(test_deck)
    return handlers.start_hand(request).hand


def refusal(handlers: Handlers, state: bytes) -> ApiError:
    """The error of a GetView and of an Act on ``state`` (they must agree)."""
    with pytest.raises(ApiError) as viewing:
        handlers.get_view(pb.GetViewRequest(state=state))
    with pytest.raises(ApiError) as acting:
        handlers.act(pb.ActRequest(state=state, seat=0, action=pb.ACTION_TYPE_FOLD))
    assert (viewing.value.code, viewing.value.message) == (acting.value.code, acting.value.message)
    return viewing.value


def assert_uniform(error: ApiError) -> None:
    assert error.code == grpc.StatusCode.INVALID_ARGUMENT
    assert error.message == INVALID_MESSAGE
    assert error.violations == (("state", INVALID_MESSAGE, Reason.STATE_INVALID),)
    assert error.reason is Reason.STATE_INVALID and not error.metadata


def test_seal_open_round_trip_and_fresh_nonce() -> None:
    ring = KeyRing([new_key("k1")])
    assert ring.open_bytes(ring.seal_bytes(b"hello")) == b"hello"
    assert ring.seal_bytes(b"hello") != ring.seal_bytes(b"hello")


def test_envelope_layout_and_associated_data() -> None:
    kid, key = new_key("main-1")
    blob = KeyRing([(kid, key)]).seal_bytes(b"payload")
    assert blob[0] == 1 and blob[1] == len(kid) and blob[2 : 2 + len(kid)] == kid.encode()
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    header, nonce = blob[: 2 + len(kid)], blob[2 + len(kid) : 14 + len(kid)]
    body = blob[14 + len(kid) :]
    assert AESGCM(key).decrypt(nonce, body, header + PURPOSE) == b"payload"
    with pytest.raises(Exception):  # noqa: B017 (the purpose is bound: any other AD fails)
        AESGCM(key).decrypt(nonce, body, header + b"stud.v1.other")


def _reference_open(keys: list[tuple[str, bytes]], blob: bytes) -> bytes | None:
    """The envelope opened as the key ring did before its headers were worked out once
    per key (a header and a slice built per call): the plaintext, or None."""
    from cryptography.exceptions import InvalidTag
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    by_kid = {kid.encode(): AESGCM(key) for kid, key in keys}
    if len(blob) < 2 + 12 + 16 or len(blob) > 64 * 1024 or blob[0] != 1:
        return None
    kid_len = blob[1]
    kid = blob[2 : 2 + kid_len]
    aead = by_kid.get(kid) if len(kid) == kid_len else None
    header, body = blob[: 2 + kid_len], blob[2 + kid_len :]
    if aead is None or len(body) < 12 + 16:
        return None
    try:
        return aead.decrypt(body[:12], body[12:], header + PURPOSE)
    except InvalidTag:
        return None


def test_open_bytes_agrees_with_the_reference_envelope() -> None:
    """Every blob near a real one (each key of a ring whose ids prefix one another, every
    length, the kid length byte and the kid changed) opens to the reference's plaintext or
    is refused where the reference refuses it; sealing writes the reference's layout."""
    keys = [new_key("a"), new_key("ab"), new_key("k" * 32)]
    ring = KeyRing(keys)
    rng = random.Random(5)
    blobs: list[bytes] = []
    for kid, key in keys:
        sealed = KeyRing([(kid, key)]).seal_bytes(b"payload " + kid.encode())
        blobs += [sealed[:n] for n in range(len(sealed) + 1)] + [sealed + b"\x00"]
        for kid_len in (0, 1, 2, 31, 32, 33, 255):
            blobs.append(sealed[:1] + bytes([kid_len]) + sealed[2:])
        for _ in range(40):
            changed = bytearray(sealed)
            changed[rng.randrange(2 + len(kid))] ^= 1 << rng.randrange(8)
            blobs.append(bytes(changed))
    blobs.append(KeyRing([new_key("a")]).seal_bytes(b"other key, same id"))
    opened: set[bytes] = set()
    for blob in blobs:
        expected = _reference_open(keys, blob)
        if expected is None:
            with pytest.raises(SealedStateInvalid):
                ring.open_bytes(blob)
        else:
            assert ring.open_bytes(blob) == expected
            opened.add(blob)
    assert len(opened) == len(keys)  # each untouched blob, nothing else
    for kid, _key in keys:  # a ring seals under its first key, in the reference layout
        sealed = KeyRing([k for k in keys if k[0] == kid]).seal_bytes(b"x")
        assert sealed[:2] == bytes([1, len(kid)]) and sealed[2 : 2 + len(kid)] == kid.encode()
        assert _reference_open(keys, sealed) == b"x"


def test_every_single_byte_change_is_refused_uniformly() -> None:
    handlers = Handlers(KeyRing([new_key("k1")]), allow_test_decks=False)
    update = start(handlers)
    state = update.state
    handlers.get_view(pb.GetViewRequest(state=state))  # the real state opens
    for position in range(len(state)):
        for xor in (0x01, 0x80, 0xFF):
            tampered = bytearray(state)
            tampered[position] ^= xor
            assert_uniform(refusal(handlers, bytes(tampered)))


def test_truncated_empty_random_and_extended_states_are_refused_uniformly() -> None:
    handlers = Handlers(KeyRing([new_key("k1")]), allow_test_decks=False)
    state = start(handlers).state
    rng = random.Random(11)
    candidates = [state[:n] for n in range(len(state))]
    candidates += [state + b"\x00", state + state, b"", b"\x01", os.urandom(10**5)]
    candidates += [bytes(rng.randrange(256) for _ in range(rng.randint(1, 600))) for _ in range(50)]
    for candidate in candidates:
        assert_uniform(refusal(handlers, candidate))


def test_state_of_an_unknown_key_is_refused_uniformly() -> None:
    ours = Handlers(KeyRing([new_key("k1")]), allow_test_decks=False)
    theirs = Handlers(KeyRing([new_key("k1")]), allow_test_decks=False)  # same id, other key
    other_id = Handlers(KeyRing([new_key("k2")]), allow_test_decks=False)
    assert_uniform(refusal(ours, start(theirs).state))
    assert_uniform(refusal(ours, start(other_id).state))


def test_key_rotation_old_states_still_open() -> None:
    old, new = new_key("old"), new_key("new")
    before = Handlers(KeyRing([old]), allow_test_decks=False)
    state = start(before).state
    after = Handlers(KeyRing([new, old]), allow_test_decks=False)
    view = after.get_view(pb.GetViewRequest(state=state))
    assert view.seq == 0
    update = after.act(
        pb.ActRequest(state=state, seat=view.to_act, action=pb.ACTION_TYPE_BRING_IN)
    ).hand
    assert update.state[2:5] == b"new"  # the next state is sealed under the new primary
    # once the old key is retired, its states no longer open; the new ones do
    retired = Handlers(KeyRing([new]), allow_test_decks=False)
    assert_uniform(refusal(retired, state))
    assert retired.get_view(pb.GetViewRequest(state=update.state)).seq == 1


def test_test_deck_state_refused_without_the_flag() -> None:
    key = new_key("k1")
    testing = Handlers(KeyRing([key]), allow_test_decks=True)
    production = Handlers(KeyRing([key]), allow_test_decks=False)
    deck = ["Ac", "3c", "9s", "Kd", "3d", "9d", "Qh", "2d", "7c"]
    state = start(testing, deck).state
    assert testing.get_view(pb.GetViewRequest(state=state)).seq == 0
    assert_uniform(refusal(production, state))
    # and production refuses to make one
    with pytest.raises(ApiError) as error:
        start(production, deck)
    assert error.value.code == grpc.StatusCode.INVALID_ARGUMENT
    assert error.value.violations[0][0] == "test_deck"
    # a shuffled hand on the testing server opens on production
    assert production.get_view(pb.GetViewRequest(state=start(testing).state)).seq == 0


def test_sealed_state_invalid_has_one_message() -> None:
    assert str(SealedStateInvalid()) == INVALID_MESSAGE


# ---- key specs -------------------------------------------------------------------


def test_key_specs_parse_from_env_and_file(tmp_path: object) -> None:
    a, b = new_key("a"), new_key("b-2")
    assert keys_from_env_value(f"{spec_of(a)}, {spec_of(b)}") == [a, b]
    path = os.path.join(str(tmp_path), "keys")
    with open(path, "w") as handle:
        handle.write(f"# sealing keys\n{spec_of(b)}\n\n{spec_of(a)}\n")
    assert keys_from_file(path) == [b, a]
    ring = KeyRing(keys_from_file(path))
    assert ring.primary == "b-2" and ring.key_ids == ["b-2", "a"]


@pytest.mark.parametrize(
    "spec",
    [
        "nocolon",
        ":" + base64.b64encode(bytes(32)).decode(),
        "bad id:" + base64.b64encode(bytes(32)).decode(),
        "k:" + base64.b64encode(bytes(31)).decode(),
        "k:not base64!",
    ],
)
def test_bad_key_specs_are_refused_without_echoing_the_key(spec: str) -> None:
    with pytest.raises(KeySpecError) as error:
        parse_key_spec(spec)
    secret = spec.partition(":")[2]
    assert not secret or secret not in str(error.value)


def test_duplicate_and_missing_keys_are_refused() -> None:
    a = new_key("a")
    with pytest.raises(KeySpecError):
        keys_from_env_value(f"{spec_of(a)},{spec_of(a)}")
    with pytest.raises(KeySpecError):
        keys_from_env_value(" , ")
    with pytest.raises(ValueError):
        KeyRing([])


def test_new_key_spec_and_keygen_cli() -> None:
    kid, key = parse_key_spec(new_key_spec())
    assert len(key) == 32 and kid.startswith("k")
    out = subprocess.run(
        [sys.executable, "-m", "studengine.state.keys", "--new", "--kid", "prod-1"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    kid, key = parse_key_spec(out)
    assert kid == "prod-1" and len(key) == 32
    assert parse_key_spec(new_key_spec()) != parse_key_spec(new_key_spec())


def test_authentic_envelopes_with_bad_contents_are_refused_uniformly() -> None:
    """Sealed under the server's own key, but not a good state: bad protobuf, another
    format version, broken invariants. Same answer as any other bad state."""
    from studengine.state._gen.stud.internal.v1 import state_pb2

    key = new_key("k1")
    ring = KeyRing([key])
    handlers = Handlers(ring, allow_test_decks=False)
    good = ring.open_bytes(start(handlers).state)
    msg = state_pb2.HandState.FromString(good)
    versioned = state_pb2.HandState()
    versioned.CopyFrom(msg)
    versioned.format_version += 1
    cheating = state_pb2.HandState()
    cheating.CopyFrom(msg)
    cheating.hand.stacks[0] += 1000  # chips from nowhere
    for plaintext in (
        b"",
        b"\xff\xff\xff",
        os.urandom(200),
        versioned.SerializeToString(),
        cheating.SerializeToString(),
    ):
        assert_uniform(refusal(handlers, ring.seal_bytes(plaintext)))
    assert handlers.get_view(pb.GetViewRequest(state=ring.seal_bytes(good))).seq == 0

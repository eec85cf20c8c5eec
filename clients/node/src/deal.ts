// The verifiable deck (issue 32; docs/security.md): HMAC_DRBG with SHA-256 (NIST SP
// 800-90A Rev. 1, section 10.1.2; no reseed, no additional input, no prediction
// resistance) seeded with the server's seed, the hand id and the players'
// contributions, driving a Fisher-Yates shuffle with rejection sampling. Lets a client
// check, from a finished hand's reveal, that the deck it was dealt is the one the
// server committed to before the deal and the players' entropy chose.

import { createHash, createHmac, getRandomValues, timingSafeEqual } from "node:crypto";

const PERSONALIZATION = Buffer.from("stud-engine/deal/v1", "ascii");
/** Bytes per DRBG Generate call of the shuffle. */
const GENERATE_BYTES = 256;
/** The bounds of one player's contribution, in bytes. */
export const CONTRIBUTION_MIN = 16;
export const CONTRIBUTION_MAX = 64;

/** HMAC_DRBG (SHA-256), NIST SP 800-90A Rev. 1 section 10.1.2. */
export class HmacDrbg {
  private key: Buffer = Buffer.alloc(32, 0x00);
  private value: Buffer = Buffer.alloc(32, 0x01);

  constructor(entropy: Uint8Array, nonce: Uint8Array, personalization: Uint8Array) {
    this.update(Buffer.concat([entropy, nonce, personalization]));
  }

  private hmac(...parts: Uint8Array[]): Buffer {
    const mac = createHmac("sha256", this.key);
    for (const part of parts) mac.update(part);
    return mac.digest();
  }

  private update(provided: Uint8Array): void {
    this.key = this.hmac(this.value, Buffer.of(0x00), provided);
    this.value = this.hmac(this.value);
    if (provided.length === 0) return;
    this.key = this.hmac(this.value, Buffer.of(0x01), provided);
    this.value = this.hmac(this.value);
  }

  /** The next `length` bytes (one Generate call). */
  generate(length: number): Buffer {
    const blocks: Buffer[] = [];
    for (let have = 0; have < length; have += this.value.length) {
      this.value = this.hmac(this.value);
      blocks.push(this.value);
    }
    this.update(new Uint8Array(0));
    return Buffer.concat(blocks).subarray(0, length);
  }
}

/** The personalization string: the label, then each contribution (seat order) as uint16 BE length || bytes. */
export function personalization(contributions: readonly Uint8Array[]): Buffer {
  const framed = contributions.flatMap((c) => {
    const length = Buffer.alloc(2);
    length.writeUInt16BE(c.length);
    return [length, Buffer.from(c)];
  });
  return Buffer.concat([PERSONALIZATION, ...framed]);
}

/** SHA-256 of the server's seed: the commitment shown before the deal. */
export function commitmentOf(serverSeed: Uint8Array): Buffer {
  return createHash("sha256").update(serverSeed).digest();
}

/** The deck (card = rank * 4 + suit, deck[0] dealt first) the seed, hand id and contributions make. */
export function deal(
  serverSeed: Uint8Array,
  handId: Uint8Array,
  contributions: readonly Uint8Array[],
): number[] {
  const drbg = new HmacDrbg(serverSeed, handId, personalization(contributions));
  let buffer: Buffer = Buffer.alloc(0);
  let pos = 0;
  const word = (): number => {
    if (pos + 4 > buffer.length) {
      buffer = drbg.generate(GENERATE_BYTES);
      pos = 0;
    }
    pos += 4;
    return buffer.readUInt32BE(pos - 4);
  };
  const deck = Array.from({ length: 52 }, (_, i) => i);
  for (let i = 51; i > 0; i--) {
    const n = i + 1;
    const limit = 2 ** 32 - (2 ** 32 % n);
    let w = word();
    while (w >= limit) w = word();
    const j = w % n;
    [deck[i], deck[j]] = [deck[j] as number, deck[i] as number];
  }
  return deck;
}

/** A player's contribution: `length` bytes from the CSPRNG (crypto.getRandomValues). */
export function newContribution(length = 32): Uint8Array {
  if (length < CONTRIBUTION_MIN || length > CONTRIBUTION_MAX) {
    throw new RangeError(`a contribution is ${CONTRIBUTION_MIN} to ${CONTRIBUTION_MAX} bytes`);
  }
  return getRandomValues(new Uint8Array(length));
}

const RANKS = "23456789TJQKA";
const SUITS = "cdhs";

/** Card index (rank * 4 + suit, as studengine.cards) -> "Ac". */
export function cardName(card: number): string {
  return `${RANKS[Math.floor(card / 4)]}${SUITS[card % 4]}`;
}

function hexBytes(field: string, hex: string, length?: number): Buffer {
  if (!/^([0-9a-f]{2})*$/i.test(hex) || (length !== undefined && hex.length !== length * 2)) {
    throw new Error(`${field} is not ${length ?? "whole"} bytes of hex`);
  }
  return Buffer.from(hex, "hex");
}

/** What a finished hand revealed, as HandUpdate and Reveal carry it. */
export interface DealProof {
  handId: string;
  dealCommitment: string;
  serverSeed: string;
  contributions: readonly string[];
  deck: readonly string[];
}

/**
 * Checks a finished hand's proof: the seed matches the commitment shown before the
 * deal, and the revealed deck is the one seed, hand id and contributions make. Returns
 * the failing field's name, or undefined when the proof holds. `expectedContributions`
 * (hex, seat order), when given, are the ones this client sent.
 */
export function verifyDeal(proof: DealProof, expectedContributions?: readonly string[]): string | undefined {
  let seed: Buffer;
  try {
    seed = hexBytes("server_seed", proof.serverSeed, 32);
  } catch {
    return "server_seed";
  }
  const committed = Buffer.from(proof.dealCommitment, "hex");
  if (committed.length !== 32 || !timingSafeEqual(commitmentOf(seed), committed)) return "server_seed";
  const sent = expectedContributions?.map((c) => c.toLowerCase()).join(",");
  if (sent !== undefined && sent !== proof.contributions.map((c) => c.toLowerCase()).join(",")) {
    return "contributions";
  }
  let deck: number[];
  try {
    const contributions = proof.contributions.map((c) => hexBytes("contributions", c));
    deck = deal(seed, hexBytes("hand_id", proof.handId, 16), contributions);
  } catch {
    return "contributions";
  }
  const names = deck.map(cardName);
  return names.length === proof.deck.length && names.every((c, i) => c === proof.deck[i]) ? undefined : "deck";
}

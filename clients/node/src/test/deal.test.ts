// The verifiable deck against NIST CAVP's HMAC_DRBG known answer and the documented
// test vector (docs/security.md), which the server and stud-verify reproduce too.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { cardName, commitmentOf, deal, HmacDrbg, newContribution, verifyDeal } from "../deal.js";

const hex = (s: string): Buffer => Buffer.from(s, "hex");

const SEED = hex("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f");
const HAND_ID = "a0a1a2a3a4a5a6a7a8a9aaabacadaeaf";
const CONTRIBUTIONS = [
  "616c69636527732062726f7773657220656e74726f70792030303031",
  "626f6227732062726f7773657220656e74726f7079203030303030303032",
];
const DECK = [
  51, 12, 22, 47, 40, 50, 21, 5, 28, 27, 19, 9, 31, 26, 18, 0, 45, 23, 46, 43, 29, 33, 36, 15, 49,
  42, 6, 20, 4, 34, 25, 32, 30, 35, 44, 38, 41, 37, 14, 3, 17, 10, 24, 11, 2, 48, 7, 16, 39, 8, 13,
  1,
];

function proof(): { handId: string; dealCommitment: string; serverSeed: string; contributions: string[]; deck: string[] } {
  return {
    handId: HAND_ID,
    dealCommitment: commitmentOf(SEED).toString("hex"),
    serverSeed: SEED.toString("hex"),
    contributions: [...CONTRIBUTIONS],
    deck: DECK.map(cardName),
  };
}

describe("HMAC_DRBG", () => {
  it("gives NIST CAVP's SHA-256 count 0 (no reseed, no PR, no additional input)", () => {
    const drbg = new HmacDrbg(
      hex("ca851911349384bffe89de1cbdc46e6831e44d34a4fb935ee285dd14b71a7488"),
      hex("659ba96c601dc69fc902940805ec0ca8"),
      new Uint8Array(0),
    );
    drbg.generate(128);
    assert.equal(
      drbg.generate(128).toString("hex"),
      "e528e9abf2dece54d47c7e75e5fe302149f817ea9fb4bee6f4199697d04d5b89d54fbb978a15b5c443c9ec21036d2460" +
        "b6f73ebad0dc2aba6e624abf07745bc107694bb7547bb0995f70de25d6b29e2d3011bb19d27676c07162c8b5ccde06" +
        "68961df86803482cb37ed6d5c0bb8d50cf1f50d476aa0458bdaba806f48be9dcb8",
    );
  });
});

describe("the deck", () => {
  it("reproduces the documented test vector", () => {
    assert.equal(
      commitmentOf(SEED).toString("hex"),
      "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd",
    );
    assert.deepEqual(deal(SEED, hex(HAND_ID), CONTRIBUTIONS.map(hex)), DECK);
  });

  it("is a permutation of the 52 cards for random contributions", () => {
    for (let round = 0; round < 20; round++) {
      const deck = deal(newContribution(32), hex(HAND_ID), [newContribution(16), newContribution(64)]);
      assert.deepEqual([...deck].sort((a, b) => a - b), Array.from({ length: 52 }, (_, i) => i));
    }
  });

  it("changes with any one contribution", () => {
    const other = [CONTRIBUTIONS[0] as string, `${(CONTRIBUTIONS[1] as string).slice(0, -2)}33`];
    assert.notDeepEqual(deal(SEED, hex(HAND_ID), other.map(hex)), DECK);
  });

  it("refuses contributions outside 16 to 64 bytes", () => {
    assert.throws(() => newContribution(15), RangeError);
    assert.throws(() => newContribution(65), RangeError);
    assert.equal(newContribution().length, 32);
  });
});

describe("verifyDeal", () => {
  it("accepts the vector's proof", () => {
    assert.equal(verifyDeal(proof(), CONTRIBUTIONS), undefined);
  });

  it("names the field that fails", () => {
    const seed = { ...proof(), serverSeed: `${SEED.toString("hex").slice(0, -2)}20` };
    assert.equal(verifyDeal(seed), "server_seed");
    const changed = { ...proof(), contributions: [CONTRIBUTIONS[0] as string, CONTRIBUTIONS[0] as string] };
    assert.equal(verifyDeal(changed), "deck");
    assert.equal(verifyDeal(proof(), [CONTRIBUTIONS[1] as string, CONTRIBUTIONS[0] as string]), "contributions");
    const swapped = proof();
    [swapped.deck[3], swapped.deck[7]] = [swapped.deck[7] as string, swapped.deck[3] as string];
    assert.equal(verifyDeal(swapped), "deck");
  });
});

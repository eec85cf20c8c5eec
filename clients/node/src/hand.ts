// Plays a whole hand with seeded choices among the legal actions and checks that no chip
// was made or lost (R-CONSERVATION): the final stacks plus the rake (R-RAKE) add up to the
// starting ones.

import type { StudClient } from "./client.js";
import { newContribution, verifyDeal } from "./deal.js";
import {
  ActionType,
  type HandUpdate,
  type LegalAction,
  Variant,
} from "./gen/stud/v1/stud_engine_pb.js";

export const VARIANTS = {
  five: Variant.FIVE_CARD_STUD,
  seven: Variant.SEVEN_CARD_STUD,
  razz: Variant.RAZZ,
  hilo: Variant.SEVEN_CARD_STUD_HI_LO,
} as const;
export type VariantName = keyof typeof VARIANTS;

/** A small seeded PRNG (mulberry32): the same seed makes the same choices. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PASSIVE = new Set([ActionType.CHECK, ActionType.CALL, ActionType.BRING_IN]);

/**
 * One of the legal actions: checks and calls mostly, sometimes a bet or raise, a fold
 * now and then (never when a check is free).
 */
export function chooseAction(legal: readonly LegalAction[], random: () => number): LegalAction {
  if (legal.length === 0) throw new Error("no legal action to choose from");
  const free = legal.some((a) => a.type === ActionType.CHECK);
  const weights = legal.map((a): number => {
    if (a.type === ActionType.FOLD) return free ? 0 : 0.1;
    return PASSIVE.has(a.type) ? 1 : 0.3;
  });
  let pick = random() * weights.reduce((x, y) => x + y, 0);
  for (const [i, action] of legal.entries()) {
    pick -= weights[i] ?? 0;
    if (pick < 0) return action;
  }
  return legal[legal.length - 1] as LegalAction;
}

/** "ACTION_TYPE_BRING_IN" -> "bring-in". */
export function actionWord(type: ActionType): string {
  return (ActionType[type] ?? String(type)).toLowerCase().replaceAll("_", "-");
}

export interface PlayOptions {
  variant?: VariantName;
  players?: number;
  stack?: number;
  seed?: number;
  /** R-RAKE: basis points of the pot (0: no rake), and the most taken from a hand. */
  rakeBp?: number;
  rakeCap?: number;
  /** A chosen deck (cards like "Ac"), for servers started with --allow-test-decks. */
  testDeck?: string[];
  /**
   * A verifiable deal: ask for a deal ticket, contribute each player's entropy
   * (crypto.getRandomValues), deal with both, and check the revealed deck at the end.
   */
  verifiable?: boolean;
  log?: (line: string) => void;
}

/** One move played: the seat, the action's name (e.g. "BRING_IN") and its `to`, if any. */
export interface Move {
  seat: number;
  action: string;
  to?: number;
}

export interface PlayedHand {
  hand: HandUpdate;
  start: bigint[];
  actions: number;
  moves: Move[];
  conserved: boolean;
  /** A verifiable deal's check: "ok", or the field that failed; undefined without a ticket. */
  dealVerified?: string;
}

/** Starts a hand and plays it to the end, every Act carrying expected_seq. */
export async function playHand(client: StudClient, options: PlayOptions = {}): Promise<PlayedHand> {
  const { variant = "seven", players = 4, stack = 1000, seed = 1, testDeck = [], log = () => {} } =
    options;
  const { rakeBp = 0, rakeCap = 0 } = options;
  const random = rng(seed);
  const start = Array.from({ length: players }, () => BigInt(stack));
  const settings = {
    variant: VARIANTS[variant],
    table: {
      ante: 5n,
      bringIn: 10n,
      smallBet: 20n,
      bigBet: 40n,
      rakePercentBp: rakeBp,
      rakeCap: BigInt(rakeCap),
    },
    players: start.map((s, i) => ({ id: `node-${i}`, stack: s })),
    button: Math.floor(random() * players),
  };
  let deal: { sealed: Uint8Array; commitment: string; contributions: Uint8Array[] } | undefined;
  if (options.verifiable) {
    const ticket = (await client.createDealTicket(settings)).ticket;
    if (ticket === undefined) throw new Error("the server's response has no ticket");
    log(`deal ticket for hand ${ticket.handId}, commitment ${ticket.commitment}`);
    deal = {
      sealed: ticket.sealed,
      commitment: ticket.commitment,
      contributions: start.map(() => newContribution()),
    };
  }
  const started = await client.startHand({
    ...settings,
    testDeck,
    ...(deal ? { dealTicket: deal.sealed, contributions: deal.contributions } : {}),
  });
  let hand = required(started.hand);
  if (deal && hand.dealCommitment !== deal.commitment) {
    throw new Error(`hand ${hand.handId} shows commitment ${hand.dealCommitment}, not the ticket's`);
  }
  log(`hand ${hand.handId} started, commitment ${(hand.dealCommitment || hand.deckCommitment).slice(0, 16)}...`);
  let actions = 0;
  const moves: Move[] = [];
  while (!hand.over) {
    const seat = hand.toAct;
    if (seat === undefined) throw new Error(`hand ${hand.handId} is not over but nobody acts`);
    const choice = chooseAction(hand.legalActions, random);
    const street = hand.spectator?.streetName ?? "";
    const acted = await client.act({
      state: hand.state,
      seat,
      action: choice.type,
      expectedSeq: hand.seq,
      ...(choice.to !== undefined ? { to: choice.to } : {}),
    });
    hand = required(acted.hand);
    actions += 1;
    moves.push({
      seat,
      action: ActionType[choice.type] ?? String(choice.type),
      ...(choice.to !== undefined ? { to: Number(choice.to) } : {}),
    });
    log(`  [${street}] seat ${seat} ${actionWord(choice.type)}${choice.to !== undefined ? ` ${choice.to}` : ""}`);
  }
  const total = (xs: readonly bigint[]): bigint => xs.reduce((x, y) => x + y, 0n);
  const stacks = hand.result?.stacks ?? [];
  const rake = hand.result?.rake ?? 0n;
  const conserved = stacks.length === players && total(stacks) + rake === total(start);
  if (deal === undefined) return { hand, start, actions, moves, conserved };
  const reveal = hand.reveal;
  const failed = verifyDeal(
    {
      handId: hand.handId,
      dealCommitment: deal.commitment,
      serverSeed: reveal?.serverSeed ?? "",
      contributions: reveal?.contributions ?? [],
      deck: reveal?.deck ?? [],
    },
    deal.contributions.map((c) => Buffer.from(c).toString("hex")),
  );
  log(failed === undefined ? "deal verified: the deck follows from the committed seed and our entropy" : `DEAL NOT VERIFIED: ${failed}`);
  return { hand, start, actions, moves, conserved, dealVerified: failed ?? "ok" };
}

function required(hand: HandUpdate | undefined): HandUpdate {
  if (hand === undefined) throw new Error("the server's response has no hand");
  return hand;
}

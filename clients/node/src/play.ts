#!/usr/bin/env node
// Plays one hand against a Stud Engine server and prints the result. Exit code 0 when
// the final stacks add up to the starting ones, 1 when they do not, 2 on a bad argument
// or a failed call.
//
//   node dist/play.js --target 127.0.0.1:50051 [--variant five|seven|razz|hilo]
//        [--players N] [--rake-bp N] [--rake-cap N] [--seed N] [--json]
//        [--transport grpc|connect|grpc-web] [--base-url URL] [--test-deck Ac,Kd,...]
//        [--verifiable]
//
// --verifiable deals with a deal ticket and each player's entropy and checks the deck
// at the end from the reveal (exit 1 when it does not follow; docs/security.md).

import { parseArgs } from "node:util";
import { Code, ConnectError } from "@connectrpc/connect";
import { baseUrlOf, StudClient, TRANSPORTS, type TransportKind } from "./client.js";
import { playHand, VARIANTS, type VariantName } from "./hand.js";
import { attemptsOf } from "./retry.js";

const USAGE = `usage: node dist/play.js [--target HOST:PORT | --base-url URL]
       [--transport grpc|connect|grpc-web] [--http-version 1.1|2] [--binary]
       [--variant five|seven|razz|hilo] [--players N] [--stack N] [--seed N] [--json]
       [--rake-bp N] [--rake-cap N] [--test-deck CARD,CARD,...] [--verifiable]
       [--attempts N] [--max-backoff-ms N] [--timeout-ms N]`;

interface Args {
  baseUrl: string;
  transport: TransportKind;
  httpVersion: "1.1" | "2";
  binary: boolean | undefined;
  variant: VariantName;
  players: number;
  stack: number;
  seed: number;
  rakeBp: number;
  rakeCap: number;
  testDeck: string[];
  verifiable: boolean;
  json: boolean;
  attempts: number;
  maxBackoffMs: number;
  timeoutMs: number;
}

function integer(flag: string, value: string, min: number): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < min) throw new Error(`--${flag} must be an integer >= ${min}`);
  return n;
}

function parse(argv: string[]): Args | "help" {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      target: { type: "string", default: "127.0.0.1:50051" },
      "base-url": { type: "string" },
      transport: { type: "string", default: "grpc" },
      "http-version": { type: "string", default: "1.1" },
      binary: { type: "boolean" },
      variant: { type: "string", default: "seven" },
      players: { type: "string", default: "4" },
      stack: { type: "string", default: "1000" },
      seed: { type: "string", default: "1" },
      "rake-bp": { type: "string", default: "0" },
      "rake-cap": { type: "string", default: "0" },
      "test-deck": { type: "string", default: "" },
      verifiable: { type: "boolean", default: false },
      json: { type: "boolean", default: false },
      attempts: { type: "string", default: "4" },
      "max-backoff-ms": { type: "string", default: "2000" },
      "timeout-ms": { type: "string", default: "10000" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) return "help";
  const transport = values.transport as TransportKind;
  if (!TRANSPORTS.includes(transport)) throw new Error(`--transport must be one of ${TRANSPORTS.join(", ")}`);
  const variant = values.variant as VariantName;
  if (!(variant in VARIANTS)) throw new Error(`--variant must be one of ${Object.keys(VARIANTS).join(", ")}`);
  if (values.verifiable && values["test-deck"] !== "") throw new Error("--verifiable and --test-deck exclude each other");
  const httpVersion = values["http-version"];
  if (httpVersion !== "1.1" && httpVersion !== "2") throw new Error("--http-version must be 1.1 or 2");
  return {
    baseUrl: values["base-url"] ?? baseUrlOf(values.target),
    transport,
    httpVersion,
    binary: values.binary,
    variant,
    players: integer("players", values.players, 2),
    stack: integer("stack", values.stack, 1),
    seed: integer("seed", values.seed, 0),
    rakeBp: integer("rake-bp", values["rake-bp"], 0),
    rakeCap: integer("rake-cap", values["rake-cap"], 0),
    testDeck: values["test-deck"].split(",").filter((c) => c !== ""),
    verifiable: values.verifiable,
    json: values.json,
    attempts: integer("attempts", values.attempts, 1),
    maxBackoffMs: integer("max-backoff-ms", values["max-backoff-ms"], 0),
    timeoutMs: integer("timeout-ms", values["timeout-ms"], 1),
  };
}

/** A chip count as a JSON number (chip counts stay far below 2^53). */
function chips(value: bigint): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new Error(`chip count ${value} is too large for JSON`);
  return n;
}

/** Code.Unavailable -> "UNAVAILABLE", the gRPC name. */
function codeName(code: Code): string {
  if (code === Code.Canceled) return "CANCELLED";
  return (Code[code] ?? "").replace(/([a-z])([A-Z])/g, "$1_$2").toUpperCase();
}

/** "UNAVAILABLE (status 14) after 4 attempts: connect ECONNREFUSED ..." */
function describe(error: unknown): string {
  if (!(error instanceof ConnectError)) return error instanceof Error ? error.message : String(error);
  const attempts = attemptsOf(error);
  const after = attempts > 1 ? ` after ${attempts} attempts` : "";
  return `${codeName(error.code)} (status ${error.code})${after}: ${error.rawMessage}`;
}

async function main(): Promise<number> {
  let args: Args;
  try {
    const parsed = parse(process.argv.slice(2));
    if (parsed === "help") {
      console.log(USAGE);
      return 0;
    }
    args = parsed;
  } catch (error) {
    console.error(`play: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  const client = new StudClient({
    baseUrl: args.baseUrl,
    transport: args.transport,
    httpVersion: args.httpVersion,
    ...(args.binary !== undefined ? { binary: args.binary } : {}),
    timeoutMs: args.timeoutMs,
    retry: { maxAttempts: args.attempts, maxDelayMs: args.maxBackoffMs },
    onRetry: (e) =>
      console.error(
        `play: ${e.method} failed with ${codeName(e.error.code)} (status ${e.error.code}); ` +
          `attempt ${e.attempt + 1} of ${e.maxAttempts} in ${e.delayMs} ms`,
      ),
  });
  try {
    const log = args.json ? () => {} : (line: string) => console.log(line);
    const { hand, start, actions, moves, conserved, dealVerified } = await playHand(client, { ...args, log });
    const pots = hand.result?.pots ?? [];
    const shown = hand.result?.shown ?? [];
    const stacks = hand.result?.stacks ?? [];
    if (args.json) {
      console.log(
        JSON.stringify({
          transport: args.transport,
          hand_id: hand.handId,
          button: hand.spectator?.button ?? null,
          seq: Number(hand.seq),
          actions,
          moves,
          pots: pots.map((p) => ({
            amount: chips(p.amount),
            eligible: p.eligible,
            winners: p.winners,
            shares: p.shares.map(chips),
            low_winners: p.lowWinners,
            low_shares: p.lowShares.map(chips),
          })),
          shown: shown.map((s) => ({
            seat: s.seat,
            cards: s.cards,
            description: s.description,
            low_description: s.lowDescription,
          })),
          rake: chips(hand.result?.rake ?? 0n),
          start_stacks: start.map(chips),
          stacks: stacks.map(chips),
          conserved,
          // with --verifiable only, as the Go and Java samples
          ...(dealVerified !== undefined
            ? { deal_commitment: hand.dealCommitment, deal_verified: dealVerified }
            : {}),
        }),
      );
    } else {
      pots.forEach((pot, i) => {
        const name = i === 0 ? "main pot" : `side pot ${i}`;
        const won = pot.winners.map((w, j) => `seat ${w} +${pot.shares[j]}`).join(", ");
        const low = pot.lowWinners.map((w, j) => `seat ${w} +${pot.lowShares[j]}`).join(", ");
        console.log(`${name} ${pot.amount}: ${low ? `high ${won}; low ${low}` : won}`);
      });
      shown.forEach((s) => {
        const low = s.lowDescription ? ` and ${s.lowDescription}` : "";
        console.log(`seat ${s.seat} showed ${s.cards.join(" ")}: ${s.description}${low}`);
      });
      const rake = hand.result?.rake ?? 0n;
      if (rake > 0n) console.log(`rake ${rake}`);
      console.log(`final stacks: ${stacks.join(" ")} (started ${start.join(" ")})`);
      console.log(conserved ? "chips conserved" : "CHIPS NOT CONSERVED");
    }
    return conserved && (dealVerified === undefined || dealVerified === "ok") ? 0 : 1;
  } catch (error) {
    console.error(`play: ${describe(error)}`);
    return 2;
  } finally {
    client.close();
  }
}

process.exitCode = await main();

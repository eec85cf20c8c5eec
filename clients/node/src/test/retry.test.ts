// Unit tests of the retry policy (node --test dist/test/), and of StudClient over all
// three transports against a real Connect server in this process whose handlers fail
// the way a dead or draining Stud Engine does.

import assert from "node:assert/strict";
import * as http from "node:http";
import * as http2 from "node:http2";
import { readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, type ConnectRouter } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { StudClient, TRANSPORTS } from "../client.js";
import { EvaluateResponseSchema, StudEngineService } from "../gen/stud/v1/stud_engine_pb.js";
import {
  attemptsOf,
  backoffMs,
  DEFAULT_RETRY_POLICY,
  type RetryEvent,
  retryPolicyOf,
  withRetries,
} from "../retry.js";

const FAST = { maxAttempts: 4, initialDelayMs: 1, maxDelayMs: 4 };

function failing(codes: Code[]): { calls: () => number; attempt: () => Promise<string> } {
  let calls = 0;
  return {
    calls: () => calls,
    attempt: async () => {
      const code = codes[calls];
      calls += 1;
      if (code === undefined) return "ok";
      throw new ConnectError("failed", code);
    },
  };
}

describe("backoffMs", () => {
  test("doubles from the initial delay, capped, with half of it random", () => {
    const policy = { maxAttempts: 10, initialDelayMs: 100, maxDelayMs: 1000 };
    assert.equal(backoffMs(1, policy, () => 0), 50);
    assert.equal(backoffMs(1, policy, () => 1), 100);
    assert.equal(backoffMs(3, policy, () => 1), 400);
    assert.equal(backoffMs(8, policy, () => 0), 500);
    assert.equal(backoffMs(8, policy, () => 1), 1000);
  });
});

describe("the service config", () => {
  test("DEFAULT_RETRY_POLICY is proto/service_config.json's retryPolicy", () => {
    const path = new URL("../../../../proto/service_config.json", import.meta.url);
    const config = JSON.parse(readFileSync(path, "utf8"));
    assert.deepEqual(retryPolicyOf(config), DEFAULT_RETRY_POLICY);
    assert.deepEqual(config.methodConfig[0].retryPolicy.retryableStatusCodes, ["UNAVAILABLE"]);
  });
});

describe("withRetries", () => {
  test("repeats UNAVAILABLE, then succeeds", async () => {
    const run = failing([Code.Unavailable, Code.Unavailable]);
    const events: RetryEvent[] = [];
    const got = await withRetries("M", run.attempt, {
      policy: FAST,
      retrySafe: true,
      onRetry: (e) => events.push(e),
    });
    assert.equal(got, "ok");
    assert.equal(run.calls(), 3);
    assert.deepEqual(
      events.map((e) => [e.attempt, e.error.code]),
      [
        [1, Code.Unavailable],
        [2, Code.Unavailable],
      ],
    );
  });

  test("gives up after maxAttempts with the last error", async () => {
    const run = failing(Array(10).fill(Code.Unavailable));
    await assert.rejects(
      withRetries("M", run.attempt, { policy: FAST, retrySafe: true }),
      (error: ConnectError) => error.code === Code.Unavailable && attemptsOf(error) === 4,
    );
    assert.equal(run.calls(), 4);
  });

  test("never repeats a refusal, CANCELLED, an unsafe call, or a call the caller cancelled", async () => {
    for (const code of [Code.FailedPrecondition, Code.Canceled, Code.ResourceExhausted]) {
      const refused = failing([code]);
      await assert.rejects(withRetries("M", refused.attempt, { policy: FAST, retrySafe: true }));
      assert.equal(refused.calls(), 1);
    }
    const unsafe = failing([Code.Unavailable]);
    await assert.rejects(withRetries("M", unsafe.attempt, { policy: FAST, retrySafe: false }));
    assert.equal(unsafe.calls(), 1);
    const controller = new AbortController();
    controller.abort();
    const cancelled = failing([Code.Canceled]);
    const options = { policy: FAST, retrySafe: true, signal: controller.signal };
    await assert.rejects(withRetries("M", cancelled.attempt, options));
    assert.equal(cancelled.calls(), 1);
  });
});

describe("StudClient over every transport", () => {
  const counts = { evaluate: 0, act: 0 };
  // Evaluate: UNAVAILABLE on every odd call (a draining server), then an answer.
  // Act: always UNAVAILABLE.
  const routes = (router: ConnectRouter): void => {
    router.service(StudEngineService, {
      evaluate() {
        counts.evaluate += 1;
        if (counts.evaluate % 2 === 1) throw new ConnectError("server is draining", Code.Unavailable);
        return create(EvaluateResponseSchema, {
          values: [{ rank: 42n, category: "High Card", description: "Ace high" }],
        });
      },
      act() {
        counts.act += 1;
        throw new ConnectError("no worker", Code.Unavailable);
      },
    });
  };
  const h1 = http.createServer(connectNodeAdapter({ routes }));
  const h2 = http2.createServer(connectNodeAdapter({ routes }));
  const url = (server: http.Server | http2.Http2Server): string =>
    `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  before(async () => {
    await new Promise<void>((resolve) => h1.listen(0, "127.0.0.1", resolve));
    await new Promise<void>((resolve) => h2.listen(0, "127.0.0.1", resolve));
  });
  after(() => {
    h1.close();
    h2.close();
  });

  for (const transport of TRANSPORTS) {
    for (const httpVersion of ["1.1", "2"] as const) {
      if (transport === "grpc" && httpVersion === "1.1") continue;
      test(`${transport} over HTTP/${httpVersion}: retries UNAVAILABLE, Act with or without expected_seq`, async () => {
        const baseUrl = url(httpVersion === "2" ? h2 : h1);
        const client = new StudClient({ baseUrl, transport, httpVersion, retry: FAST });
        try {
          counts.evaluate = 0;
          const answer = await client.evaluate({ hands: [{ cards: ["As", "Kd", "9c", "7h", "2s"] }] });
          assert.equal(answer.values[0]?.rank, 42n);
          assert.equal(counts.evaluate, 2);

          counts.act = 0;
          await assert.rejects(client.act({ seat: 0 }), { code: Code.Unavailable });
          assert.equal(counts.act, FAST.maxAttempts, "an Act is safe to repeat: its state has its seq");
          counts.act = 0;
          await assert.rejects(client.act({ seat: 0, expectedSeq: 3n }), { code: Code.Unavailable });
          assert.equal(counts.act, FAST.maxAttempts);
        } finally {
          client.close();
        }
      });
    }
  }
});

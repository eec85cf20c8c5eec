// StudClient sends the application's OpenTelemetry trace context (W3C traceparent) with
// every call, on every transport, to a real Connect server in this process; without an
// active span, nothing. The test sets up what an application's SDK would: a context
// manager over AsyncLocalStorage and a propagator writing the W3C header.

import assert from "node:assert/strict";
import { AsyncLocalStorage } from "node:async_hooks";
import * as http from "node:http";
import * as http2 from "node:http2";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import { create } from "@bufbuild/protobuf";
import type { ConnectRouter } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import {
  type Context,
  type ContextManager,
  context,
  propagation,
  ROOT_CONTEXT,
  type TextMapPropagator,
  trace,
  TraceFlags,
} from "@opentelemetry/api";
import { StudClient, TRANSPORTS } from "../client.js";
import { EvaluateResponseSchema, StudEngineService } from "../gen/stud/v1/stud_engine_pb.js";

const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const SPAN_ID = "00f067aa0ba902b7";

class StorageContextManager implements ContextManager {
  private readonly storage = new AsyncLocalStorage<Context>();
  active(): Context {
    return this.storage.getStore() ?? ROOT_CONTEXT;
  }
  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    ctx: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    return this.storage.run(ctx, () => fn.call(thisArg, ...args));
  }
  bind<T>(_ctx: Context, target: T): T {
    return target;
  }
  enable(): this {
    return this;
  }
  disable(): this {
    this.storage.disable();
    return this;
  }
}

const w3c: TextMapPropagator = {
  inject(ctx, carrier, setter) {
    const span = trace.getSpanContext(ctx);
    if (span === undefined) return;
    const flags = span.traceFlags.toString(16).padStart(2, "0");
    setter.set(carrier, "traceparent", `00-${span.traceId}-${span.spanId}-${flags}`);
  },
  extract: (ctx) => ctx,
  fields: () => ["traceparent"],
};

describe("StudClient carries the trace context", () => {
  const seen: (string | null)[] = [];
  const routes = (router: ConnectRouter): void => {
    router.service(StudEngineService, {
      evaluate(_request, ctx) {
        seen.push(ctx.requestHeader.get("traceparent"));
        return create(EvaluateResponseSchema, { values: [] });
      },
    });
  };
  const h1 = http.createServer(connectNodeAdapter({ routes }));
  const h2 = http2.createServer(connectNodeAdapter({ routes }));
  const url = (server: http.Server | http2.Http2Server): string =>
    `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  before(async () => {
    context.setGlobalContextManager(new StorageContextManager());
    propagation.setGlobalPropagator(w3c);
    await new Promise<void>((resolve) => h1.listen(0, "127.0.0.1", resolve));
    await new Promise<void>((resolve) => h2.listen(0, "127.0.0.1", resolve));
  });
  after(() => {
    h1.close();
    h2.close();
    context.disable();
    propagation.disable();
  });

  for (const transport of TRANSPORTS) {
    for (const httpVersion of ["1.1", "2"] as const) {
      if (transport === "grpc" && httpVersion === "1.1") continue;
      test(`${transport} over HTTP/${httpVersion}: traceparent of the active span, none without`, async () => {
        const baseUrl = url(httpVersion === "2" ? h2 : h1);
        const client = new StudClient({ baseUrl, transport, httpVersion });
        const active = trace.setSpanContext(ROOT_CONTEXT, {
          traceId: TRACE_ID,
          spanId: SPAN_ID,
          traceFlags: TraceFlags.SAMPLED,
        });
        try {
          seen.length = 0;
          await context.with(active, () => client.evaluate({ hands: [] }));
          await client.evaluate({ hands: [] });
          assert.deepEqual(seen, [`00-${TRACE_ID}-${SPAN_ID}-01`, null]);
        } finally {
          client.close();
        }
      });
    }
  }
});

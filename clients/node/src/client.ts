// A typed client of stud.v1.StudEngineService over gRPC, Connect or gRPC-Web, with
// bounded retries (see retry.ts). The request and response types are generated from
// proto/stud/v1 by protoc-gen-es into src/gen (`make node-client`).

import type { MessageInitShape } from "@bufbuild/protobuf";
import { type CallOptions, type Client, createClient, type Transport } from "@connectrpc/connect";
import {
  createConnectTransport,
  createGrpcTransport,
  createGrpcWebTransport,
  Http2SessionManager,
} from "@connectrpc/connect-node";
import {
  type ActRequestSchema,
  type ActResponse,
  type CreateDealTicketRequestSchema,
  type CreateDealTicketResponse,
  type EquityRequestSchema,
  type EquityResponse,
  type EvaluateRequestSchema,
  type EvaluateResponse,
  type GetViewRequestSchema,
  type GetViewResponse,
  type StartHandRequestSchema,
  type StartHandResponse,
  StudEngineService,
} from "./gen/stud/v1/stud_engine_pb.js";
import { DEFAULT_RETRY_POLICY, type RetryEvent, type RetryPolicy, withRetries } from "./retry.js";
import { traceContext } from "./tracing.js";

/** The wire protocols: gRPC (the gRPC port), Connect and gRPC-Web (the HTTP port). */
export const TRANSPORTS = ["grpc", "connect", "grpc-web"] as const;
export type TransportKind = (typeof TRANSPORTS)[number];

export interface StudClientOptions {
  /** The server's URL, e.g. "http://127.0.0.1:50051". */
  baseUrl: string;
  /** Default "grpc". */
  transport?: TransportKind;
  /** HTTP version of the Connect and gRPC-Web transports (gRPC is always HTTP/2). */
  httpVersion?: "1.1" | "2";
  /** The binary protobuf format (default for gRPC-Web) or JSON (default for Connect). */
  binary?: boolean;
  /** Per-attempt deadline of each call; default 10 s. */
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  onRetry?: (event: RetryEvent) => void;
}

/** "127.0.0.1:50051" -> "http://127.0.0.1:50051"; a URL stays as it is. */
export function baseUrlOf(target: string): string {
  return /^https?:\/\//.test(target) ? target : `http://${target}`;
}

type StartHandInit = MessageInitShape<typeof StartHandRequestSchema>;
type ActInit = MessageInitShape<typeof ActRequestSchema>;
type GetViewInit = MessageInitShape<typeof GetViewRequestSchema>;
type EvaluateInit = MessageInitShape<typeof EvaluateRequestSchema>;
type EquityInit = MessageInitShape<typeof EquityRequestSchema>;
type CreateDealTicketInit = MessageInitShape<typeof CreateDealTicketRequestSchema>;
export type { ActInit, CreateDealTicketInit, EquityInit, EvaluateInit, GetViewInit, StartHandInit };

/** The transport the options ask for, and its HTTP/2 session (closed by close()). */
function makeTransport(options: StudClientOptions): {
  transport: Transport;
  sessions: Http2SessionManager | undefined;
} {
  const { baseUrl } = options;
  const kind = options.transport ?? "grpc";
  const useBinaryFormat = options.binary ?? kind !== "connect";
  const interceptors = [traceContext]; // W3C traceparent, when the application traces
  if (kind === "grpc") {
    const sessionManager = new Http2SessionManager(baseUrl);
    const transport = createGrpcTransport({ baseUrl, sessionManager, interceptors });
    return { transport, sessions: sessionManager };
  }
  const create = kind === "connect" ? createConnectTransport : createGrpcWebTransport;
  if (options.httpVersion === "2") {
    const sessionManager = new Http2SessionManager(baseUrl);
    const transport = create({
      baseUrl,
      httpVersion: "2",
      sessionManager,
      useBinaryFormat,
      interceptors,
    });
    return { transport, sessions: sessionManager };
  }
  const transport = create({ baseUrl, httpVersion: "1.1", useBinaryFormat, interceptors });
  return { transport, sessions: undefined };
}

/**
 * The service's methods, each retried on UNAVAILABLE (bounded, with backoff, as
 * proto/service_config.json says; never on CANCELLED). Every one is safe to repeat:
 * the server keeps nothing, and Act's state carries its own seq, so a repeated Act
 * returns the same next state (seq + 1) whether or not the first attempt was applied.
 * expected_seq is a self-check (the state brought is the one the caller meant), not an
 * idempotency key; a back-end storing states does compare-and-set on seq itself. A
 * repeated CreateDealTicket only draws a fresh ticket (the unused one expires). Call
 * close() when done.
 */
export class StudClient {
  readonly transport: Transport;
  readonly rpc: Client<typeof StudEngineService>;
  private readonly policy: RetryPolicy;
  private readonly timeoutMs: number;
  private readonly onRetry: ((event: RetryEvent) => void) | undefined;
  private readonly sessions: Http2SessionManager | undefined;

  constructor(options: StudClientOptions) {
    const made = makeTransport(options);
    this.transport = made.transport;
    this.sessions = made.sessions;
    this.rpc = createClient(StudEngineService, this.transport);
    this.policy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.onRetry = options.onRetry;
  }

  private call<T>(
    method: string,
    retrySafe: boolean,
    send: (options: CallOptions) => Promise<T>,
    options: CallOptions = {},
  ): Promise<T> {
    const perAttempt: CallOptions = { timeoutMs: this.timeoutMs, ...options };
    return withRetries(method, () => send(perAttempt), {
      policy: this.policy,
      retrySafe,
      signal: options.signal,
      onRetry: this.onRetry,
    });
  }

  startHand(request: StartHandInit, options?: CallOptions): Promise<StartHandResponse> {
    return this.call("StartHand", true, (o) => this.rpc.startHand(request, o), options);
  }

  act(request: ActInit, options?: CallOptions): Promise<ActResponse> {
    return this.call("Act", true, (o) => this.rpc.act(request, o), options);
  }

  getView(request: GetViewInit, options?: CallOptions): Promise<GetViewResponse> {
    return this.call("GetView", true, (o) => this.rpc.getView(request, o), options);
  }

  evaluate(request: EvaluateInit, options?: CallOptions): Promise<EvaluateResponse> {
    return this.call("Evaluate", true, (o) => this.rpc.evaluate(request, o), options);
  }

  equity(request: EquityInit, options?: CallOptions): Promise<EquityResponse> {
    return this.call("Equity", true, (o) => this.rpc.equity(request, o), options);
  }

  /** A deal ticket for StartHand's verifiable deal (docs/security.md). */
  createDealTicket(
    request: CreateDealTicketInit,
    options?: CallOptions,
  ): Promise<CreateDealTicketResponse> {
    return this.call("CreateDealTicket", true, (o) => this.rpc.createDealTicket(request, o), options);
  }

  /** Closes the HTTP/2 connection, if any (HTTP/1.1 sockets close when idle). */
  close(): void {
    this.sessions?.abort();
  }
}

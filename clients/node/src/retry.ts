// Bounded retries with exponential backoff for calls that are safe to repeat.
//
// Every Stud Engine method is a pure function of its request (the server keeps nothing),
// so a call that failed with UNAVAILABLE (no server answered, or one that is shutting
// down refused it: ErrorInfo SERVER_DRAINING) can be sent again: the same Act request
// gives the same next hand, since the state it brings carries its own seq. The policy
// is proto/service_config.json's retryPolicy (a test keeps DEFAULT_RETRY_POLICY equal to
// it): UNAVAILABLE only. CANCELLED is never repeated (gRPC's guidance, AIP-194): the
// server sends it only for work whose caller has gone.

import { Code, ConnectError } from "@connectrpc/connect";

/** How often and how patiently a call is repeated. */
export interface RetryPolicy {
  /** Attempts in all, the first one included (1: no retries). */
  maxAttempts: number;
  /** The delay before the first retry; it doubles each time, up to maxDelayMs. */
  initialDelayMs: number;
  /** The longest delay between two attempts. */
  maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = {
  maxAttempts: 4,
  initialDelayMs: 100,
  maxDelayMs: 1000,
};

/** The retryPolicy of a gRPC service config (proto/service_config.json) as a RetryPolicy. */
export function retryPolicyOf(serviceConfig: {
  methodConfig: { retryPolicy: { maxAttempts: number; initialBackoff: string; maxBackoff: string } }[];
}): RetryPolicy {
  const policy = serviceConfig.methodConfig[0]?.retryPolicy;
  if (policy === undefined) throw new Error("the service config has no retryPolicy");
  const ms = (duration: string): number => Math.round(Number.parseFloat(duration) * 1000);
  return {
    maxAttempts: policy.maxAttempts,
    initialDelayMs: ms(policy.initialBackoff),
    maxDelayMs: ms(policy.maxBackoff),
  };
}

/** What the onRetry hook hears before each repeated attempt. */
export interface RetryEvent {
  method: string;
  /** The attempt that failed, from 1. */
  attempt: number;
  maxAttempts: number;
  error: ConnectError;
  delayMs: number;
}

/** True for a failure worth another attempt: UNAVAILABLE (the service config's only
 * retryable code), unless the caller has given up. */
export function isRetryable(error: ConnectError, signal?: AbortSignal): boolean {
  return error.code === Code.Unavailable && !(signal?.aborted ?? false);
}

/**
 * The delay before retry number `attempt` (1 = the first retry): exponential, capped,
 * with "equal jitter" (half fixed, half random) so many clients do not retry in step.
 */
export function backoffMs(
  attempt: number,
  policy: RetryPolicy,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** (attempt - 1));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(ConnectError.from(signal.reason, Code.Canceled));
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(ConnectError.from(signal?.reason, Code.Canceled));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** Options of one call made through withRetries. */
export interface RetryOptions {
  policy: RetryPolicy;
  /** Whether this request may be repeated at all (an Act without expected_seq may not). */
  retrySafe: boolean;
  /** The caller's signal: once it fires, nothing is repeated. */
  signal?: AbortSignal | undefined;
  onRetry?: ((event: RetryEvent) => void) | undefined;
  random?: () => number;
}

const attemptsMade = new WeakMap<ConnectError, number>();

/** How many attempts withRetries made before it threw this error (1 when not retried). */
export function attemptsOf(error: ConnectError): number {
  return attemptsMade.get(error) ?? 1;
}

/**
 * Runs `attempt` until it succeeds, fails for good, or runs out of attempts; throws the
 * last failure as a ConnectError (attemptsOf tells how many attempts were made).
 */
export async function withRetries<T>(
  method: string,
  attempt: () => Promise<T>,
  options: RetryOptions,
): Promise<T> {
  const { policy, retrySafe, signal, onRetry } = options;
  const maxAttempts = retrySafe ? Math.max(1, policy.maxAttempts) : 1;
  for (let n = 1; ; n += 1) {
    try {
      return await attempt();
    } catch (caught) {
      const error = ConnectError.from(caught);
      if (!isRetryable(error, signal) || n >= maxAttempts) {
        attemptsMade.set(error, n);
        throw error;
      }
      const delayMs = backoffMs(n, policy, options.random);
      onRetry?.({ method, attempt: n, maxAttempts, error, delayMs });
      await sleep(delayMs, signal);
    }
  }
}

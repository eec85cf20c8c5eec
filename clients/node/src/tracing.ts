// W3C trace context on every call: the interceptor asks OpenTelemetry's global
// propagator to write the active context's headers (traceparent, tracestate) into the
// request, gRPC metadata or Connect headers alike. Without an OpenTelemetry SDK set up
// by the application, the API's propagator is a no-op and nothing is added.

import type { Interceptor } from "@connectrpc/connect";
import { context, propagation } from "@opentelemetry/api";

/** Sends the active OpenTelemetry context's trace headers with each call. */
export const traceContext: Interceptor = (next) => async (request) => {
  propagation.inject(context.active(), request.header, {
    set: (headers, key, value) => headers.set(key, value),
  });
  return await next(request);
};

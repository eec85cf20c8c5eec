package stud

// W3C trace context on every call, with OpenTelemetry-Go's propagation (Debian's
// golang-opentelemetry-otel-dev): the connection's unary interceptor writes the call
// context's span context into the call's outgoing gRPC metadata (traceparent,
// tracestate), where the engine reads its caller. Debian does not package otelgrpc, so
// this client makes no client span of its own: the engine's span is a child of the span
// the caller's context holds.

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
)

// ErrTraceparent: a traceparent that is not W3C trace context's
// (version-traceid-spanid-flags, lower-case hex, neither id all zeros).
var ErrTraceparent = errors.New("not a valid W3C traceparent")

// version00Length is the length of a version 00 traceparent: 2+1+32+1+16+1+2.
const version00Length = 55

// ContextWithTraceparent returns ctx holding the remote span context that a W3C
// traceparent (and tracestate, "" for none) name, for a caller whose tracer is not
// OpenTelemetry-Go: the calls made with the returned context carry them, and the
// engine's spans become children of that span. It is read by OpenTelemetry's own W3C
// parser (propagation.TraceContext), and a version 00 must be exactly its 55 characters
// (Debian's OpenTelemetry 1.1.0 lets text follow it, which the W3C format forbids); a
// traceparent not accepted is ErrTraceparent, a tracestate that is not a valid list an
// error too (the caller asked for it).
func ContextWithTraceparent(ctx context.Context, traceparent, tracestate string) (context.Context, error) {
	if strings.HasPrefix(traceparent, "00-") && len(traceparent) != version00Length {
		return nil, fmt.Errorf("%w: %q", ErrTraceparent, traceparent)
	}
	carrier := metadata.Pairs("traceparent", traceparent)
	if tracestate != "" {
		if _, err := trace.ParseTraceState(tracestate); err != nil {
			return nil, fmt.Errorf("tracestate %q: %w", tracestate, err)
		}
		carrier.Set("tracestate", tracestate)
	}
	with := propagation.TraceContext{}.Extract(ctx, metadataCarrier(carrier))
	if !trace.SpanContextFromContext(with).IsValid() {
		return nil, fmt.Errorf("%w: %q", ErrTraceparent, traceparent)
	}
	return with, nil
}

// metadataCarrier lets a propagator write into (and read) gRPC metadata.
type metadataCarrier metadata.MD

func (c metadataCarrier) Get(key string) string {
	if values := metadata.MD(c).Get(key); len(values) > 0 {
		return values[0]
	}
	return ""
}

func (c metadataCarrier) Set(key, value string) { metadata.MD(c).Set(key, value) }

func (c metadataCarrier) Keys() []string {
	keys := make([]string, 0, len(c))
	for key := range c {
		keys = append(keys, key)
	}
	return keys
}

// injectTraceContext is the unary interceptor that adds what propagator() writes of the
// call context (W3C: its span context's traceparent and tracestate) to the call's
// outgoing metadata, replacing the caller's own values of those keys and keeping the
// rest. A nil propagator, or a context without a span context, adds nothing.
func injectTraceContext(propagator func() propagation.TextMapPropagator) grpc.UnaryClientInterceptor {
	return func(ctx context.Context, method string, req, reply interface{}, cc *grpc.ClientConn,
		invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		if p := propagator(); p != nil {
			injected := metadata.MD{}
			p.Inject(ctx, metadataCarrier(injected))
			if len(injected) > 0 {
				md, _ := metadata.FromOutgoingContext(ctx)
				md = md.Copy()
				for key, values := range injected {
					md[key] = values
				}
				ctx = metadata.NewOutgoingContext(ctx, md)
			}
		}
		return invoker(ctx, method, req, reply, cc, opts...)
	}
}

package stud

import (
	"context"
	"errors"
	"testing"

	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
)

const (
	traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
	spanID  = "00f067aa0ba902b7"
	sampled = "00-" + traceID + "-" + spanID + "-01"
)

func TestContextWithTraceparentKeepsAValidOne(t *testing.T) {
	ctx, err := ContextWithTraceparent(context.Background(), sampled, "vendor=opaque,other=x")
	if err != nil {
		t.Fatal(err)
	}
	sc := trace.SpanContextFromContext(ctx)
	if sc.TraceID().String() != traceID || sc.SpanID().String() != spanID || !sc.IsSampled() || !sc.IsRemote() {
		t.Fatalf("span context %+v", sc)
	}
	if sc.TraceState().String() != "vendor=opaque,other=x" {
		t.Fatalf("tracestate %q", sc.TraceState().String())
	}
	unsampled := "00-" + traceID + "-" + spanID + "-00"
	if ctx, err = ContextWithTraceparent(context.Background(), unsampled, ""); err != nil {
		t.Fatal(err)
	}
	if trace.SpanContextFromContext(ctx).IsSampled() {
		t.Fatal("flags 00 read as sampled")
	}
}

func TestContextWithTraceparentRefusesWhatW3CDoesNot(t *testing.T) {
	for name, traceparent := range map[string]string{
		"empty":             "",
		"upper-case hex":    "00-" + "4BF92F3577B34DA6A3CE929D0E0E4736" + "-" + spanID + "-01",
		"trace id zeros":    "00-00000000000000000000000000000000-" + spanID + "-01",
		"span id zeros":     "00-" + traceID + "-0000000000000000-01",
		"version ff":        "ff-" + traceID + "-" + spanID + "-01",
		"short trace id":    "00-" + traceID[:30] + "-" + spanID + "-01",
		"short span id":     "00-" + traceID + "-" + spanID[:14] + "-01",
		"no flags":          "00-" + traceID + "-" + spanID,
		"not hex":           "00-" + traceID[:31] + "g-" + spanID + "-01",
		"version 00 extra":  sampled + "-extra",
		"spaces around":     " " + sampled + " ",
		"underscore joined": "00_" + traceID + "_" + spanID + "_01",
	} {
		if _, err := ContextWithTraceparent(context.Background(), traceparent, ""); !errors.Is(err, ErrTraceparent) {
			t.Errorf("%s: %q gave %v, not ErrTraceparent", name, traceparent, err)
		}
	}
	if _, err := ContextWithTraceparent(context.Background(), sampled, "no equals sign"); err == nil {
		t.Error("an invalid tracestate was accepted")
	}
}

// outgoing runs the interceptor on ctx and returns the metadata the call would send.
func outgoing(t *testing.T, ctx context.Context, propagator propagation.TextMapPropagator) metadata.MD {
	t.Helper()
	var sent metadata.MD
	invoker := func(ctx context.Context, _ string, _, _ interface{}, _ *grpc.ClientConn, _ ...grpc.CallOption) error {
		sent, _ = metadata.FromOutgoingContext(ctx)
		return nil
	}
	interceptor := injectTraceContext(func() propagation.TextMapPropagator { return propagator })
	if err := interceptor(ctx, "/stud.v1.StudEngineService/Act", nil, nil, nil, invoker); err != nil {
		t.Fatal(err)
	}
	return sent
}

func TestTheInterceptorSendsTheContextsTraceparentAndKeepsOtherMetadata(t *testing.T) {
	ctx, err := ContextWithTraceparent(context.Background(), sampled, "vendor=opaque")
	if err != nil {
		t.Fatal(err)
	}
	ctx = metadata.AppendToOutgoingContext(ctx, "x-caller", "kept", "traceparent", "replaced")
	sent := outgoing(t, ctx, propagation.TraceContext{})
	if got := sent.Get("traceparent"); len(got) != 1 || got[0] != sampled {
		t.Errorf("traceparent %q, want [%q]", got, sampled)
	}
	if got := sent.Get("tracestate"); len(got) != 1 || got[0] != "vendor=opaque" {
		t.Errorf("tracestate %q", got)
	}
	if got := sent.Get("x-caller"); len(got) != 1 || got[0] != "kept" {
		t.Errorf("x-caller %q", got)
	}
	if got := outgoing(t, context.Background(), propagation.TraceContext{}); len(got.Get("traceparent")) != 0 {
		t.Errorf("a context without a span sent %q", got)
	}
	if got := outgoing(t, ctx, nil).Get("traceparent"); len(got) != 1 || got[0] != "replaced" {
		t.Errorf("with no propagator the caller's own metadata went as %q", got)
	}
}

// Package stud is a sample game back-end for the Stud Engine in Go: a connection that
// retries as proto/service_config.json says, the newest state of each hand kept with
// compare-and-set on its seq, refusals read from their google.rpc.ErrorInfo, a hand
// played to the end by seeded choices (the same choices as the TypeScript client's), and
// the caller's W3C trace context sent with every call.
//
// Every call takes the caller's context.Context: its deadline, its cancellation, its
// outgoing gRPC metadata and its trace context go with the call.
package stud

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"go.opentelemetry.io/otel/propagation"
	"google.golang.org/grpc"

	serviceconfig "github.com/stud-engine/stud-engine/clients/go/gen/serviceconfig"
	studv1 "github.com/stud-engine/stud-engine/clients/go/gen/stud/v1"
)

// RetryEnv is the variable that turns on gRPC-Go's retries in the Debian release (1.33:
// they are off unless it is "on"; from 1.40 they are on by default).
const RetryEnv = "GRPC_GO_RETRY"

// Client is one connection to a Stud Engine server.
type Client struct {
	conn *grpc.ClientConn
	// Engine is the generated stub on the same connection (trace context included).
	Engine studv1.StudEngineServiceClient
	// Timeout, when not zero, bounds each call (retries included) to that long from its
	// start; a sooner deadline of the caller's context wins.
	Timeout time.Duration
	// Propagator writes the call context's trace context into each call's metadata:
	// propagation.TraceContext{} (W3C traceparent and tracestate, what the engine reads)
	// from Dial. Set otel.GetTextMapPropagator() to send what the application's global
	// propagator sends, or nil to send none. Set it before the first call.
	Propagator propagation.TextMapPropagator
}

// Dial connects to target (host:port) in plaintext with the shipped service config: its
// retryPolicy repeats a call that failed with UNAVAILABLE (no server answered, or one
// that is draining refused it), up to 4 attempts with backoff. It never retries
// CANCELLED. The caller must have RetryEnv set to "on" before the process started
// (cmd/go-play re-executes itself with it). Each call carries the W3C trace context of
// its context (Client.Propagator).
func Dial(target string, timeout time.Duration) (*Client, error) {
	if !strings.EqualFold(os.Getenv(RetryEnv), "on") {
		return nil, fmt.Errorf("%s=on is needed for the service config's retries", RetryEnv)
	}
	client := &Client{Timeout: timeout, Propagator: propagation.TraceContext{}}
	conn, err := grpc.Dial(target, grpc.WithInsecure(),
		grpc.WithDefaultServiceConfig(serviceconfig.JSON),
		grpc.WithUnaryInterceptor(injectTraceContext(func() propagation.TextMapPropagator {
			return client.Propagator
		})))
	if err != nil {
		return nil, err
	}
	client.conn, client.Engine = conn, studv1.NewStudEngineServiceClient(conn)
	return client, nil
}

// Close closes the connection.
func (c *Client) Close() error { return c.conn.Close() }

// bounded is ctx with the client's Timeout, if it has one.
func (c *Client) bounded(ctx context.Context) (context.Context, context.CancelFunc) {
	if c.Timeout <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, c.Timeout)
}

// StartHand starts a hand.
func (c *Client) StartHand(ctx context.Context, req *studv1.StartHandRequest) (*studv1.HandUpdate, error) {
	ctx, cancel := c.bounded(ctx)
	defer cancel()
	resp, err := c.Engine.StartHand(ctx, req)
	if err != nil {
		return nil, err
	}
	return resp.GetHand(), nil
}

// CreateDealTicket asks for a deal ticket: the server's committed seed for one hand of
// these settings and players (a verifiable deal; docs/security.md).
func (c *Client) CreateDealTicket(ctx context.Context, req *studv1.CreateDealTicketRequest) (*studv1.DealTicket, error) {
	ctx, cancel := c.bounded(ctx)
	defer cancel()
	resp, err := c.Engine.CreateDealTicket(ctx, req)
	if err != nil {
		return nil, err
	}
	return resp.GetTicket(), nil
}

// Act sends one move. Safe to retry (the service config does on UNAVAILABLE): the state
// carries its own seq, so a repeated Act computes the same next state again.
func (c *Client) Act(ctx context.Context, req *studv1.ActRequest) (*studv1.HandUpdate, error) {
	ctx, cancel := c.bounded(ctx)
	defer cancel()
	resp, err := c.Engine.Act(ctx, req)
	if err != nil {
		return nil, err
	}
	return resp.GetHand(), nil
}

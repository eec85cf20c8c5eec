// Package stud is a sample game back-end for the Stud Engine in Go: a connection that
// retries as proto/service_config.json says, the newest state of each hand kept with
// compare-and-set on its seq, refusals read from their google.rpc.ErrorInfo, and a hand
// played to the end by seeded choices (the same choices as the TypeScript client's).
package stud

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"google.golang.org/grpc"

	serviceconfig "github.com/stud-engine/stud-engine/clients/go/gen/serviceconfig"
	studv1 "github.com/stud-engine/stud-engine/clients/go/gen/stud/v1"
)

// RetryEnv is the variable that turns on gRPC-Go's retries in the Debian release (1.33:
// they are off unless it is "on"; from 1.40 they are on by default).
const RetryEnv = "GRPC_GO_RETRY"

// Client is one connection to a Stud Engine server.
type Client struct {
	conn    *grpc.ClientConn
	Engine  studv1.StudEngineServiceClient
	Timeout time.Duration
}

// Dial connects to target (host:port) in plaintext with the shipped service config: its
// retryPolicy repeats a call that failed with UNAVAILABLE (no server answered, or one
// that is draining refused it), up to 4 attempts with backoff. It never retries
// CANCELLED. The caller must have RetryEnv set to "on" before the process started
// (cmd/go-play re-executes itself with it).
func Dial(target string, timeout time.Duration) (*Client, error) {
	if !strings.EqualFold(os.Getenv(RetryEnv), "on") {
		return nil, fmt.Errorf("%s=on is needed for the service config's retries", RetryEnv)
	}
	conn, err := grpc.Dial(target, grpc.WithInsecure(),
		grpc.WithDefaultServiceConfig(serviceconfig.JSON))
	if err != nil {
		return nil, err
	}
	return &Client{conn: conn, Engine: studv1.NewStudEngineServiceClient(conn), Timeout: timeout}, nil
}

// Close closes the connection.
func (c *Client) Close() error { return c.conn.Close() }

func (c *Client) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), c.Timeout)
}

// StartHand starts a hand.
func (c *Client) StartHand(req *studv1.StartHandRequest) (*studv1.HandUpdate, error) {
	ctx, cancel := c.ctx()
	defer cancel()
	resp, err := c.Engine.StartHand(ctx, req)
	if err != nil {
		return nil, err
	}
	return resp.GetHand(), nil
}

// CreateDealTicket asks for a deal ticket: the server's committed seed for one hand of
// these settings and players (a verifiable deal; docs/security.md).
func (c *Client) CreateDealTicket(req *studv1.CreateDealTicketRequest) (*studv1.DealTicket, error) {
	ctx, cancel := c.ctx()
	defer cancel()
	resp, err := c.Engine.CreateDealTicket(ctx, req)
	if err != nil {
		return nil, err
	}
	return resp.GetTicket(), nil
}

// Act sends one move. Safe to retry (the service config does on UNAVAILABLE): the state
// carries its own seq, so a repeated Act computes the same next state again.
func (c *Client) Act(req *studv1.ActRequest) (*studv1.HandUpdate, error) {
	ctx, cancel := c.ctx()
	defer cancel()
	resp, err := c.Engine.Act(ctx, req)
	if err != nil {
		return nil, err
	}
	return resp.GetHand(), nil
}

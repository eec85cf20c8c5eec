// Command go-play plays one hand of stud against a Stud Engine server over gRPC and
// prints how it ended (with --json, one line in the TypeScript client's format). Exit
// status: 0 the hand ended with the chips conserved, 1 it did not, 2 a call failed.
//
//	go-play --target HOST:PORT [--variant five|seven|razz|hilo] [--players N]
//	        [--stack N] [--seed N] [--rake-bp N] [--rake-cap N] [--test-deck Ac,Kd,...]
//	        [--timeout-ms N] [--json] [--verifiable] [--traceparent TP [--tracestate TS]]
//
// --verifiable deals with a deal ticket and each player's entropy (crypto/rand) and
// checks at the end that the revealed seed matches the commitment and the deck follows
// from it (exit 1 when not; docs/security.md).
//
// --traceparent sends a W3C trace context with every call (as a caller's tracer would
// through the call's context): the engine's spans of this hand become children of that
// span. Ctrl-C cancels the call in flight.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/stud-engine/stud-engine/clients/go/stud"
)

func main() {
	// gRPC-Go 1.33 (Debian's) reads its retry switch once, at start-up
	if !strings.EqualFold(os.Getenv(stud.RetryEnv), "on") {
		self, err := os.Executable()
		if err == nil {
			env := append(os.Environ(), stud.RetryEnv+"=on")
			err = syscall.Exec(self, os.Args, env)
		}
		fmt.Fprintf(os.Stderr, "go-play: cannot restart with %s=on: %v\n", stud.RetryEnv, err)
		os.Exit(2)
	}
	os.Exit(run())
}

func run() int {
	target := flag.String("target", "127.0.0.1:50051", "the engine's address, host:port")
	variant := flag.String("variant", "seven", "five, seven, razz or hilo")
	players := flag.Int("players", 4, "players at the table")
	stack := flag.Int64("stack", 1000, "each player's starting stack")
	seed := flag.Uint("seed", 1, "seed of the choices (the TypeScript client's, same seed same moves)")
	rakeBp := flag.Uint("rake-bp", 0, "rake in basis points of the pot (0: none)")
	rakeCap := flag.Int64("rake-cap", 0, "the most rake taken from a hand (0: no cap)")
	testDeck := flag.String("test-deck", "", "a chosen deck, comma-separated (servers with --allow-test-decks)")
	timeoutMs := flag.Int("timeout-ms", 10000, "deadline of each call, retries included")
	asJSON := flag.Bool("json", false, "print one JSON line")
	verifiable := flag.Bool("verifiable", false, "deal with a deal ticket and the players' entropy, and check the deck")
	traceparent := flag.String("traceparent", "", "a W3C traceparent (00-TRACEID-SPANID-FLAGS) to send with every call")
	tracestate := flag.String("tracestate", "", "a W3C tracestate to send with it")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *traceparent != "" || *tracestate != "" {
		var err error
		if ctx, err = stud.ContextWithTraceparent(ctx, *traceparent, *tracestate); err != nil {
			fmt.Fprintf(os.Stderr, "go-play: %v\n", err)
			return 2
		}
	}

	client, err := stud.Dial(*target, time.Duration(*timeoutMs)*time.Millisecond)
	if err != nil {
		fmt.Fprintf(os.Stderr, "go-play: %v\n", err)
		return 2
	}
	defer client.Close()
	deck := []string{}
	if *testDeck != "" {
		deck = strings.Split(*testDeck, ",")
	}
	played, err := stud.PlayHand(ctx, client, stud.NewStore(), stud.Options{Variant: *variant,
		Players: *players, Stack: *stack, Seed: uint32(*seed), RakeBp: uint32(*rakeBp),
		RakeCap: *rakeCap, TestDeck: deck, Verifiable: *verifiable})
	if err != nil {
		if refusal := stud.RefusalOf(err); refusal != nil {
			err = refusal
		}
		fmt.Fprintf(os.Stderr, "go-play: %v\n", err)
		return 2
	}
	if *asJSON {
		line, err := json.Marshal(report(played))
		if err != nil {
			fmt.Fprintf(os.Stderr, "go-play: %v\n", err)
			return 2
		}
		fmt.Println(string(line))
	} else {
		printHand(played)
	}
	if !played.Conserved || played.DealVerified != nil {
		return 1
	}
	return 0
}

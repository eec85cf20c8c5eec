package main

import (
	"fmt"
	"strings"
	"unicode"

	"google.golang.org/grpc/codes"

	"github.com/stud-engine/stud-engine/clients/go/stud"
)

type pot struct {
	Amount     int64   `json:"amount"`
	Eligible   []int32 `json:"eligible"`
	Winners    []int32 `json:"winners"`
	Shares     []int64 `json:"shares"`
	LowWinners []int32 `json:"low_winners"`
	LowShares  []int64 `json:"low_shares"`
}

type shown struct {
	Seat           int32    `json:"seat"`
	Cards          []string `json:"cards"`
	Description    string   `json:"description"`
	LowDescription string   `json:"low_description"`
}

type refusal struct {
	Code       string            `json:"code"`
	Reason     string            `json:"reason"`
	Metadata   map[string]string `json:"metadata"`
	RetryAfter string            `json:"retry_after,omitempty"`
}

// The TypeScript client's --json line, and the refusal the probe read.
type result struct {
	Transport   string      `json:"transport"`
	HandID      string      `json:"hand_id"`
	Button      int32       `json:"button"`
	Seq         uint64      `json:"seq"`
	Actions     int         `json:"actions"`
	Moves       []stud.Move `json:"moves"`
	Pots        []pot       `json:"pots"`
	Shown       []shown     `json:"shown"`
	Rake        int64       `json:"rake"`
	StartStacks []int64     `json:"start_stacks"`
	Stacks      []int64     `json:"stacks"`
	Conserved   bool        `json:"conserved"`
	Refusal     *refusal    `json:"refusal"`
	// with --verifiable: the ticket's commitment and "ok" or the failing field
	DealCommitment string `json:"deal_commitment,omitempty"`
	DealVerified   string `json:"deal_verified,omitempty"`
}

func orEmpty[T any](xs []T) []T {
	if xs == nil {
		return []T{}
	}
	return xs
}

// codeName is gRPC's name of a code: codes.FailedPrecondition -> "FAILED_PRECONDITION".
func codeName(code codes.Code) string {
	if code == codes.Canceled {
		return "CANCELLED"
	}
	var name strings.Builder
	for i, r := range code.String() {
		if i > 0 && unicode.IsUpper(r) {
			name.WriteByte('_')
		}
		name.WriteRune(unicode.ToUpper(r))
	}
	return name.String()
}

func report(played *stud.Played) result {
	hand := played.Hand
	out := result{Transport: "grpc", HandID: hand.GetHandId(), Button: hand.GetSpectator().GetButton(),
		Seq: hand.GetSeq(), Actions: len(played.Moves), Moves: orEmpty(played.Moves),
		Pots: []pot{}, Shown: []shown{}, Rake: hand.GetResult().GetRake(),
		StartStacks: played.Start, Stacks: orEmpty(hand.GetResult().GetStacks()),
		Conserved: played.Conserved}
	for _, p := range hand.GetResult().GetPots() {
		out.Pots = append(out.Pots, pot{p.GetAmount(), orEmpty(p.GetEligible()),
			orEmpty(p.GetWinners()), orEmpty(p.GetShares()), orEmpty(p.GetLowWinners()),
			orEmpty(p.GetLowShares())})
	}
	for _, s := range hand.GetResult().GetShown() {
		out.Shown = append(out.Shown, shown{s.GetSeat(), orEmpty(s.GetCards()),
			s.GetDescription(), s.GetLowDescription()})
	}
	if r := played.Refusal; r != nil {
		out.Refusal = &refusal{codeName(r.Code), r.Reason, r.Metadata, r.RetryAfter}
	}
	out.DealCommitment = hand.GetDealCommitment()
	if out.DealCommitment != "" {
		out.DealVerified = dealVerdict(played.DealVerified)
	}
	return out
}

func printHand(played *stud.Played) {
	hand := played.Hand
	if r := played.Refusal; r != nil {
		fmt.Printf("a move out of turn was refused: %s, to act %s, legal %s\n",
			r.Reason, r.Metadata["to_act"], r.Metadata["legal"])
	}
	for _, m := range played.Moves {
		to := ""
		if m.To != nil {
			to = fmt.Sprintf(" %d", *m.To)
		}
		fmt.Printf("  seat %d %s%s\n", m.Seat, strings.ToLower(m.Action), to)
	}
	for i, p := range hand.GetResult().GetPots() {
		name := "main pot"
		if i > 0 {
			name = fmt.Sprintf("side pot %d", i)
		}
		fmt.Printf("%s %d: winners %v shares %v\n", name, p.GetAmount(), p.GetWinners(), p.GetShares())
	}
	if hand.GetDealCommitment() != "" {
		fmt.Printf("deal commitment %s: %s\n", hand.GetDealCommitment(), dealVerdict(played.DealVerified))
	}
	fmt.Printf("final stacks: %v (started %v)\n", hand.GetResult().GetStacks(), played.Start)
	if played.Conserved {
		fmt.Println("chips conserved")
	} else {
		fmt.Println("CHIPS NOT CONSERVED")
	}
}

// dealVerdict is "ok", or the verification's error (naming the field that failed).
func dealVerdict(err error) string {
	if err == nil {
		return "ok"
	}
	return err.Error()
}

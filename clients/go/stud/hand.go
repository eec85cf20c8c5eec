package stud

import (
	"context"
	"fmt"
	"math"
	"strings"

	studv1 "github.com/stud-engine/stud-engine/clients/go/gen/stud/v1"
)

// Variants by the names the CLIs use.
var Variants = map[string]studv1.Variant{
	"five":  studv1.Variant_VARIANT_FIVE_CARD_STUD,
	"seven": studv1.Variant_VARIANT_SEVEN_CARD_STUD,
	"razz":  studv1.Variant_VARIANT_RAZZ,
	"hilo":  studv1.Variant_VARIANT_SEVEN_CARD_STUD_HI_LO,
}

// Rng is mulberry32, the TypeScript client's seeded generator (clients/node/src/hand.ts):
// the same seed makes the same choices in both.
type Rng struct{ a uint32 }

// NewRng seeds a generator.
func NewRng(seed uint32) *Rng { return &Rng{a: seed} }

// Next returns a number in [0, 1).
func (r *Rng) Next() float64 {
	r.a += 0x6d2b79f5
	t := r.a
	t = (t ^ (t >> 15)) * (t | 1)
	t ^= t + (t^(t>>7))*(t|61)
	return float64(t^(t>>14)) / 4294967296
}

// ChooseAction picks one legal action as the TypeScript client does: checks and calls
// mostly, sometimes a bet or raise, a fold now and then (never when a check is free).
func ChooseAction(legal []*studv1.LegalAction, rng *Rng) (*studv1.LegalAction, error) {
	if len(legal) == 0 {
		return nil, fmt.Errorf("no legal action to choose from")
	}
	free := false
	for _, a := range legal {
		free = free || a.GetType() == studv1.ActionType_ACTION_TYPE_CHECK
	}
	weights := make([]float64, len(legal))
	total := 0.0
	for i, a := range legal {
		switch a.GetType() {
		case studv1.ActionType_ACTION_TYPE_FOLD:
			if !free {
				weights[i] = 0.1
			}
		case studv1.ActionType_ACTION_TYPE_CHECK, studv1.ActionType_ACTION_TYPE_CALL,
			studv1.ActionType_ACTION_TYPE_BRING_IN:
			weights[i] = 1
		default:
			weights[i] = 0.3
		}
		total += weights[i]
	}
	pick := rng.Next() * total
	for i, a := range legal {
		pick -= weights[i]
		if pick < 0 {
			return a, nil
		}
	}
	return legal[len(legal)-1], nil
}

// Options of one hand.
type Options struct {
	Variant  string
	Players  int
	Stack    int64
	Seed     uint32
	RakeBp   uint32
	RakeCap  int64
	TestDeck []string
	// Verifiable deals with a deal ticket and each player's entropy, and checks the
	// revealed deck at the end.
	Verifiable bool
}

// Move is one move played.
type Move struct {
	Seat   int32  `json:"seat"`
	Action string `json:"action"`
	To     *int64 `json:"to,omitempty"`
}

// Played is a hand played to the end.
type Played struct {
	Hand      *studv1.HandUpdate
	Start     []int64
	Moves     []Move
	Refusal   *Refusal // the refusal of the out-of-turn probe sent before the first move
	Conserved bool
	// DealVerified: with a ticket, nil when the revealed deck follows from the committed
	// seed and the contributions sent; the failing field's error otherwise.
	DealVerified error
}

// PlayHand starts a hand and plays it to the end, each next state kept in store by
// compare-and-set on seq. Before the first move it sends one move out of turn and reads
// the refusal's ErrorInfo (OUT_OF_TURN, with the seat to act and the legal moves), as
// a back-end reads a refused player's move. Every call is made with ctx.
func PlayHand(ctx context.Context, client *Client, store *Store, opts Options) (played *Played, err error) {
	variant, ok := Variants[opts.Variant]
	if !ok {
		return nil, fmt.Errorf("unknown variant %q", opts.Variant)
	}
	rng := NewRng(opts.Seed)
	start := make([]int64, opts.Players)
	players := make([]*studv1.Player, opts.Players)
	for i := range start {
		start[i] = opts.Stack
		players[i] = &studv1.Player{Id: fmt.Sprintf("go-%d", i), Stack: opts.Stack}
	}
	button := int32(math.Floor(rng.Next() * float64(opts.Players)))
	request := &studv1.StartHandRequest{
		Variant: variant,
		Table: &studv1.Table{Ante: 5, BringIn: 10, SmallBet: 20, BigBet: 40,
			RakePercentBp: opts.RakeBp, RakeCap: opts.RakeCap},
		Players:  players,
		Button:   button,
		TestDeck: opts.TestDeck,
	}
	var ticket *studv1.DealTicket
	if opts.Verifiable {
		if ticket, err = withTicket(ctx, client, request); err != nil {
			return nil, err
		}
	}
	hand, err := client.StartHand(ctx, request)
	if err != nil {
		return nil, err
	}
	if ticket != nil && hand.GetDealCommitment() != ticket.GetCommitment() {
		return nil, fmt.Errorf("hand %s shows commitment %q, not the ticket's %s",
			hand.GetHandId(), hand.GetDealCommitment(), ticket.GetCommitment())
	}
	if !store.Create(hand) {
		return nil, fmt.Errorf("hand %s is already stored", hand.GetHandId())
	}
	played = &Played{Start: start}
	if played.Refusal, err = probeRefusal(ctx, client, hand, int32(opts.Players)); err != nil {
		return nil, err
	}
	for !hand.GetOver() {
		if hand.ToAct == nil {
			return nil, fmt.Errorf("hand %s is not over but nobody acts", hand.GetHandId())
		}
		seat := hand.GetToAct()
		choice, err := ChooseAction(hand.GetLegalActions(), rng)
		if err != nil {
			return nil, err
		}
		seq := hand.GetSeq()
		next, err := client.Act(ctx, &studv1.ActRequest{State: hand.GetState(), Seat: seat,
			Action: choice.GetType(), To: choice.To, ExpectedSeq: &seq})
		if err != nil {
			return nil, err
		}
		if !store.CompareAndSet(seq, next) {
			return nil, fmt.Errorf("hand %s moved on past seq %d meanwhile", hand.GetHandId(), seq)
		}
		name := studv1.ActionType_name[int32(choice.GetType())]
		move := Move{Seat: seat, Action: strings.TrimPrefix(name, "ACTION_TYPE_")}
		if choice.To != nil {
			to := choice.GetTo()
			move.To = &to
		}
		played.Moves = append(played.Moves, move)
		hand = store.Get(hand.GetHandId())
	}
	played.Hand = hand
	var total, after int64
	for _, s := range start {
		total += s
	}
	for _, s := range hand.GetResult().GetStacks() {
		after += s
	}
	played.Conserved = len(hand.GetResult().GetStacks()) == opts.Players &&
		after+hand.GetResult().GetRake() == total
	if ticket != nil {
		reveal := hand.GetReveal()
		played.DealVerified = VerifyDeal(DealProof{HandID: hand.GetHandId(),
			Commitment: ticket.GetCommitment(), ServerSeed: reveal.GetServerSeed(),
			Contributions: reveal.GetContributions(), Deck: reveal.GetDeck()},
			request.GetContributions())
	}
	return played, nil
}

// withTicket asks for a deal ticket binding request's settings and players, and adds it
// to request with one contribution per player from the CSPRNG.
func withTicket(ctx context.Context, client *Client, request *studv1.StartHandRequest) (*studv1.DealTicket, error) {
	ticket, err := client.CreateDealTicket(ctx, &studv1.CreateDealTicketRequest{
		Variant: request.GetVariant(), Table: request.GetTable(),
		Players: request.GetPlayers(), Button: request.GetButton()})
	if err != nil {
		return nil, err
	}
	request.DealTicket = ticket.GetSealed()
	for range request.GetPlayers() {
		contribution, err := NewContribution()
		if err != nil {
			return nil, err
		}
		request.Contributions = append(request.Contributions, contribution)
	}
	return ticket, nil
}

// probeRefusal sends the first legal move for a seat that is not to act: the server must
// refuse it with FAILED_PRECONDITION, ErrorInfo OUT_OF_TURN, and change nothing.
func probeRefusal(ctx context.Context, client *Client, hand *studv1.HandUpdate, seats int32) (*Refusal, error) {
	if hand.ToAct == nil || len(hand.GetLegalActions()) == 0 {
		return nil, nil
	}
	legal := hand.GetLegalActions()[0]
	_, err := client.Act(ctx, &studv1.ActRequest{State: hand.GetState(),
		Seat: (hand.GetToAct() + 1) % seats, Action: legal.GetType(), To: legal.To})
	if err == nil {
		return nil, fmt.Errorf("a move out of turn was accepted")
	}
	refusal := RefusalOf(err)
	if refusal == nil {
		return nil, err
	}
	return refusal, nil
}

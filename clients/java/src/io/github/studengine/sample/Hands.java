package io.github.studengine.sample;

import io.github.studengine.stud.v1.ActRequest;
import io.github.studengine.stud.v1.ActionType;
import io.github.studengine.stud.v1.CreateDealTicketRequest;
import io.github.studengine.stud.v1.DealTicket;
import io.github.studengine.stud.v1.HandUpdate;
import io.github.studengine.stud.v1.LegalAction;
import io.github.studengine.stud.v1.Player;
import io.github.studengine.stud.v1.StartHandRequest;
import io.github.studengine.stud.v1.Table;
import io.github.studengine.stud.v1.Variant;
import io.grpc.StatusRuntimeException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** A hand played to the end by the TypeScript client's seeded choices. */
final class Hands {
  private Hands() {}

  static final Map<String, Variant> VARIANTS = Map.of(
      "five", Variant.VARIANT_FIVE_CARD_STUD,
      "seven", Variant.VARIANT_SEVEN_CARD_STUD,
      "razz", Variant.VARIANT_RAZZ,
      "hilo", Variant.VARIANT_SEVEN_CARD_STUD_HI_LO);

  static final class Options {
    String variant;
    int players;
    long stack;
    int seed;
    int rakeBp;
    long rakeCap;
    List<String> testDeck;
    /** Deal with a deal ticket and each player's entropy; check the deck at the end. */
    boolean verifiable;
  }

  /** One move played (the JSON shape of the other clients). */
  static final class Move {
    final int seat;
    final String action;
    final Long to;

    Move(int seat, String action, Long to) {
      this.seat = seat;
      this.action = action;
      this.to = to;
    }
  }

  static final class Played {
    HandUpdate hand;
    long[] start;
    List<Move> moves = new ArrayList<>();
    Refusal refusal;
    boolean conserved;
    /** With a ticket: null when the revealed deck checks out, else what failed. */
    String dealFailure;
  }

  /** mulberry32, as clients/node/src/hand.ts: the same seed makes the same choices. */
  static final class Rng {
    private int a;

    Rng(int seed) {
      a = seed;
    }

    double next() {
      a += 0x6d2b79f5;
      int t = a;
      t = (t ^ (t >>> 15)) * (t | 1);
      t ^= t + (t ^ (t >>> 7)) * (t | 61);
      return Integer.toUnsignedLong(t ^ (t >>> 14)) / 4294967296.0;
    }
  }

  static LegalAction choose(List<LegalAction> legal, Rng rng) {
    if (legal.isEmpty()) {
      throw new IllegalStateException("no legal action to choose from");
    }
    boolean free = legal.stream().anyMatch(a -> a.getType() == ActionType.ACTION_TYPE_CHECK);
    double[] weights = new double[legal.size()];
    double total = 0;
    for (int i = 0; i < weights.length; i++) {
      ActionType type = legal.get(i).getType();
      if (type == ActionType.ACTION_TYPE_FOLD) {
        weights[i] = free ? 0 : 0.1;
      } else if (type == ActionType.ACTION_TYPE_CHECK || type == ActionType.ACTION_TYPE_CALL
          || type == ActionType.ACTION_TYPE_BRING_IN) {
        weights[i] = 1;
      } else {
        weights[i] = 0.3;
      }
      total += weights[i];
    }
    double pick = rng.next() * total;
    for (int i = 0; i < weights.length; i++) {
      pick -= weights[i];
      if (pick < 0) {
        return legal.get(i);
      }
    }
    return legal.get(legal.size() - 1);
  }

  /**
   * Starts a hand and plays it to the end, each next state kept by compare-and-set on
   * seq; before the first move, one move out of turn is sent and its refusal read.
   */
  static Played play(Engine engine, Store store, Options o) {
    Variant variant = VARIANTS.get(o.variant);
    if (variant == null) {
      throw new IllegalArgumentException("unknown variant " + o.variant);
    }
    Rng rng = new Rng(o.seed);
    Played played = new Played();
    played.start = new long[o.players];
    StartHandRequest.Builder start = StartHandRequest.newBuilder().setVariant(variant)
        .setTable(Table.newBuilder().setAnte(5).setBringIn(10).setSmallBet(20).setBigBet(40)
            .setRakePercentBp(o.rakeBp).setRakeCap(o.rakeCap))
        .addAllTestDeck(o.testDeck);
    for (int i = 0; i < o.players; i++) {
      played.start[i] = o.stack;
      start.addPlayers(Player.newBuilder().setId("java-" + i).setStack(o.stack));
    }
    start.setButton((int) Math.floor(rng.next() * o.players));
    DealTicket ticket = null;
    List<byte[]> sent = new ArrayList<>();
    if (o.verifiable) {
      ticket = engine.createDealTicket(CreateDealTicketRequest.newBuilder()
          .setVariant(start.getVariant()).setTable(start.getTable())
          .addAllPlayers(start.getPlayersList()).setButton(start.getButton()).build());
      start.setDealTicket(ticket.getSealed());
      for (int i = 0; i < o.players; i++) {
        sent.add(Deals.newContribution());
        start.addContributions(com.google.protobuf.ByteString.copyFrom(sent.get(i)));
      }
    }
    HandUpdate hand = engine.startHand(start.build());
    if (ticket != null && !hand.getDealCommitment().equals(ticket.getCommitment())) {
      throw new IllegalStateException("hand " + hand.getHandId() + " shows commitment '"
          + hand.getDealCommitment() + "', not the ticket's " + ticket.getCommitment());
    }
    if (!store.create(hand)) {
      throw new IllegalStateException("hand " + hand.getHandId() + " is already stored");
    }
    played.refusal = probe(engine, hand, o.players);
    while (!hand.getOver()) {
      if (!hand.hasToAct()) {
        throw new IllegalStateException("hand " + hand.getHandId() + " is not over but nobody acts");
      }
      int seat = hand.getToAct();
      LegalAction choice = choose(hand.getLegalActionsList(), rng);
      long seq = hand.getSeq();
      ActRequest.Builder act = ActRequest.newBuilder().setState(hand.getState()).setSeat(seat)
          .setAction(choice.getType()).setExpectedSeq(seq);
      if (choice.hasTo()) {
        act.setTo(choice.getTo());
      }
      HandUpdate next = engine.act(act.build());
      if (!store.compareAndSet(seq, next)) {
        throw new IllegalStateException("hand " + hand.getHandId() + " moved on past seq " + seq);
      }
      played.moves.add(new Move(seat, choice.getType().name().replaceFirst("^ACTION_TYPE_", ""),
          choice.hasTo() ? choice.getTo() : null));
      hand = store.get(hand.getHandId());
    }
    played.hand = hand;
    long before = 0;
    long after = hand.getResult().getRake();
    for (long s : played.start) {
      before += s;
    }
    for (long s : hand.getResult().getStacksList()) {
      after += s;
    }
    played.conserved = hand.getResult().getStacksCount() == o.players && after == before;
    if (ticket != null) {
      var reveal = hand.getReveal();
      played.dealFailure = Deals.verify(hand.getHandId(), ticket.getCommitment(),
          reveal.getServerSeed(), reveal.getContributionsList(), reveal.getDeckList(), sent);
    }
    return played;
  }

  /** A move for a seat not to act: refused FAILED_PRECONDITION, OUT_OF_TURN. */
  private static Refusal probe(Engine engine, HandUpdate hand, int seats) {
    if (!hand.hasToAct() || hand.getLegalActionsCount() == 0) {
      return null;
    }
    LegalAction legal = hand.getLegalActions(0);
    ActRequest.Builder act = ActRequest.newBuilder().setState(hand.getState())
        .setSeat((hand.getToAct() + 1) % seats).setAction(legal.getType());
    if (legal.hasTo()) {
      act.setTo(legal.getTo());
    }
    try {
      engine.act(act.build());
    } catch (StatusRuntimeException e) {
      Refusal refusal = Refusal.of(e);
      if (refusal == null) {
        throw e;
      }
      return refusal;
    }
    throw new IllegalStateException("a move out of turn was accepted");
  }
}

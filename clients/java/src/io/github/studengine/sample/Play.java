package io.github.studengine.sample;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import io.github.studengine.stud.v1.HandUpdate;
import io.grpc.StatusRuntimeException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Plays one hand of stud against a Stud Engine server over gRPC and prints how it ended
 * (with --json, one line in the TypeScript and Go clients' format). Exit status: 0 the
 * hand ended with the chips conserved, 1 it did not, 2 a call failed or a bad argument.
 *
 * <pre>
 * java-play --target HOST:PORT [--variant five|seven|razz|hilo] [--players N] [--stack N]
 *           [--seed N] [--rake-bp N] [--rake-cap N] [--test-deck Ac,Kd,...] [--json]
 *           [--verifiable]
 * java-play --self-test
 * </pre>
 *
 * <p>--verifiable deals with a deal ticket and each player's entropy (SecureRandom) and
 * checks at the end that the revealed seed matches the commitment and the deck follows
 * from it (exit 1 when not). --self-test checks the deck function against NIST CAVP's
 * HMAC_DRBG answer and the documented test vector (docs/security.md).
 */
public final class Play {
  private Play() {}

  public static void main(String[] args) {
    System.exit(run(args));
  }

  static int run(String[] args) {
    Map<String, String> flags = new LinkedHashMap<>();
    flags.put("target", "127.0.0.1:50051");
    flags.put("variant", "seven");
    flags.put("players", "4");
    flags.put("stack", "1000");
    flags.put("seed", "1");
    flags.put("rake-bp", "0");
    flags.put("rake-cap", "0");
    flags.put("test-deck", "");
    flags.put("timeout-ms", "10000");
    boolean json = false;
    boolean verifiable = false;
    for (int i = 0; i < args.length; i++) {
      String name = args[i].replaceFirst("^--?", "");
      if (name.equals("self-test")) {
        String failed = Deals.selfTest();
        System.out.println(failed == null
            ? "self-test ok: NIST CAVP HMAC_DRBG count 0 and the deal test vector"
            : "self-test FAILED: " + failed);
        return failed == null ? 0 : 1;
      } else if (name.equals("verifiable")) {
        verifiable = true;
      } else if (name.equals("json")) {
        json = true;
      } else if (flags.containsKey(name) && i + 1 < args.length) {
        flags.put(name, args[++i]);
      } else {
        System.err.println("java-play: unknown or incomplete flag " + args[i]);
        return 2;
      }
    }
    Hands.Options options = new Hands.Options();
    try {
      options.variant = flags.get("variant");
      options.players = Integer.parseInt(flags.get("players"));
      options.stack = Long.parseLong(flags.get("stack"));
      options.seed = (int) Long.parseLong(flags.get("seed"));
      options.rakeBp = Integer.parseInt(flags.get("rake-bp"));
      options.rakeCap = Long.parseLong(flags.get("rake-cap"));
      String deck = flags.get("test-deck");
      options.testDeck = deck.isEmpty() ? List.of() : Arrays.asList(deck.split(","));
      options.verifiable = verifiable;
    } catch (NumberFormatException e) {
      System.err.println("java-play: " + e.getMessage());
      return 2;
    }
    try (Engine engine = Engine.dial(flags.get("target"), Long.parseLong(flags.get("timeout-ms")))) {
      Hands.Played played = Hands.play(engine, new Store(), options);
      if (json) {
        System.out.println(GSON.toJson(report(played)));
      } else {
        print(played);
      }
      return played.conserved && played.dealFailure == null ? 0 : 1;
    } catch (StatusRuntimeException e) {
      Refusal refusal = Refusal.of(e);
      System.err.println("java-play: " + (refusal != null ? refusal : e.getStatus()));
      return 2;
    } catch (IllegalArgumentException | IllegalStateException e) {
      System.err.println("java-play: " + e.getMessage());
      return 2;
    }
  }

  private static final Gson GSON = new GsonBuilder().disableHtmlEscaping().create();

  private static Map<String, Object> report(Hands.Played played) {
    HandUpdate hand = played.hand;
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("transport", "grpc");
    out.put("hand_id", hand.getHandId());
    out.put("button", hand.getSpectator().getButton());
    out.put("seq", hand.getSeq());
    out.put("actions", played.moves.size());
    out.put("moves", played.moves);
    List<Map<String, Object>> pots = new ArrayList<>();
    for (var pot : hand.getResult().getPotsList()) {
      Map<String, Object> p = new LinkedHashMap<>();
      p.put("amount", pot.getAmount());
      p.put("eligible", pot.getEligibleList());
      p.put("winners", pot.getWinnersList());
      p.put("shares", pot.getSharesList());
      p.put("low_winners", pot.getLowWinnersList());
      p.put("low_shares", pot.getLowSharesList());
      pots.add(p);
    }
    out.put("pots", pots);
    List<Map<String, Object>> shown = new ArrayList<>();
    for (var s : hand.getResult().getShownList()) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("seat", s.getSeat());
      m.put("cards", s.getCardsList());
      m.put("description", s.getDescription());
      m.put("low_description", s.getLowDescription());
      shown.add(m);
    }
    out.put("shown", shown);
    out.put("rake", hand.getResult().getRake());
    out.put("start_stacks", played.start);
    out.put("stacks", hand.getResult().getStacksList());
    out.put("conserved", played.conserved);
    if (!hand.getDealCommitment().isEmpty()) {
      out.put("deal_commitment", hand.getDealCommitment());
      out.put("deal_verified", played.dealFailure == null ? "ok" : played.dealFailure);
    }
    Refusal r = played.refusal;
    if (r != null) {
      Map<String, Object> refusal = new LinkedHashMap<>();
      refusal.put("code", r.code.name());
      refusal.put("reason", r.reason);
      refusal.put("metadata", r.metadata);
      out.put("refusal", refusal);
    }
    return out;
  }

  private static void print(Hands.Played played) {
    HandUpdate hand = played.hand;
    Refusal r = played.refusal;
    if (r != null) {
      System.out.printf("a move out of turn was refused: %s, to act %s, legal %s%n",
          r.reason, r.metadata.get("to_act"), r.metadata.get("legal"));
    }
    for (Hands.Move m : played.moves) {
      System.out.printf("  seat %d %s%s%n", m.seat, m.action.toLowerCase(),
          m.to == null ? "" : " " + m.to);
    }
    var pots = hand.getResult().getPotsList();
    for (int i = 0; i < pots.size(); i++) {
      System.out.printf("%s %d: winners %s shares %s%n", i == 0 ? "main pot" : "side pot " + i,
          pots.get(i).getAmount(), pots.get(i).getWinnersList(), pots.get(i).getSharesList());
    }
    if (!hand.getDealCommitment().isEmpty()) {
      System.out.printf("deal commitment %s: %s%n", hand.getDealCommitment(),
          played.dealFailure == null ? "ok" : played.dealFailure);
    }
    System.out.printf("final stacks: %s (started %s)%n", hand.getResult().getStacksList(),
        Arrays.toString(played.start));
    System.out.println(played.conserved ? "chips conserved" : "CHIPS NOT CONSERVED");
  }
}

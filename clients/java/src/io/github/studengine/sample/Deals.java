package io.github.studengine.sample;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The verifiable deal (issue 32, docs/security.md): HMAC_DRBG with SHA-256 (NIST SP
 * 800-90A Rev. 1, section 10.1.2; no reseed, no additional input, no prediction
 * resistance) seeded with the server's seed, the hand id and the players' contributions,
 * driving a Fisher-Yates shuffle with rejection sampling.
 */
final class Deals {
  private Deals() {}

  static final int CONTRIBUTION_BYTES = 32;
  private static final int GENERATE_BYTES = 256;
  private static final byte[] PERSONALIZATION = "stud-engine/deal/v1".getBytes(StandardCharsets.US_ASCII);
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final HexFormat HEX = HexFormat.of();

  /** HMAC_DRBG (SHA-256), NIST SP 800-90A Rev. 1 section 10.1.2. */
  static final class HmacDrbg {
    private byte[] key = new byte[32];
    private byte[] value = new byte[32];

    HmacDrbg(byte[] entropy, byte[] nonce, byte[] personalization) {
      Arrays.fill(value, (byte) 1);
      update(concat(entropy, nonce, personalization));
    }

    private byte[] mac(byte[]... parts) {
      try {
        Mac m = Mac.getInstance("HmacSHA256");
        m.init(new SecretKeySpec(key, "HmacSHA256"));
        for (byte[] p : parts) {
          m.update(p);
        }
        return m.doFinal();
      } catch (GeneralSecurityException e) {
        throw new IllegalStateException(e);
      }
    }

    private void update(byte[] provided) {
      key = mac(value, new byte[] {0}, provided);
      value = mac(value);
      if (provided.length > 0) {
        key = mac(value, new byte[] {1}, provided);
        value = mac(value);
      }
    }

    /** The next n bytes (one Generate call). */
    byte[] generate(int n) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      while (out.size() < n) {
        value = mac(value);
        out.writeBytes(value);
      }
      update(new byte[0]);
      return Arrays.copyOf(out.toByteArray(), n);
    }
  }

  private static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      out.writeBytes(p);
    }
    return out.toByteArray();
  }

  /** The deck (card = rank * 4 + suit, deck[0] dealt first). */
  static int[] deal(byte[] serverSeed, byte[] handId, List<byte[]> contributions) {
    ByteArrayOutputStream personalization = new ByteArrayOutputStream();
    personalization.writeBytes(PERSONALIZATION);
    for (byte[] c : contributions) {
      personalization.write(c.length >>> 8);
      personalization.write(c.length & 0xff);
      personalization.writeBytes(c);
    }
    HmacDrbg drbg = new HmacDrbg(serverSeed, handId, personalization.toByteArray());
    ByteBuffer words = ByteBuffer.allocate(0);
    int[] deck = new int[52];
    for (int i = 0; i < deck.length; i++) {
      deck[i] = i;
    }
    for (int i = 51; i > 0; i--) {
      long n = i + 1;
      long limit = (1L << 32) - (1L << 32) % n;
      long w;
      do {
        if (words.remaining() < 4) {
          words = ByteBuffer.wrap(drbg.generate(GENERATE_BYTES));
        }
        w = Integer.toUnsignedLong(words.getInt());
      } while (w >= limit);
      int j = (int) (w % n);
      int swap = deck[i];
      deck[i] = deck[j];
      deck[j] = swap;
    }
    return deck;
  }

  /** A player's entropy from the CSPRNG (SecureRandom). */
  static byte[] newContribution() {
    byte[] c = new byte[CONTRIBUTION_BYTES];
    RANDOM.nextBytes(c);
    return c;
  }

  static String commitment(byte[] serverSeed) {
    try {
      return HEX.formatHex(MessageDigest.getInstance("SHA-256").digest(serverSeed));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  static String cardName(int card) {
    return "" + "23456789TJQKA".charAt(card / 4) + "cdhs".charAt(card % 4);
  }

  /**
   * Checks a finished hand's proof: the seed's SHA-256 is the commitment shown before the
   * deal, the revealed contributions (hex, seat order) are the ones sent (null: not
   * checked), and the revealed deck is the one they make. Returns null when it holds,
   * else what failed, starting with the field's name.
   */
  static String verify(String handId, String commitment, String serverSeed,
      List<String> contributions, List<String> deck, List<byte[]> sent) {
    byte[] seed;
    try {
      seed = HEX.parseHex(serverSeed);
    } catch (IllegalArgumentException e) {
      return "server_seed: not hex";
    }
    if (seed.length != 32 || !commitment(seed).equals(commitment)) {
      return "server_seed: its SHA-256 is not the commitment " + commitment;
    }
    List<byte[]> revealed;
    try {
      revealed = contributions.stream().map(HEX::parseHex).toList();
    } catch (IllegalArgumentException e) {
      return "contributions: not hex";
    }
    if (sent != null && (sent.size() != revealed.size()
        || !java.util.stream.IntStream.range(0, sent.size())
            .allMatch(i -> Arrays.equals(sent.get(i), revealed.get(i))))) {
      return "contributions: not the ones sent";
    }
    int[] expected = deal(seed, HEX.parseHex(handId), revealed);
    if (deck.size() != expected.length) {
      return "deck: " + deck.size() + " cards, not " + expected.length;
    }
    for (int i = 0; i < expected.length; i++) {
      if (!deck.get(i).equals(cardName(expected[i]))) {
        return "deck: card " + i + " is " + deck.get(i) + ", the seed and contributions make "
            + cardName(expected[i]);
      }
    }
    return null;
  }

  /**
   * Known-answer self-test: NIST CAVP's HMAC_DRBG SHA-256 count 0 (no reseed, no PR, no
   * additional input) and the documented test vector. Returns null when both hold.
   */
  static String selfTest() {
    HmacDrbg drbg = new HmacDrbg(
        HEX.parseHex("ca851911349384bffe89de1cbdc46e6831e44d34a4fb935ee285dd14b71a7488"),
        HEX.parseHex("659ba96c601dc69fc902940805ec0ca8"), new byte[0]);
    drbg.generate(128);
    String cavp = "e528e9abf2dece54d47c7e75e5fe302149f817ea9fb4bee6f4199697d04d5b89d54fbb978a15b5c443c9ec21036d2460"
        + "b6f73ebad0dc2aba6e624abf07745bc107694bb7547bb0995f70de25d6b29e2d3011bb19d27676c07162c8b5ccde06"
        + "68961df86803482cb37ed6d5c0bb8d50cf1f50d476aa0458bdaba806f48be9dcb8";
    if (!HEX.formatHex(drbg.generate(128)).equals(cavp)) {
      return "HMAC_DRBG does not give NIST CAVP count 0";
    }
    int[] vector = {51, 12, 22, 47, 40, 50, 21, 5, 28, 27, 19, 9, 31, 26, 18, 0, 45, 23, 46, 43,
        29, 33, 36, 15, 49, 42, 6, 20, 4, 34, 25, 32, 30, 35, 44, 38, 41, 37, 14, 3, 17, 10, 24,
        11, 2, 48, 7, 16, 39, 8, 13, 1};
    byte[] seed = HEX.parseHex("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f");
    List<String> contributions = List.of("616c69636527732062726f7773657220656e74726f70792030303031",
        "626f6227732062726f7773657220656e74726f7079203030303030303032");
    List<String> deck = Arrays.stream(vector).mapToObj(Deals::cardName).toList();
    String failed = verify("a0a1a2a3a4a5a6a7a8a9aaabacadaeaf",
        "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd",
        HEX.formatHex(seed), contributions, deck, null);
    return failed == null ? null : "the documented test vector: " + failed;
  }
}

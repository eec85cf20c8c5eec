/* The evaluator's core in plain C (no Python): tables and the 5..7 card evaluation,
 * high (R-HAND-RANK) and, at the end, ace-to-five low and eight-or-better.
 *
 * A card is rank * 4 + suit (ranks 2..A = 0..12). A hand is kept as four 13-bit
 * rank masks, one per suit, plus the suit counts as 4-bit counters that start at 3:
 * a counter has its bit 3 set exactly when its suit holds five cards or more.
 * The value is category << 20 plus up to five 4-bit tie-break ranks (highest at bit
 * 16), the same numbers as the pure-Python twin (_twin.py).
 *
 * Tables (built once by se_init_tables, 58 KiB): for every 13-bit rank mask the best
 * flush or straight flush, the five highest ranks as nibbles, the highest rank and the
 * best straight. Non-flush hands are read off the masks of ranks held at least
 * two, three and four times, which a few ANDs and ORs of the suit masks give.
 */
#ifndef STUDENGINE_EVAL_CORE_H
#define STUDENGINE_EVAL_CORE_H

#include <stdint.h>

enum {
    SE_HIGH_CARD, SE_PAIR, SE_TWO_PAIR, SE_TRIPS, SE_STRAIGHT,
    SE_FLUSH, SE_FULL_HOUSE, SE_QUADS, SE_STRAIGHT_FLUSH
};

#define SE_FLUSH_BITS 0x8888u
#define SE_SUIT_BIAS 0x3333u

static uint32_t se_flush_t[8192];   /* best flush / straight flush value, 0 if < 5 bits */
static uint32_t se_top5_t[8192];    /* five highest ranks as nibbles, highest at bit 16 */
static uint8_t se_topbit_t[8192];   /* index of the highest set bit */
static uint8_t se_straight_t[8192]; /* 1 + top rank of the best straight, 0 if none */
static int se_tables_ready = 0;

static void se_init_low_tables(void);

static void se_init_tables(void)
{
    if (se_tables_ready) return;
    for (uint32_t m = 1; m < 8192; m++) {
        int top = 12;
        while (!(m >> top & 1)) top--;
        se_topbit_t[m] = (uint8_t)top;
        uint32_t v = 0, rest = m;
        int shift = 16, bits = 0;
        while (rest && shift >= 0) {
            int r = 12;
            while (!(rest >> r & 1)) r--;
            v |= (uint32_t)r << shift;
            rest ^= 1u << r;
            shift -= 4;
        }
        se_top5_t[m] = v;
        for (uint32_t x = m; x; x &= x - 1) bits++;
        int st = 0;
        for (int t = 12; t >= 4; t--) {
            uint32_t run = 0x1Fu << (t - 4);
            if ((m & run) == run) { st = t + 1; break; }
        }
        if (!st && (m & 0x100Fu) == 0x100Fu) st = 3 + 1; /* the wheel, five high */
        se_straight_t[m] = (uint8_t)st;
        if (bits >= 5)
            se_flush_t[m] = st ? ((uint32_t)SE_STRAIGHT_FLUSH << 20 | (uint32_t)(st - 1) << 16)
                               : ((uint32_t)SE_FLUSH << 20 | v);
    }
    se_init_low_tables();
    se_tables_ready = 1;
}

/* Value of a hand from its suit masks s[4] and biased suit counters sc. */
static inline uint32_t se_eval_masks(const uint32_t *s, uint32_t sc)
{
    uint32_t fl = sc & SE_FLUSH_BITS;
    if (fl) {
        int suit = fl & 0x8u ? 0 : fl & 0x80u ? 1 : fl & 0x800u ? 2 : 3;
        return se_flush_t[s[suit]];
    }
    uint32_t s0 = s[0], s1 = s[1], s2 = s[2], s3 = s[3];
    uint32_t any = s0 | s1 | s2 | s3;
    uint32_t lo = s0 & s1, hi = s2 & s3, l = s0 | s1, h = s2 | s3;
    uint32_t two = lo | hi | (l & h);         /* ranks held twice or more */
    uint32_t three = (lo & h) | (hi & l);     /* three or more */
    uint32_t four = lo & hi;                  /* four */
    if (four) {
        uint32_t q = se_topbit_t[four];
        return (uint32_t)SE_QUADS << 20 | q << 16 | (uint32_t)se_topbit_t[any ^ (1u << q)] << 12;
    }
    if (three) {
        uint32_t t = se_topbit_t[three];
        uint32_t rest = two ^ (1u << t);
        if (rest) return (uint32_t)SE_FULL_HOUSE << 20 | t << 16 | (uint32_t)se_topbit_t[rest] << 12;
    }
    uint32_t st = se_straight_t[any];
    if (st) return (uint32_t)SE_STRAIGHT << 20 | (st - 1) << 16;
    if (three) {
        uint32_t t = se_topbit_t[three];
        return (uint32_t)SE_TRIPS << 20 | t << 16 | ((se_top5_t[any ^ (1u << t)] >> 4) & 0xFF00u);
    }
    if (two) {
        uint32_t p = se_topbit_t[two];
        uint32_t rest = two ^ (1u << p);
        if (rest) {
            uint32_t p2 = se_topbit_t[rest];
            uint32_t k = se_topbit_t[any ^ (1u << p) ^ (1u << p2)];
            return (uint32_t)SE_TWO_PAIR << 20 | p << 16 | p2 << 12 | k << 8;
        }
        return (uint32_t)SE_PAIR << 20 | p << 16 | ((se_top5_t[any ^ (1u << p)] >> 4) & 0xFFF0u);
    }
    return se_top5_t[any];
}

/* Read n (5..7) card bytes into suit masks s[4] and biased suit counters *sc;
 * 0 when a card is out of range or repeated, else 1. */
static inline int se_read_bytes(const uint8_t *cards, int n, uint32_t *s, uint32_t *sc)
{
    uint64_t seen = 0;
    s[0] = s[1] = s[2] = s[3] = 0;
    *sc = SE_SUIT_BIAS;
    for (int i = 0; i < n; i++) {
        uint32_t c = cards[i];
        if (c >= 52) return 0;
        uint64_t bit = (uint64_t)1 << c;
        if (seen & bit) return 0;
        seen |= bit;
        s[c & 3] |= 1u << (c >> 2);
        *sc += 1u << ((c & 3) << 2);
    }
    return 1;
}

/* Value of n (5..7) card bytes; 0 when a card is out of range or repeated. */
static inline uint32_t se_eval_bytes(const uint8_t *cards, int n)
{
    uint32_t s[4], sc;
    if (!se_read_bytes(cards, n, s, &sc)) return 0;
    return se_eval_masks(s, sc);
}

/* ---- Ace-to-five low (R-LOW-A5) and the eight-or-better qualifier (R-HILO-QUALIFY) ----
 *
 * Suits never count, so a low depends only on which ranks are held once, twice, three
 * and four times or more. Those masks are rotated so that the ace is rank 0 and the
 * king rank 12 ("low ranks"). The hand's badness is its category (0 no pair, 1 pair,
 * 2 two pair, 3 trips, 4 full house, 5 quads) << 20 plus its deciding low ranks as
 * nibbles, most significant first (the groups, then the kickers, highest first), and
 * its value is SE_LOW_BASE - badness: a larger value is a better low, as for high
 * hands, and every value is positive, so SE_NO_LOW (0) can mean "no qualifying low".
 */
#define SE_LOW_BASE 0x5FFFFFu
#define SE_NO_LOW 0u

static uint32_t se_low5_t[8192]; /* the five lowest ranks as nibbles, highest at bit 16 */

static void se_init_low_tables(void)
{
    for (uint32_t m = 1; m < 8192; m++) {
        uint32_t five = m;
        while (__builtin_popcount(five) > 5) five &= ~(1u << se_topbit_t[five]);
        se_low5_t[m] = se_top5_t[five];
    }
}

/* A 13-bit rank mask (2..A = bits 0..12) as low ranks (A..K = bits 0..12). */
static inline uint32_t se_low_ranks(uint32_t m)
{
    return ((m << 1) & 0x1FFFu) | (m >> 12);
}

/* Ace-to-five low value of 5..7 cards given as suit masks s[4] (R-LOW-A5). */
static inline uint32_t se_low_masks(const uint32_t *s)
{
    uint32_t s0 = s[0], s1 = s[1], s2 = s[2], s3 = s[3];
    uint32_t lo = s0 & s1, hi = s2 & s3, l = s0 | s1, h = s2 | s3;
    uint32_t any = se_low_ranks(l | h);
    uint32_t two = se_low_ranks(lo | hi | (l & h));
    uint32_t three = se_low_ranks((lo & h) | (hi & l));
    int distinct = __builtin_popcount(any);
    uint32_t bad;
    if (distinct >= 5) {
        bad = se_low5_t[any];
    } else if (distinct == 4) { /* one pair: the lowest paired rank, the others as kickers */
        uint32_t p = (uint32_t)__builtin_ctz(two);
        bad = 1u << 20 | p << 16 | (se_top5_t[any ^ (1u << p)] >> 4);
    } else if (distinct == 3) {
        uint32_t p2 = (uint32_t)__builtin_ctz(two), rest = two & (two - 1);
        if (rest) { /* two pair: the two lowest paired ranks, the third rank as kicker */
            uint32_t p1 = (uint32_t)__builtin_ctz(rest);
            uint32_t k = (uint32_t)__builtin_ctz(any ^ (1u << p1) ^ (1u << p2));
            bad = 2u << 20 | p1 << 16 | p2 << 12 | k << 8;
        } else { /* only one rank repeats: trips and the two others */
            bad = 3u << 20 | p2 << 16 | (se_top5_t[any ^ (1u << p2)] >> 4);
        }
    } else { /* two ranks: a full house when possible, else quads and a kicker */
        uint32_t t = (uint32_t)__builtin_ctz(three), rest = two ^ (1u << t);
        if (rest)
            bad = 4u << 20 | t << 16 | (uint32_t)__builtin_ctz(rest) << 12;
        else
            bad = 5u << 20 | t << 16 | (uint32_t)__builtin_ctz(any ^ (1u << t)) << 12;
    }
    return SE_LOW_BASE - bad;
}

/* The eight-or-better low (R-HILO-QUALIFY): the ace-to-five value when five distinct
 * ranks A..8 are held (then the best low is made of them), else SE_NO_LOW. */
static inline uint32_t se_low8_masks(const uint32_t *s)
{
    uint32_t eight = se_low_ranks(s[0] | s[1] | s[2] | s[3]) & 0xFFu;
    if (__builtin_popcount(eight) < 5) return SE_NO_LOW;
    return SE_LOW_BASE - se_low5_t[eight];
}

#endif

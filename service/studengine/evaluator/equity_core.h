/* Stud equity inner loops, included by _ceval.c (needs Python.h and eval_core.h).
 *
 * Each player holds some known cards and draws k more from the unseen deck; an
 * optional shared group (the community card) draws last and counts for everyone.
 * equity_exact enumerates every deal (groups in order, each a combination of the
 * cards left), restricted to the combinations [start, stop) of the first group
 * that draws, so that the caller can work in chunks. equity_mc deals `samples`
 * random deals, each a partial Fisher-Yates over the deck (in the order given) driven
 * by a splitmix64 stream whose state goes in and comes back out: a run split into
 * chunks of any size deals the same cards. The pure-Python twin
 * (studengine.equity._twin) deals the same cards.
 *
 * A showdown is ranked for high (R-HAND-RANK), ace-to-five low (R-LOW-A5, Razz) or
 * split high / eight-or-better low (R-HILO-SPLIT: halves, the whole pot to high when
 * nobody has a qualifying low). Each player's part of the pot is counted in 1/1680ths
 * (EQ_UNITS: a half or a whole shared by any number of 1..8 players is a whole number
 * of them; odd chips are ignored). Both count, per player: deals won whole (alone),
 * deals with a part of the pot, the units and their squares (for the mean and the
 * standard error), and in Hi-Lo the deals winning or tying the high and the low.
 */

#define EQ_MAX_PLAYERS 8
#define EQ_UNITS 1680 /* lcm(1..8) * 2 */
enum { EQ_HIGH, EQ_LOW, EQ_HIGH_LOW }; /* the showdowns, as studengine.equity numbers them */

typedef struct {
    int players, groups, deck_len;
    uint8_t deck[52];
    uint32_t base_s[EQ_MAX_PLAYERS][4], base_sc[EQ_MAX_PLAYERS];
    int group_k[EQ_MAX_PLAYERS + 1], group_of[EQ_MAX_PLAYERS]; /* group_of: -1 = no draw */
    int community; /* index of the community group, -1 if none */
    uint8_t drawn[EQ_MAX_PLAYERS + 1][7];
    uint8_t used[52];
    long long outer, start, stop;
    int done, showdown; /* EQ_HIGH, EQ_LOW or EQ_HIGH_LOW */
    unsigned long long whole[EQ_MAX_PLAYERS], part[EQ_MAX_PLAYERS], units[EQ_MAX_PLAYERS];
    unsigned long long squares[EQ_MAX_PLAYERS], high[EQ_MAX_PLAYERS], low[EQ_MAX_PLAYERS];
    unsigned long long deals;
} EqCtx;

static inline void eq_add(uint32_t *s, uint32_t *sc, uint32_t c)
{
    s[c & 3] |= 1u << (c >> 2);
    *sc += 1u << ((c & 3) << 2);
}

/* Share `units` among the players with the best of values[]; 1 if anyone is there. */
static inline void eq_award(int players, const uint32_t *values, uint32_t units, uint32_t *got,
                            unsigned long long *won)
{
    uint32_t best = 0;
    int winners = 0;
    for (int p = 0; p < players; p++)
        if (values[p] > best) best = values[p];
    for (int p = 0; p < players; p++) winners += values[p] == best;
    for (int p = 0; p < players; p++) {
        if (values[p] != best) continue;
        got[p] += units / (uint32_t)winners;
        if (won) won[p]++;
    }
}

static void eq_showdown(EqCtx *x)
{
    uint32_t highs[EQ_MAX_PLAYERS], lows[EQ_MAX_PLAYERS], got[EQ_MAX_PLAYERS];
    uint32_t best_low = SE_NO_LOW;
    for (int p = 0; p < x->players; p++) {
        uint32_t s[4] = {x->base_s[p][0], x->base_s[p][1], x->base_s[p][2], x->base_s[p][3]};
        uint32_t sc = x->base_sc[p];
        int g = x->group_of[p];
        if (g >= 0)
            for (int i = 0; i < x->group_k[g]; i++) eq_add(s, &sc, x->drawn[g][i]);
        if (x->community >= 0)
            for (int i = 0; i < x->group_k[x->community]; i++)
                eq_add(s, &sc, x->drawn[x->community][i]);
        got[p] = 0;
        if (x->showdown == EQ_LOW) {
            highs[p] = se_low_masks(s);
            continue;
        }
        highs[p] = se_eval_masks(s, sc);
        if (x->showdown == EQ_HIGH_LOW) {
            lows[p] = se_low8_masks(s);
            if (lows[p] > best_low) best_low = lows[p];
        }
    }
    if (x->showdown != EQ_HIGH_LOW) {
        eq_award(x->players, highs, EQ_UNITS, got, NULL);
    } else if (best_low == SE_NO_LOW) { /* nobody qualifies: high takes the whole pot */
        eq_award(x->players, highs, EQ_UNITS, got, x->high);
    } else {
        eq_award(x->players, highs, EQ_UNITS / 2, got, x->high);
        eq_award(x->players, lows, EQ_UNITS / 2, got, x->low);
    }
    for (int p = 0; p < x->players; p++) {
        unsigned long long g = got[p];
        x->units[p] += g;
        x->squares[p] += g * g;
        if (g == EQ_UNITS)
            x->whole[p]++;
        else if (g)
            x->part[p]++;
    }
    x->deals++;
}

static void eq_enumerate(EqCtx *x, int g, int depth, int from)
{
    if (g == x->groups) {
        eq_showdown(x);
        return;
    }
    if (depth == x->group_k[g]) {
        if (g == 0) {
            long long index = x->outer++;
            if (index < x->start) return;
            if (index >= x->stop) {
                x->done = 1;
                return;
            }
        }
        eq_enumerate(x, g + 1, 0, 0);
        return;
    }
    for (int i = from; i < x->deck_len && !x->done; i++) {
        if (x->used[i]) continue;
        x->used[i] = 1;
        x->drawn[g][depth] = x->deck[i];
        eq_enumerate(x, g, depth + 1, i + 1);
        x->used[i] = 0;
    }
}

/* Parse (known: tuple[bytes, ...], draws: bytes, deck: bytes, board: bytes, showdown:
 * EQ_HIGH, EQ_LOW or EQ_HIGH_LOW) into x; board holds the community card when it is already
 * dealt. -1 on error. */
static int eq_setup(EqCtx *x, PyObject *known, PyObject *draws, PyObject *deck, PyObject *board,
                    PyObject *showdown)
{
    memset(x, 0, sizeof(*x));
    long kind = PyLong_Check(showdown) ? PyLong_AsLong(showdown) : -1;
    if (kind != EQ_HIGH && kind != EQ_LOW && kind != EQ_HIGH_LOW) {
        PyErr_Clear();
        bad("showdown must be 0 (high), 1 (low) or 2 (high-low), got %R", showdown);
        return -1;
    }
    x->showdown = (int)kind;
    if (!PyTuple_Check(known) || !PyBytes_Check(draws) || !PyBytes_Check(deck) ||
        !PyBytes_Check(board) || PyBytes_GET_SIZE(board) > 1) {
        bad("expected (tuple of bytes, bytes, bytes, bytes of at most one card)");
        return -1;
    }
    Py_ssize_t players = PyTuple_GET_SIZE(known);
    if (players < 1 || players > EQ_MAX_PLAYERS || PyBytes_GET_SIZE(draws) != players + 1) {
        bad("1 to %d players, and one draw count per player plus the community's",
            EQ_MAX_PLAYERS);
        return -1;
    }
    x->players = (int)players;
    const uint8_t *k = (const uint8_t *)PyBytes_AS_STRING(draws);
    Py_ssize_t deck_len = PyBytes_GET_SIZE(deck);
    const uint8_t *d = (const uint8_t *)PyBytes_AS_STRING(deck);
    if (deck_len > 52) {
        bad("deck longer than 52 cards");
        return -1;
    }
    uint64_t seen = 0;
    for (Py_ssize_t i = 0; i < deck_len; i++) {
        if (d[i] >= 52 || (seen >> d[i] & 1)) {
            bad("deck: bad or repeated card %d", (int)d[i]);
            return -1;
        }
        seen |= (uint64_t)1 << d[i];
        x->deck[i] = d[i];
    }
    x->deck_len = (int)deck_len;
    int total = 0, community_k = k[players];
    int board_len = (int)PyBytes_GET_SIZE(board);
    const uint8_t *b = (const uint8_t *)PyBytes_AS_STRING(board);
    if (community_k + board_len > 1) {
        bad("at most one community card");
        return -1;
    }
    for (int i = 0; i < board_len; i++) {
        if (b[i] >= 52 || (seen >> b[i] & 1)) {
            bad("board: bad or repeated card %d", (int)b[i]);
            return -1;
        }
        seen |= (uint64_t)1 << b[i];
    }
    for (int p = 0; p < x->players; p++) {
        PyObject *cards = PyTuple_GET_ITEM(known, p);
        if (!PyBytes_Check(cards)) {
            bad("known cards must be bytes");
            return -1;
        }
        Py_ssize_t n = PyBytes_GET_SIZE(cards);
        const uint8_t *c = (const uint8_t *)PyBytes_AS_STRING(cards);
        if (n + k[p] + community_k + board_len < 5 || n + k[p] + community_k + board_len > 7) {
            bad("player %d: %zd known + %d drawn cards is not 5..7", p, n, (int)k[p]);
            return -1;
        }
        x->base_sc[p] = SE_SUIT_BIAS;
        for (Py_ssize_t i = 0; i < n; i++) {
            if (c[i] >= 52 || (seen >> c[i] & 1)) {
                bad("player %d: bad or repeated card %d", p, (int)c[i]);
                return -1;
            }
            eq_add(x->base_s[p], &x->base_sc[p], c[i]);
        }
        for (int i = 0; i < board_len; i++) eq_add(x->base_s[p], &x->base_sc[p], b[i]);
        for (Py_ssize_t i = 0; i < n; i++) seen |= (uint64_t)1 << c[i];
        x->group_of[p] = -1;
        if (k[p]) {
            x->group_of[p] = x->groups;
            x->group_k[x->groups++] = k[p];
        }
        total += k[p];
    }
    x->community = -1;
    if (community_k) {
        x->community = x->groups;
        x->group_k[x->groups++] = community_k;
    }
    if (total + community_k > x->deck_len) {
        bad("%d cards to draw from a deck of %d", total + community_k, x->deck_len);
        return -1;
    }
    return 0;
}

/* The counts as (whole, part, units, squares, high, low, deals[, state]), a list of
 * one int per player for each of the first six. */
static PyObject *eq_result(EqCtx *x, int with_state, uint64_t state)
{
    unsigned long long *rows[6] = {x->whole, x->part, x->units, x->squares, x->high, x->low};
    PyObject *lists[6] = {NULL, NULL, NULL, NULL, NULL, NULL};
    for (int r = 0; r < 6; r++) {
        lists[r] = PyList_New(x->players);
        if (lists[r] == NULL) goto fail;
        for (int p = 0; p < x->players; p++) {
            PyObject *n = PyLong_FromUnsignedLongLong(rows[r][p]);
            if (n == NULL) goto fail;
            PyList_SET_ITEM(lists[r], p, n);
        }
    }
    if (with_state)
        return Py_BuildValue("(NNNNNNKK)", lists[0], lists[1], lists[2], lists[3], lists[4],
                             lists[5], x->deals, (unsigned long long)state);
    return Py_BuildValue("(NNNNNNK)", lists[0], lists[1], lists[2], lists[3], lists[4], lists[5],
                         x->deals);
fail:
    for (int r = 0; r < 6; r++) Py_XDECREF(lists[r]);
    return NULL;
}

static PyObject *py_equity_exact(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 7) {
        PyErr_SetString(PyExc_TypeError,
                        "equity_exact(known, draws, deck, board, showdown, start, stop)");
        return NULL;
    }
    long long start = PyLong_AsLongLong(args[5]), stop = PyLong_AsLongLong(args[6]);
    if (PyErr_Occurred()) return NULL;
    EqCtx *x = PyMem_Malloc(sizeof(EqCtx));
    if (x == NULL) return PyErr_NoMemory();
    if (eq_setup(x, args[0], args[1], args[2], args[3], args[4]) < 0) {
        PyMem_Free(x);
        return NULL;
    }
    x->start = start;
    x->stop = stop;
    Py_BEGIN_ALLOW_THREADS
    if (x->groups == 0) {
        if (start <= 0 && stop > 0) eq_showdown(x); /* nothing left to deal */
    } else {
        eq_enumerate(x, 0, 0, 0);
    }
    Py_END_ALLOW_THREADS
    PyObject *result = eq_result(x, 0, 0);
    PyMem_Free(x);
    return result;
}

static inline uint64_t eq_splitmix(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* floor(u * n / 2**32): a number below n from 32 random bits (bias < n / 2**32). */
static inline uint32_t eq_below(uint32_t u, uint32_t n)
{
    return (uint32_t)(((uint64_t)u * n) >> 32);
}

static PyObject *py_equity_mc(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 7) {
        PyErr_SetString(PyExc_TypeError,
                        "equity_mc(known, draws, deck, board, showdown, samples, state)");
        return NULL;
    }
    long long samples = PyLong_AsLongLong(args[5]);
    if (samples == -1 && PyErr_Occurred()) return NULL;
    uint64_t state = PyLong_AsUnsignedLongLongMask(args[6]);
    if (PyErr_Occurred()) return NULL;
    if (samples < 0) return bad("samples must be >= 0");
    EqCtx *x = PyMem_Malloc(sizeof(EqCtx));
    if (x == NULL) return PyErr_NoMemory();
    if (eq_setup(x, args[0], args[1], args[2], args[3], args[4]) < 0) {
        PyMem_Free(x);
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
    int offset[EQ_MAX_PLAYERS + 1], draw = 0;
    for (int g = 0; g < x->groups; g++) {
        offset[g] = draw;
        draw += x->group_k[g];
    }
    uint8_t deck[52];
    uint32_t len = (uint32_t)x->deck_len;
    for (long long i = 0; i < samples; i++) {
        memcpy(deck, x->deck, len); /* every deal starts from the same order */
        uint64_t z = 0;
        for (int j = 0; j < draw; j++) { /* two draws from each 64-bit output: low, high */
            uint32_t u;
            if (j & 1) {
                u = (uint32_t)(z >> 32);
            } else {
                z = eq_splitmix(&state);
                u = (uint32_t)z;
            }
            uint32_t r = (uint32_t)j + eq_below(u, len - (uint32_t)j);
            uint8_t t = deck[j];
            deck[j] = deck[r];
            deck[r] = t;
        }
        for (int g = 0; g < x->groups; g++)
            for (int j = 0; j < x->group_k[g]; j++) x->drawn[g][j] = deck[offset[g] + j];
        eq_showdown(x);
    }
    Py_END_ALLOW_THREADS
    PyObject *result = eq_result(x, 1, state);
    PyMem_Free(x);
    return result;
}

/* studengine.evaluator._ceval: the C evaluator and the stud equity inner loops.
 *
 * evaluate(cards), evaluate_mask(mask), evaluate_many(buffer, hand_size) and the lows
 * evaluate_low / evaluate_low8 (single) and evaluate_low_many / evaluate_low8_many
 * (batch, without the GIL) give the same values as the pure-Python twin (_twin.py). equity_exact / equity_mc run the
 * showdowns of studengine.equity (which validates and prepares their arguments).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

#include "eval_core.h"

static PyObject *array_type = NULL; /* array.array */

static PyObject *bad(const char *fmt, ...)
{
    va_list va;
    va_start(va, fmt);
    PyErr_FormatV(PyExc_ValueError, fmt, va);
    va_end(va);
    return NULL;
}

/* A small non-negative exact int's value without a call, else -1 (then the slow path
 * decides). Uses CPython's int layout where it is known (3.11; the unstable API after). */
static inline long small_int(PyObject *item)
{
    if (!PyLong_CheckExact(item)) return -1;
#if PY_VERSION_HEX >= 0x030C0000
    if (!PyUnstable_Long_IsCompact((PyLongObject *)item)) return -1;
    Py_ssize_t v = PyUnstable_Long_CompactValue((PyLongObject *)item);
    return v >= 0 ? (long)v : -1;
#else
    Py_ssize_t size = Py_SIZE(item);
    if (size == 0) return 0;
    if (size == 1) return (long)((PyLongObject *)item)->ob_digit[0];
    return -1;
#endif
}

/* Read 5..7 card ints from a list/tuple (or any sequence) into out[]; -1 on error. */
static int read_cards(PyObject *seq, uint8_t *out)
{
    PyObject *fast = NULL;
    PyObject **items;
    Py_ssize_t n;
    if (PyList_CheckExact(seq)) {
        items = ((PyListObject *)seq)->ob_item;
        n = PyList_GET_SIZE(seq);
    } else if (PyTuple_CheckExact(seq)) {
        items = ((PyTupleObject *)seq)->ob_item;
        n = PyTuple_GET_SIZE(seq);
    } else {
        if (!PySequence_Check(seq)) { /* as the twin: a sized sequence, not any iterable */
            bad("cards must be a sequence of card ints, not %s", Py_TYPE(seq)->tp_name);
            return -1;
        }
        fast = PySequence_Fast(seq, "cards must be a sequence of card ints");
        if (fast == NULL) {
            PyErr_Clear();
            bad("cards must be a sequence of card ints, not %s", Py_TYPE(seq)->tp_name);
            return -1;
        }
        items = PySequence_Fast_ITEMS(fast);
        n = PySequence_Fast_GET_SIZE(fast);
    }
    if (n < 5 || n > 7) {
        Py_XDECREF(fast);
        bad("a hand has 5 to 7 cards, got %zd", n);
        return -1;
    }
    uint64_t seen = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = items[i];
        long fast = small_int(item);
        if (fast >= 0 && fast < 52 && !(seen >> fast & 1)) {
            seen |= (uint64_t)1 << fast;
            out[i] = (uint8_t)fast;
            continue;
        }
        if (!PyLong_Check(item)) {
            bad("card must be an int, got %R", item);
            goto fail;
        }
        long c = PyLong_AsLong(item);
        if (c == -1 && PyErr_Occurred()) {
            PyErr_Clear();
            bad("card out of range 0..51: %R", item);
            goto fail;
        }
        if (c < 0 || c >= 52) {
            bad("card out of range 0..51: %ld", c);
            goto fail;
        }
        if (seen >> c & 1) {
            bad("duplicate card: %ld", c);
            goto fail;
        }
        seen |= (uint64_t)1 << c;
        out[i] = (uint8_t)c;
    }
    Py_XDECREF(fast);
    return (int)n;
fail:
    Py_XDECREF(fast);
    return -1;
}

/* What a call ranks: high (R-HAND-RANK), ace-to-five low (R-LOW-A5) or the
 * eight-or-better low (R-HILO-QUALIFY, SE_NO_LOW when none). */
enum { RANK_HIGH, RANK_LOW, RANK_LOW8 };

static inline uint32_t rank_masks(int ranking, const uint32_t *s, uint32_t sc)
{
    switch (ranking) {
    case RANK_LOW: return se_low_masks(s);
    case RANK_LOW8: return se_low8_masks(s);
    default: return se_eval_masks(s, sc);
    }
}

static PyObject *one_hand(PyObject *const *args, Py_ssize_t nargs, int ranking, const char *name)
{
    uint8_t cards[7];
    if (nargs != 1) {
        PyErr_Format(PyExc_TypeError, "%s() takes exactly one argument (the cards)", name);
        return NULL;
    }
    int n = read_cards(args[0], cards);
    if (n < 0) return NULL;
    uint32_t s[4] = {0, 0, 0, 0};
    uint32_t sc = SE_SUIT_BIAS;
    for (int i = 0; i < n; i++) {
        uint32_t c = cards[i];
        s[c & 3] |= 1u << (c >> 2);
        sc += 1u << ((c & 3) << 2);
    }
    return PyLong_FromUnsignedLong(rank_masks(ranking, s, sc));
}

static PyObject *py_evaluate(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    return one_hand(args, nargs, RANK_HIGH, "evaluate");
}

static PyObject *py_evaluate_low(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    return one_hand(args, nargs, RANK_LOW, "evaluate_low");
}

static PyObject *py_evaluate_low8(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    return one_hand(args, nargs, RANK_LOW8, "evaluate_low8");
}

static PyObject *py_evaluate_mask(PyObject *self, PyObject *arg)
{
    if (!PyLong_Check(arg)) return bad("mask must be an int, got %R", arg);
    unsigned long long m = PyLong_AsUnsignedLongLong(arg);
    if (m == (unsigned long long)-1 && PyErr_Occurred()) {
        PyErr_Clear();
        return bad("mask must be an int with bits 0..51 only, got %R", arg);
    }
    if (m >> 52) return bad("mask must be an int with bits 0..51 only, got %R", arg);
    uint32_t s[4] = {0, 0, 0, 0};
    uint32_t sc = SE_SUIT_BIAS;
    int n = 0;
    while (m) {
        uint32_t c = (uint32_t)__builtin_ctzll(m);
        m &= m - 1;
        s[c & 3] |= 1u << (c >> 2);
        sc += 1u << ((c & 3) << 2);
        n++;
    }
    if (n < 5 || n > 7) return bad("a hand has 5 to 7 cards, the mask has %d", n);
    return PyLong_FromUnsignedLong(se_eval_masks(s, sc));
}

/* Borrow a C-contiguous one-byte-per-item buffer, ValueError if it is not one. */
static int get_byte_buffer(PyObject *obj, Py_buffer *view)
{
    if (PyObject_GetBuffer(obj, view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
        PyErr_Clear();
        bad("buffer must support the buffer protocol (C-contiguous), got %s",
            Py_TYPE(obj)->tp_name);
        return -1;
    }
    if (view->itemsize != 1) {
        bad("buffer items must be one byte each, got itemsize %zd", view->itemsize);
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

/* Say what is wrong with one hand of a batch. */
static PyObject *bad_hand(const uint8_t *h, int n, Py_ssize_t index)
{
    uint64_t seen = 0;
    for (int i = 0; i < n; i++) {
        if (h[i] >= 52) return bad("hand %zd: card out of range 0..51: %d", index, (int)h[i]);
        if (seen >> h[i] & 1) return bad("hand %zd: duplicate card: %d", index, (int)h[i]);
        seen |= (uint64_t)1 << h[i];
    }
    return bad("hand %zd: invalid", index);
}

/* The batch loops: the index of the first invalid hand, or -1. */
static Py_ssize_t high_batch(const uint8_t *in, int n, Py_ssize_t count, int32_t *out)
{
    for (Py_ssize_t i = 0; i < count; i++) {
        uint32_t v = se_eval_bytes(in + i * n, n);
        if (!v) return i;
        out[i] = (int32_t)v;
    }
    return -1;
}

static Py_ssize_t low_batch(const uint8_t *in, int n, Py_ssize_t count, int32_t *out, int eight)
{
    for (Py_ssize_t i = 0; i < count; i++) {
        uint32_t s[4], sc;
        if (!se_read_bytes(in + i * n, n, s, &sc)) return i;
        out[i] = (int32_t)(eight ? se_low8_masks(s) : se_low_masks(s));
    }
    return -1;
}

static PyObject *many_hands(PyObject *const *args, Py_ssize_t nargs, int ranking,
                            const char *name)
{
    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError, "%s() takes two arguments (buffer, hand_size)", name);
        return NULL;
    }
    if (!PyLong_Check(args[1])) return bad("hand_size must be 5, 6 or 7, got %R", args[1]);
    long hs = PyLong_AsLong(args[1]);
    if (hs == -1 && PyErr_Occurred()) PyErr_Clear();
    if (hs < 5 || hs > 7) return bad("hand_size must be 5, 6 or 7, got %R", args[1]);
    Py_buffer view;
    if (get_byte_buffer(args[0], &view) < 0) return NULL;
    if (view.len % hs) {
        Py_ssize_t len = view.len;
        PyBuffer_Release(&view);
        return bad("buffer length %zd is not a multiple of hand_size %ld", len, hs);
    }
    Py_ssize_t count = view.len / hs;
    PyObject *raw = PyBytes_FromStringAndSize(NULL, count * (Py_ssize_t)sizeof(int32_t));
    if (raw == NULL) {
        PyBuffer_Release(&view);
        return NULL;
    }
    int32_t *out = (int32_t *)PyBytes_AS_STRING(raw);
    const uint8_t *in = (const uint8_t *)view.buf;
    Py_ssize_t failed;
    int n = (int)hs;
    Py_BEGIN_ALLOW_THREADS
    failed = ranking == RANK_HIGH ? high_batch(in, n, count, out)
                                  : low_batch(in, n, count, out, ranking == RANK_LOW8);
    Py_END_ALLOW_THREADS
    PyObject *result = NULL;
    if (failed >= 0)
        bad_hand(in + failed * n, n, failed);
    else
        result = PyObject_CallFunction(array_type, "sO", "i", raw);
    Py_DECREF(raw);
    PyBuffer_Release(&view);
    return result;
}

static PyObject *py_evaluate_many(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    return many_hands(args, nargs, RANK_HIGH, "evaluate_many");
}

static PyObject *py_evaluate_low_many(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    return many_hands(args, nargs, RANK_LOW, "evaluate_low_many");
}

static PyObject *py_evaluate_low8_many(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    return many_hands(args, nargs, RANK_LOW8, "evaluate_low8_many");
}

#include "equity_core.h"

static PyMethodDef methods[] = {
    {"evaluate", (PyCFunction)(void (*)(void))py_evaluate, METH_FASTCALL,
     "evaluate(cards) -> int: value of the best five of 5..7 card ints."},
    {"evaluate_low", (PyCFunction)(void (*)(void))py_evaluate_low, METH_FASTCALL,
     "evaluate_low(cards) -> int: ace-to-five low value of the best five of 5..7 cards."},
    {"evaluate_low8", (PyCFunction)(void (*)(void))py_evaluate_low8, METH_FASTCALL,
     "evaluate_low8(cards) -> int: eight-or-better low value, 0 when none qualifies."},
    {"evaluate_low_many", (PyCFunction)(void (*)(void))py_evaluate_low_many, METH_FASTCALL,
     "evaluate_low_many(buffer, hand_size) -> array('i'): ace-to-five lows of hands."},
    {"evaluate_low8_many", (PyCFunction)(void (*)(void))py_evaluate_low8_many, METH_FASTCALL,
     "evaluate_low8_many(buffer, hand_size) -> array('i'): eight-or-better lows (0: none)."},
    {"evaluate_mask", py_evaluate_mask, METH_O,
     "evaluate_mask(mask) -> int: value of the hand given as a 52-bit mask."},
    {"evaluate_many", (PyCFunction)(void (*)(void))py_evaluate_many, METH_FASTCALL,
     "evaluate_many(buffer, hand_size) -> array('i'): values of consecutive hands."},
    {"equity_exact", (PyCFunction)(void (*)(void))py_equity_exact, METH_FASTCALL,
     "equity_exact(known, draws, deck, board, showdown, start, stop) -> counts, deals."},
    {"equity_mc", (PyCFunction)(void (*)(void))py_equity_mc, METH_FASTCALL,
     "equity_mc(known, draws, deck, board, showdown, samples, state) -> counts, deals, state."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_ceval", "The C hand evaluator and equity loops.", -1, methods,
};

PyMODINIT_FUNC PyInit__ceval(void)
{
    se_init_tables();
    PyObject *array_mod = PyImport_ImportModule("array");
    if (array_mod == NULL) return NULL;
    array_type = PyObject_GetAttrString(array_mod, "array");
    Py_DECREF(array_mod);
    if (array_type == NULL) return NULL;
    return PyModule_Create(&module);
}

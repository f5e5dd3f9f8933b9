# distutils: language = c++
# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Native kernels for the engine's per-character work (compiled with Cython when the package is installed).

Each function here has a pure-Python twin that defines its meaning (``view._segments``,
``rules.repeated.find_python``); ``tests/engine/test_native.py`` checks they agree on the bundled corpus
sample and on generated text.  The engine uses these when the extension is built and falls back to the
Python twins when it is not (``layerzero_viz.native.AVAILABLE``).

* ``segments``: sentence or clause ranges of ``text[start:end]``;
* ``find_repeats``: the repeated-constraint scan — units, bigram sets, exact and near repeats with prefix
  filtering — over all blocks, returning each block's sentences too (the view caches them).
"""
from libc.stdint cimport uint64_t
from libcpp.vector cimport vector
from libcpp.unordered_map cimport unordered_map
from libcpp.unordered_set cimport unordered_set
from libcpp.algorithm cimport sort, unique, partial_sort
from libcpp.utility cimport pair
from cython.operator cimport dereference as deref
from cpython.tuple cimport PyTuple_New, PyTuple_SET_ITEM
from cpython.ref cimport Py_INCREF

import unicodedata


cdef extern from "Python.h":
    bint Py_UNICODE_ISSPACE(Py_UCS4 ch) nogil
    bint Py_UNICODE_ISDECIMAL(Py_UCS4 ch) nogil
    bint Py_UNICODE_ISALNUM(Py_UCS4 ch) nogil
    int PyUnicode_KIND(object o)
    void* PyUnicode_DATA(object o)
    Py_UCS4 PyUnicode_READ(int kind, void* data, Py_ssize_t index) nogil


cdef struct Text:
    int kind
    void* data


cdef inline Text _raw(str text):
    cdef Text t
    t.kind = PyUnicode_KIND(text)
    t.data = PyUnicode_DATA(text)
    return t


cdef inline Py_UCS4 _at(Text t, Py_ssize_t i) noexcept nogil:
    return PyUnicode_READ(t.kind, t.data, i)

cdef uint64_t FNV_OFFSET = 14695981039346656037ULL
cdef uint64_t FNV_PRIME = 1099511628211ULL


cdef inline uint64_t _mix(uint64_t x) noexcept nogil:
    # splitmix64 finaliser
    x ^= x >> 30
    x *= 0xbf58476d1ce4e5b9ULL
    x ^= x >> 27
    x *= 0x94d049bb133111ebULL
    x ^= x >> 31
    return x


cdef inline bint _isspace(Py_UCS4 c) noexcept nogil:
    """``str.isspace`` for one character, ASCII answered inline."""
    if c < 128:
        return c == 32 or (9 <= c <= 13) or (28 <= c <= 31)
    return Py_UNICODE_ISSPACE(c)


cdef inline bint _isdecimal(Py_UCS4 c) noexcept nogil:
    """Python's ``\\d`` for str patterns (Unicode decimal digits), ASCII answered inline."""
    if c < 128:
        return 48 <= c <= 57
    return Py_UNICODE_ISDECIMAL(c)


cdef inline bint _isalnum(Py_UCS4 c) noexcept nogil:
    if c < 128:
        return (48 <= c <= 57) or (65 <= c <= 90) or (97 <= c <= 122)
    return Py_UNICODE_ISALNUM(c)


cdef inline bint _ascii_alnum(Py_UCS4 c) noexcept nogil:
    return (48 <= c <= 57) or (65 <= c <= 90) or (97 <= c <= 122)


cdef inline bint _is_term(Py_UCS4 c) noexcept nogil:
    return (c == u'。' or c == u'！' or c == u'？' or c == u'!' or c == u'?' or c == u'；' or c == u';'
            or c == u'…')


cdef inline bint _is_closer(Py_UCS4 c) noexcept nogil:
    return c == u'”' or c == u'’' or c == u'」' or c == u'』' or c == u'）' or c == u')' or c == u'"' or c == u"'"


cdef inline bint _period_closer(Py_UCS4 c) noexcept nogil:   # view._SENTENCE_END's [”’"')] after a period
    return c == u'”' or c == u'’' or c == u'"' or c == u"'" or c == u')'


cdef inline bint _is_comma(Py_UCS4 c) noexcept nogil:
    return c == u'，' or c == u',' or c == u'、' or c == u'：' or c == u':'


cdef void _segments(Text t, Py_ssize_t length, Py_ssize_t start, Py_ssize_t end, bint clause,
                    vector[Py_ssize_t]& out, bint first=False) noexcept nogil:
    """Same ranges as ``view._segments`` with ``_SENTENCE_END`` (clause=False) or ``_CLAUSE_END``, appended
    to ``out`` as start, end pairs; with ``first``, only the first of them (the scan stops there)."""
    cdef size_t had = out.size()
    cdef Py_ssize_t pos, i, j, m_start, seg_end, s
    cdef Py_UCS4 c
    end = min(end, length)
    start = max(start, 0)
    pos = start
    i = start
    while i < end:
        c = _at(t, i)
        m_start = i
        j = -1
        if clause and _is_comma(c):
            j = i + 1
        elif clause and (c == u'～' or c == u'〜'):  # view._CLAUSE_END's wave dashes: not between ASCII alnums
            j = i + 1
            while j < end and (_at(t, j) == u'～' or _at(t, j) == u'〜'):
                j += 1
            if i > 0 and _ascii_alnum(_at(t, i - 1)) and j < end and _ascii_alnum(_at(t, j)):
                i = j  # a range ("1～3"): the whole run is passed over
                continue
        elif clause and c == u'~' and i > 0 and 0x3400 <= _at(t, i - 1) <= 0x9fff:  # "谢啦~", not "~/bin"
            j = i + 1
            while j < end and _at(t, j) == u'~':
                j += 1
            if j < end and (_ascii_alnum(_at(t, j)) or _at(t, j) == u'/'):
                j = -1
        elif clause and c == u'~' and i > 0 and _ascii_alnum(_at(t, i - 1)) and not _isdecimal(_at(t, i - 1)):
            j = i + 1  # "Hi~ What's …": after a latin letter, before a space
            while j < end and _at(t, j) == u'~':
                j += 1
            if not (j < end and (_at(t, j) == u' ' or _at(t, j) == u'\t')):
                j = -1
        elif _is_term(c):
            j = i + 1
            while j < end and _is_term(_at(t, j)):
                j += 1
            if not clause and j < end and _is_closer(_at(t, j)):
                j += 1
        elif c == u'.':
            if i + 1 >= end or _isspace(_at(t, i + 1)):
                j = i + 1
            elif not clause and _period_closer(_at(t, i + 1)) and (i + 2 >= end or _isspace(_at(t, i + 2))):
                j = i + 2  # 'reply with "Anytime." Always …': the quotation closes the sentence
        elif c == u'\n':
            j = i + 1
            while j < end and _at(t, j) == u'\n':
                j += 1
        if j < 0:
            i += 1
            continue
        seg_end = m_start if c == u'\n' else j
        _push_trimmed(t, pos, seg_end, out)
        if first and out.size() > had:
            return
        pos = j
        i = j
    _push_trimmed(t, pos, end, out)


cdef inline void _push_trimmed(Text t, Py_ssize_t s, Py_ssize_t e, vector[Py_ssize_t]& out) noexcept nogil:
    """Append [s, e) without its leading whitespace, unless nothing is left."""
    while s < e and _isspace(_at(t, s)):
        s += 1
    if s < e:
        out.push_back(s)
        out.push_back(e)


cdef tuple _flat_tuple(const vector[Py_ssize_t]& flat, size_t a, size_t b):
    """``flat[a:b]`` as a tuple, built in place (slicing the vector itself would convert all of it first)."""
    cdef tuple out = PyTuple_New(b - a)
    cdef size_t k
    cdef object item  # a Python int: SET_ITEM steals the reference taken for it
    for k in range(a, b):
        item = flat[k]
        Py_INCREF(item)
        PyTuple_SET_ITEM(out, k - a, item)
    return out


cdef list _pairs(const vector[Py_ssize_t]& flat, size_t a, size_t b):
    return [(flat[k], flat[k + 1]) for k in range(a, b, 2)]


def segments(str text, Py_ssize_t start, Py_ssize_t end, bint clause=False, bint first=False):
    """Sentence (or, with ``clause``, clause) ranges of ``text[start:end]``, leading whitespace trimmed; with
    ``first``, only the first range (``segments(...)[:1]``, without scanning the rest)."""
    cdef vector[Py_ssize_t] out
    _segments(_raw(text), len(text), start, end, clause, out, first)
    return _pairs(out, 0, out.size())


# ---------------------------------------------------------------------------------------------- units
cdef unordered_map[Py_UCS4, vector[Py_UCS4]] _FOLD_C  # every char whose fold is not itself (see prepare_fold)
cdef bint _fold_ready = False


def prepare_fold():
    """Fill the fold table once: per-character NFKC then lower case, for every code point it changes.

    About 6,200 characters of planes 0-3 change (≈60 ms to find, once per process); none beyond plane 3 does
    (``tests/engine/test_native.py`` checks), so every other character folds to itself and the scan needs
    no Python — it can run without the GIL.
    """
    global _fold_ready
    cdef vector[Py_UCS4] v
    cdef Py_UCS4 x
    if _fold_ready:
        return
    for c in range(0x40000):
        if 0xD800 <= c <= 0xDFFF:
            continue
        ch = chr(c)
        f = unicodedata.normalize("NFKC", ch).lower()
        if f != ch:
            v.clear()
            for x in f:
                v.push_back(x)
            _FOLD_C[<Py_UCS4>c] = v
    _fold_ready = True


cdef inline bint _is_cjk(Py_UCS4 c) noexcept nogil:
    return (0x3400 <= c <= 0x9fff) or (0xf900 <= c <= 0xfaff)


cdef inline bint _is_word(Py_UCS4 c) noexcept nogil:
    return (u'a' <= c <= u'z') or (u'0' <= c <= u'9')


cdef void _fold_into(Text t, Py_ssize_t length, Py_ssize_t start, Py_ssize_t end,
                     vector[Py_UCS4]& out) noexcept nogil:
    cdef Py_ssize_t i
    cdef Py_UCS4 c
    cdef size_t k
    out.clear()
    for i in range(max(start, 0), min(end, length)):
        c = _at(t, i)
        if c < 128:
            if u'A' <= c <= u'Z':
                c = <Py_UCS4>(<unsigned int>c + 32)
            out.push_back(c)
        elif 0x3400 <= c <= 0x9fff:
            out.push_back(c)
        else:
            it = _FOLD_C.find(c)
            if it == _FOLD_C.end():
                out.push_back(c)
            else:
                for k in range(deref(it).second.size()):
                    out.push_back(deref(it).second[k])


cdef uint64_t HASH_NUMBER


cdef struct Skip:
    uint64_t mask[16]                  # a 1024-bit filter: most units are rejected without a hash lookup
    unordered_set[uint64_t]* words


cdef inline bint _skipped(const Skip& skip, uint64_t h) noexcept nogil:
    cdef uint64_t b = (h >> 7) & 1023
    if not (skip.mask[b >> 6] >> (b & 63)) & 1:
        return False
    return skip.words.count(h) != 0


cdef void _units(const vector[Py_UCS4]& s, const Skip& skip, vector[uint64_t]& out) noexcept nogil:
    """Unit hashes of a folded text: CJK chars and [a-z0-9]+(['’][a-z]+)? words; numbers as '#',
    function words dropped — the same units as ``rules.repeated._comparable``."""
    _units_of(s, &skip, True, out)


cdef void _units_of(const vector[Py_UCS4]& s, const Skip* skip, bint numbers_as_one, vector[uint64_t]& out) noexcept nogil:
    """``_units`` with options: ``skip`` NULL keeps function words, ``numbers_as_one`` false keeps each
    number's digits (``view.units``)."""
    cdef size_t n = s.size(), i = 0, j
    cdef uint64_t h
    cdef Py_UCS4 c
    cdef bint digit
    out.clear()
    while i < n:
        c = s[i]
        if _is_cjk(c):
            h = (FNV_OFFSET ^ <uint64_t>c) * FNV_PRIME
            if skip == NULL or not _skipped(skip[0], h):
                out.push_back(h)
            i += 1
        elif _is_word(c):
            digit = c <= u'9'
            h = FNV_OFFSET
            j = i
            while j < n and _is_word(s[j]):
                h = (h ^ <uint64_t>s[j]) * FNV_PRIME
                j += 1
            if j + 1 < n and (s[j] == u"'" or s[j] == u'’') and u'a' <= s[j + 1] <= u'z':
                h = (h ^ <uint64_t>s[j]) * FNV_PRIME
                j += 1
                while j < n and u'a' <= s[j] <= u'z':
                    h = (h ^ <uint64_t>s[j]) * FNV_PRIME
                    j += 1
            i = j
            if digit and numbers_as_one:
                out.push_back(HASH_NUMBER)
            elif digit or skip == NULL or not _skipped(skip[0], h):
                out.push_back(h)
        else:
            i += 1


cdef uint64_t _hash_str(str word):
    cdef uint64_t h = FNV_OFFSET
    cdef Py_UCS4 c
    for c in word:
        h = (h ^ <uint64_t>c) * FNV_PRIME
    return h


HASH_NUMBER = _hash_str("#")


cdef struct Kept:
    Py_ssize_t start
    Py_ssize_t end


cdef struct Slot:
    uint64_t key
    unsigned int gen    # the table's generation when this slot was filled (older: empty)
    int head            # postings: last entry in the entry arrays (-1 none); exact: the kept index
    int count


cdef class _Table:
    """A flat open-addressing hash table of uint64 keys, emptied in O(1) by bumping a generation."""
    cdef vector[Slot] slots
    cdef uint64_t mask
    cdef size_t used
    cdef unsigned int gen

    def __cinit__(self):
        cdef Slot empty
        empty.key = 0
        empty.gen = 0
        empty.head = -1
        empty.count = 0
        self.slots.assign(64, empty)  # grows as keys come (a short prompt's scan needs few; each scan is new)
        self.mask = 63
        self.used = 0
        self.gen = 1

    cdef void clear(self) noexcept nogil:
        self.gen += 1
        self.used = 0
        cdef size_t k
        if self.gen == 0:  # wrapped: really empty the slots once
            for k in range(self.slots.size()):
                self.slots[k].gen = 0
            self.gen = 1

    cdef inline Slot* find(self, uint64_t key) noexcept nogil:
        cdef uint64_t i = _mix(key) & self.mask
        while self.slots[i].gen == self.gen:
            if self.slots[i].key == key:
                return &self.slots[i]
            i = (i + 1) & self.mask
        return NULL

    cdef Slot* insert(self, uint64_t key) noexcept nogil:
        """The slot of ``key``, created (head -1, count 0) when missing."""
        cdef uint64_t i
        cdef Slot* found = self.find(key)
        if found != NULL:
            return found
        if 2 * (self.used + 1) > self.slots.size():
            self._grow()
        i = _mix(key) & self.mask
        while self.slots[i].gen == self.gen:
            i = (i + 1) & self.mask
        self.slots[i].key = key
        self.slots[i].gen = self.gen
        self.slots[i].head = -1
        self.slots[i].count = 0
        self.used += 1
        return &self.slots[i]

    cdef void _grow(self) noexcept nogil:
        cdef vector[Slot] old = self.slots
        cdef Slot empty
        cdef size_t k
        cdef uint64_t i
        cdef unsigned int gen = self.gen
        empty.key = 0
        empty.gen = 0
        empty.head = -1
        empty.count = 0
        self.slots.assign(old.size() * 2, empty)
        self.mask = self.slots.size() - 1
        self.gen = 1
        for k in range(old.size()):
            if old[k].gen == gen:
                i = _mix(old[k].key) & self.mask
                while self.slots[i].gen == self.gen:
                    i = (i + 1) & self.mask
                self.slots[i] = old[k]
                self.slots[i].gen = self.gen




cdef class _Scan:
    cdef Skip skip
    cdef vector[uint64_t] grams_flat           # kept sentences' sorted unique bigram hashes, back to back
    cdef vector[size_t] grams_at               # where each kept sentence's grams start in grams_flat (+ end)
    cdef vector[Kept] kept
    cdef _Table exact
    cdef _Table postings
    cdef vector[int] entry_idx, entry_next      # postings as linked lists in two flat arrays
    cdef vector[Py_UCS4] folded
    cdef vector[uint64_t] us
    cdef int min_units
    cdef double containment

    cdef void comparable(self, Text t, Py_ssize_t n, Py_ssize_t s, Py_ssize_t e, vector[uint64_t]& grams,
                         uint64_t* key, size_t* n_units) noexcept nogil:
        cdef size_t k
        cdef uint64_t h = FNV_OFFSET
        _fold_into(t, n, s, e, self.folded)
        _units(self.folded, self.skip, self.us)
        n_units[0] = self.us.size()
        grams.clear()
        for k in range(self.us.size()):
            h = _mix(h ^ self.us[k]) + k
            if k:
                grams.push_back(_mix(self.us[k - 1] * 0x9E3779B97F4A7C15ULL ^ self.us[k]))
        key[0] = _mix(h ^ self.us.size())
        sort(grams.begin(), grams.end())
        grams.erase(unique(grams.begin(), grams.end()), grams.end())

    cdef int first_copy(self, Text t, Py_ssize_t n, Py_ssize_t s, Py_ssize_t e, vector[uint64_t]& grams,
                        uint64_t* key, double* share) noexcept nogil:
        """Index of the kept sentence this one repeats (-1 when none); fills grams, key and share."""
        cdef size_t n_units
        cdef Slot* it
        self.comparable(t, n, s, e, grams, key, &n_units)
        share[0] = 0.0
        if n_units < <size_t>self.min_units:
            grams.clear()
            return -1
        it = self.exact.find(key[0])
        if it != NULL:
            share[0] = 1.0
            return it.head
        return self.best_container(grams, share)

    cdef int best_container(self, const vector[uint64_t]& grams, double* share) noexcept nogil:
        cdef size_t n = grams.size(), k, a, b, inter
        cdef int probe, unseen = 0, best = -1
        cdef double best_share = 0.0, sh
        cdef vector[pair[size_t, uint64_t]] sizes
        cdef vector[int] cands
        cdef int idx, ent
        cdef size_t g0, g1
        cdef Slot* it
        if n == 0:
            share[0] = 0.0
            return -1
        probe = <int>((1.0 - self.containment) * n + 1e-9) + 1
        for k in range(n):
            it = self.postings.find(grams[k])
            if it == NULL:
                unseen += 1
                if unseen >= probe:
                    share[0] = 0.0
                    return -1
                sizes.push_back(pair[size_t, uint64_t](0, grams[k]))
            else:
                sizes.push_back(pair[size_t, uint64_t](<size_t>it.count, grams[k]))
        partial_sort(sizes.begin(), sizes.begin() + probe, sizes.end())
        for k in range(<size_t>probe):
            it = self.postings.find(sizes[k].second)
            if it != NULL:
                ent = it.head
                while ent >= 0:
                    cands.push_back(self.entry_idx[ent])
                    ent = self.entry_next[ent]
        sort(cands.begin(), cands.end())
        cands.erase(unique(cands.begin(), cands.end()), cands.end())
        cdef size_t ci
        for ci in range(cands.size()):
            idx = cands[ci]
            # |grams ∩ kept grams| by merging two sorted vectors
            a = 0
            b = self.grams_at[idx]
            g1 = self.grams_at[idx + 1]
            inter = 0
            while a < n and b < g1:
                if grams[a] < self.grams_flat[b]:
                    a += 1
                elif grams[a] > self.grams_flat[b]:
                    b += 1
                else:
                    inter += 1
                    a += 1
                    b += 1
            sh = <double>inter / n
            if sh >= self.containment and sh > best_share:
                best = idx
                best_share = sh
        share[0] = best_share
        return best

    cdef void keep(self, Py_ssize_t s, Py_ssize_t e, const vector[uint64_t]& grams, uint64_t key) noexcept nogil:
        cdef int idx = <int>self.kept.size()
        cdef Kept k
        cdef Slot* p
        k.start = s
        k.end = e
        cdef size_t j
        self.kept.push_back(k)
        if self.grams_at.size() == 0:
            self.grams_at.push_back(0)
        for j in range(grams.size()):
            self.grams_flat.push_back(grams[j])
        self.grams_at.push_back(self.grams_flat.size())
        p = self.exact.insert(key)
        if p.head < 0:
            p.head = idx
        for j in range(grams.size()):
            p = self.postings.insert(grams[j])
            self.entry_idx.push_back(idx)
            self.entry_next.push_back(p.head)
            p.head = <int>self.entry_idx.size() - 1
            p.count += 1


cdef object _skip_key = None
cdef vector[uint64_t] _skip_hashes
cdef unordered_set[uint64_t] _skip_words
cdef Skip _skip


cdef void _prepare_skip(skip_words):
    """Hash the function words once (the same frozenset every call)."""
    global _skip_key
    cdef uint64_t h, b
    if skip_words is _skip_key:
        return
    prepare_fold()
    _skip_hashes.clear()
    for w in skip_words:
        _skip_hashes.push_back(_hash_str(w))
    _skip.words = &_skip_words
    _skip_words.clear()
    for k in range(16):
        _skip.mask[k] = 0
    for h in _skip_hashes:
        _skip_words.insert(h)
        b = (h >> 7) & 1023
        _skip.mask[b >> 6] |= (<uint64_t>1) << (b & 63)
    _skip_key = skip_words


cdef struct Repeat:
    Py_ssize_t start
    Py_ssize_t end
    Py_ssize_t first_start
    Py_ssize_t first_end
    double share


cdef class RepeatScan:
    """The repeated-constraint scan of one text, runnable without the GIL (each scan has its own tables)."""
    cdef _Scan sc
    cdef vector[Py_ssize_t] blocks, structural
    cdef vector[Py_ssize_t] sentences         # per block, back to back; block k's at sent_at[k]:sent_at[k + 1]
    cdef vector[size_t] sent_at
    cdef vector[Repeat] repeats
    cdef vector[vector[uint64_t]] fact_grams  # <context> facts to look for restatements of (``with_context``)
    cdef vector[int] fact_index
    cdef vector[Py_ssize_t] context_ranges
    cdef vector[long long] context_found

    def __init__(self, blocks, structural, skip_words, int min_units, double containment):
        _prepare_skip(skip_words)
        self.sc = _Scan()
        self.sc.exact = _Table()
        self.sc.postings = _Table()
        self.sc.skip = _skip
        self.sc.min_units = min_units
        self.sc.containment = containment
        for bs, be in blocks:
            self.blocks.push_back(bs)
            self.blocks.push_back(be)
        for rs, re_ in structural:
            self.structural.push_back(rs)
            self.structural.push_back(re_)

    def with_context(self, facts, ranges):
        """Also find the sentences that restate a ``<context>`` fact (``context_restatements`` over this
        scan's sentences, read with ``context_matches``): ``facts`` their values, ``ranges`` the ``<context>``
        ranges whose sentences are not looked at."""
        _fact_grams(facts, self.fact_grams, self.fact_index)
        for rs, re_ in ranges:
            self.context_ranges.push_back(rs)
            self.context_ranges.push_back(re_)

    def context_matches(self):
        """[(sentence start, sentence end, fact index)] in text order (after ``run``)."""
        cdef size_t k
        return [(self.sentences[2 * self.context_found[k]], self.sentences[2 * self.context_found[k] + 1],
                 self.context_found[k + 1]) for k in range(0, self.context_found.size(), 2)]

    cdef void run(self, Text t, Py_ssize_t n) noexcept nogil:
        self._run(t, n)
        if self.fact_grams.size():
            _context_matches(t, n, self.sentences, self.context_ranges, self.fact_grams, self.fact_index,
                             self.context_found)

    cdef void _run(self, Text t, Py_ssize_t n) noexcept nogil:
        cdef vector[uint64_t] grams, cgrams
        cdef vector[Py_ssize_t] parts
        cdef uint64_t key, ckey
        cdef double share, cshare
        cdef int first, cfirst, seen, min_units = self.sc.min_units
        cdef Py_ssize_t s, e, cs, ce
        cdef size_t b, k, q, g, first_sent
        cdef bint inside
        self.sent_at.push_back(0)
        for b in range(0, self.blocks.size(), 2):
            first_sent = self.sentences.size()
            _segments(t, n, self.blocks[b], self.blocks[b + 1], False, self.sentences)
            self.sent_at.push_back(self.sentences.size())
            for k in range(first_sent, self.sentences.size(), 2):
                s = self.sentences[k]
                e = self.sentences[k + 1]
                inside = False
                for q in range(0, self.structural.size(), 2):
                    if s < self.structural[q + 1] and self.structural[q] < e:
                        inside = True
                        break
                if inside:
                    continue
                first = self.sc.first_copy(t, n, s, e, grams, &key, &share)
                if first >= 0:
                    self.record(s, e, first, share)
                    continue
                if grams.size() == 0:
                    continue
                seen = 0
                for g in range(grams.size()):
                    if self.sc.postings.find(grams[g]) != NULL:
                        seen += 1
                if seen >= min_units - 1:
                    parts.clear()
                    _segments(t, n, s, e, True, parts)
                    if parts.size() > 2:
                        for q in range(0, parts.size(), 2):
                            cs = parts[q]
                            ce = parts[q + 1]
                            cfirst = self.sc.first_copy(t, n, cs, ce, cgrams, &ckey, &cshare)
                            if cfirst >= 0:
                                self.record(cs, ce, cfirst, cshare)
                self.sc.keep(s, e, grams, key)

    cdef void record(self, Py_ssize_t s, Py_ssize_t e, int first, double share) noexcept nogil:
        """[s, e) repeats kept sentence ``first``, of which it holds ``share`` of the bigrams."""
        cdef Repeat r
        r.start = s
        r.end = e
        r.first_start = self.sc.kept[first].start
        r.first_end = self.sc.kept[first].end
        r.share = share
        self.repeats.push_back(r)

    def results(self, bint flat=False):
        """``(sentences, repeats)`` as ``find_repeats`` returns them; with ``flat``, each block's sentences as
        one flat tuple (start, end, start, end, …), the form ``TextView`` keeps them in."""
        cdef size_t k
        if flat:
            sentences = [_flat_tuple(self.sentences, self.sent_at[k], self.sent_at[k + 1])
                         for k in range(self.sent_at.size() - 1)]
        else:
            sentences = [_pairs(self.sentences, self.sent_at[k], self.sent_at[k + 1])
                         for k in range(self.sent_at.size() - 1)]
        repeats = [(r.start, r.end, r.first_start, r.first_end, r.share) for r in self.repeats]
        return sentences, repeats


def find_repeats(str text, blocks, structural, skip_words, int min_units=4, double containment=0.9):
    """The repeated-constraint scan over ``blocks`` [(start, end)] of ``text`` (see ``rules.repeated``).

    Returns ``(sentences, repeats)``: each block's sentence ranges, and for every repeat found
    ``(start, end, first_start, first_end, share)`` in text order (clauses after their sentence's place).
    """
    cdef RepeatScan scan = RepeatScan(blocks, structural, skip_words, min_units, containment)
    cdef Text t = _raw(text)
    cdef Py_ssize_t n = len(text)
    with nogil:
        scan.run(t, n)
    return scan.results()


cdef void _bigrams(const vector[uint64_t]& us, vector[uint64_t]& grams) noexcept nogil:
    cdef size_t k
    grams.clear()
    for k in range(1, us.size()):
        grams.push_back(_mix(us[k - 1] * 0x9E3779B97F4A7C15ULL ^ us[k]))
    sort(grams.begin(), grams.end())
    grams.erase(unique(grams.begin(), grams.end()), grams.end())


def context_restatements(str text, sentences, ranges, facts):
    """``rules.derivable._context_restatements_python``: for each sentence (start, end) not starting inside
    a ``<context>`` range, the first fact holding ≥ 90 % of its unit bigrams.  Returns
    [(sentence index, fact index)]; facts of fewer than 2 units and sentences of fewer than 4 never match.
    (The engine has the repeat scan do this on its sentences: ``RepeatScan.with_context``.)"""
    cdef Text t = _raw(text)
    cdef Py_ssize_t n = len(text)
    cdef vector[vector[uint64_t]] fact_grams
    cdef vector[int] fact_index
    cdef vector[Py_ssize_t] rng, sent
    cdef vector[long long] found
    cdef size_t k
    _fact_grams(facts, fact_grams, fact_index)
    if fact_grams.size() == 0:
        return []
    for rs, re_ in ranges:
        rng.push_back(rs)
        rng.push_back(re_)
    for cs, ce in sentences:
        sent.push_back(cs)
        sent.push_back(ce)
    with nogil:
        _context_matches(t, n, sent, rng, fact_grams, fact_index, found)
    return [(found[k], found[k + 1]) for k in range(0, found.size(), 2)]


cdef void _fact_grams(facts, vector[vector[uint64_t]]& fact_grams, vector[int]& fact_index):
    """Each fact of at least 2 units as its sorted unit bigrams, with its index in ``facts``."""
    cdef vector[Py_UCS4] folded
    cdef vector[uint64_t] us, grams
    prepare_fold()
    for f, value in enumerate(facts):
        _fold_into(_raw(value), len(value), 0, len(value), folded)
        _units_of(folded, NULL, False, us)
        if us.size() >= 2:
            _bigrams(us, grams)
            fact_grams.push_back(grams)
            fact_index.push_back(f)


cdef void _context_matches(Text t, Py_ssize_t n, const vector[Py_ssize_t]& sent, const vector[Py_ssize_t]& rng,
                           const vector[vector[uint64_t]]& fact_grams, const vector[int]& fact_index,
                           vector[long long]& found) noexcept nogil:
    """(sentence index, fact index) of each sentence in ``sent`` (flat start, end pairs) that restates a fact."""
    cdef vector[Py_UCS4] folded
    cdef vector[uint64_t] us, grams
    cdef Py_ssize_t cs, ce
    cdef size_t f, a, b, inter, k, q
    cdef bint inside
    for k in range(0, sent.size(), 2):
        cs = sent[k]
        ce = sent[k + 1]
        inside = False
        for q in range(0, rng.size(), 2):
            if rng[q] <= cs < rng[q + 1]:
                inside = True
                break
        if inside:
            continue
        _fold_into(t, n, cs, ce, folded)
        _units_of(folded, NULL, False, us)
        if us.size() < 4:
            continue
        _bigrams(us, grams)
        for f in range(fact_grams.size()):
            a = 0
            b = 0
            inter = 0
            while a < grams.size() and b < fact_grams[f].size():
                if grams[a] < fact_grams[f][b]:
                    a += 1
                elif grams[a] > fact_grams[f][b]:
                    b += 1
                else:
                    inter += 1
                    a += 1
                    b += 1
            if <double>inter / grams.size() >= 0.9:
                found.push_back(k // 2)
                found.push_back(fact_index[f])
                break


include "_scan.pxi"
include "_resolve.pxi"
include "_json.pxi"

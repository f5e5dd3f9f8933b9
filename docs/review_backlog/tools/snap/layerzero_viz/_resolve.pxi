# Included by _native.pyx: candidates → atomic spans (the twin of resolve.resolve_python).
from libc.stdlib cimport malloc, free
from libc.string cimport memcpy
from cpython.buffer cimport PyObject_GetBuffer, PyBuffer_Release, PyBUF_SIMPLE

import numpy as _np


cdef inline bint _soft(Py_UCS4 c):
    return (c == u' ' or c == u'\t' or c == u'，' or c == u',' or c == u'、' or c == u'。' or c == u'；'
            or c == u';' or c == u'：' or c == u':' or c == u'！' or c == u'!' or c == u'？' or c == u'?')


cdef Py_ssize_t _bisect_right(const long long* a, Py_ssize_t n, long long x) nogil:
    cdef Py_ssize_t lo = 0, hi = n, mid
    while lo < hi:
        mid = (lo + hi) >> 1
        if x < a[mid]:
            hi = mid
        else:
            lo = mid + 1
    return lo


cdef Py_ssize_t _bisect_left(const long long* a, Py_ssize_t n, long long x) nogil:
    cdef Py_ssize_t lo = 0, hi = n, mid
    while lo < hi:
        mid = (lo + hi) >> 1
        if a[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo


cdef struct Cut:
    Py_ssize_t a
    Py_ssize_t b


cdef Cut _cut_visible(Text t, Py_ssize_t n, Py_ssize_t vs, Py_ssize_t ve, const long long* starts,
                      const long long* ends, Py_ssize_t ng):
    cdef Cut r
    cdef Py_ssize_t lo, hi
    r.a = 0
    r.b = 0
    if vs >= ve:
        return r
    r.a = _bisect_right(ends, ng, vs)
    r.b = _bisect_left(starts, ng, ve)
    if r.b <= r.a:
        r.a = 0
        r.b = 0
        return r
    lo = vs
    hi = ve
    while lo > 0 and _soft(_at(t, lo - 1)):
        lo -= 1
    while hi < n and (_soft(_at(t, hi)) or _at(t, hi) == u'\n'):  # (resolve._cut_visible: "!\n" is one token)
        hi += 1
    if starts[r.a] < lo or ends[r.b - 1] > hi:
        r.a = 0
        r.b = 0
    return r


cdef Cut _cut(Text t, Py_ssize_t n, Py_ssize_t start, Py_ssize_t end, const long long* starts,
              const long long* ends, Py_ssize_t ng):
    """``engine._cut``: the groups a candidate removes, (0, 0) when it cannot be cut cleanly."""
    cdef Py_ssize_t vs = start, ve = end, ts, te
    cdef Cut r
    while vs < ve and _isspace(_at(t, vs)):
        vs += 1
    while ve > vs and _isspace(_at(t, ve - 1)):
        ve -= 1
    r = _cut_visible(t, n, vs, ve, starts, ends, ng)
    if r.b > r.a:
        return r
    ts = vs
    te = ve
    while ts < te and _soft(_at(t, ts)):
        ts += 1
    while te > ts and _soft(_at(t, te - 1)):
        te -= 1
    if ts == vs and te == ve:
        r.a = 0
        r.b = 0
        return r
    return _cut_visible(t, n, ts, te, starts, ends, ng)


cdef struct _Cand:
    Py_ssize_t start
    Py_ssize_t end
    Py_ssize_t lock_start
    Py_ssize_t lock_end
    long long mask
    int bulk          # -1: a listed candidate
    Py_ssize_t hit    # the listed candidate's index, or the hit's index in its bulk
    bint sentence_level
    bint has_anchor


def resolve(str text, list cand, list cand_priority, list bulks, list bulk_mask, list bulk_priority,
            const long long[::1] g_start, const long long[::1] g_end, const signed char[::1] g_prot,
            const unsigned char[::1] g_directive, const long long[::1] g_tokens, long long structural_mask,
            veto_reason, long long[::1] span_of, list candidates, const long long[::1] ids,
            const long long[::1] group, const double[::1] info_table):
    """Candidates → spans, as ``resolve.resolve_python`` does.

    ``cand``: the listed candidates as tuples (start, end, sentence_level, override_mask, has_anchor,
    lock_start, lock_end) (lock_start < 0: none), sorted by (class, start, −end), with ``cand_priority`` their
    classes; ``bulks``: ``view.Hits`` objects sorted by class, with ``bulk_mask`` and ``bulk_priority`` their
    override masks and classes.  A bulk's hits go in (start, −end) order (stable), class by class: within a
    class the listed candidates first, then that class's bulk.

    A candidate covering protected groups is vetoed at once when one of their codes is structural or outside
    its override mask; otherwise, when it has an anchor, ``veto_reason(bulk, k, a, b)`` decides (bulk −1 and
    ``k`` the listed index, or the bulk's number and ``k`` its hit; returns the reason, "" to let it go).
    Fills ``span_of`` (group → span id, −1 for none) and returns ``(veto, columns, selection)``: group → veto
    message; the span table's columns in resolution order as tuples (reasons, priorities, scores, starts, ends,
    tokens, residuals, details — None for a bulk's hit, built when asked —, the bulks used, each span's bulk
    number among them or −1, its hit or −1), ``candidates`` being the listed ``Candidate`` objects in ``cand``'s
    order; and what selection needs, exactly the tuple ``resolve.finish_python`` returns, from ``ids``,
    ``group`` and ``info_table``: per token the directive flag, the directive token count, the information
    total (numpy's sum of the tokens' information, 0 for directive tokens), per span its information loss
    (its tokens' information summed in token order, as ``np.bincount`` does, × residual) and its cost.
    """
    cdef vector[_Cand] order
    cdef _Cand c
    cdef Py_ssize_t n_listed = len(cand), at = 0, z, i, h, m
    cdef vector[pair[pair[Py_ssize_t, Py_ssize_t], Py_ssize_t]] keyed
    cdef object bs, be, locks
    cdef long long rank
    for i in range(len(bulks)):
        rank = bulk_priority[i]
        z = at
        while z < n_listed and <long long>cand_priority[z] <= rank:
            z += 1
        _push_listed(order, cand, at, z)
        at = z
        bulk = bulks[i]
        bs = bulk.starts
        be = bulk.ends
        m = len(bs)
        keyed.resize(m)
        for h in range(m):
            keyed[h].first.first = bs[h]
            keyed[h].first.second = -<Py_ssize_t>be[h]
            keyed[h].second = h
        sort(keyed.begin(), keyed.end())  # (start, -end, hit): a stable sort on (start, -end)
        locks = bulk.locks
        c.mask = bulk_mask[i]
        c.bulk = i
        c.sentence_level = bool(bulk.sentence_level)
        c.has_anchor = bulk.anchors is not None
        c.lock_start = -1
        c.lock_end = -1
        for h in range(m):
            c.hit = keyed[h].second
            c.start = keyed[h].first.first
            c.end = -keyed[h].first.second
            if locks is not None:
                c.lock_start, c.lock_end = locks[c.hit]
            order.push_back(c)
    _push_listed(order, cand, at, n_listed)
    cdef vector[Py_ssize_t] found_q
    cdef vector[long long] found_tokens
    veto = _resolve_order(text, order, g_start, g_end, g_prot, g_directive, g_tokens, structural_mask, veto_reason,
                          span_of, found_q, found_tokens)
    columns, selection = _span_columns(order, found_q, found_tokens, candidates, bulks, cand_priority,
                                       bulk_priority, ids, group, span_of, g_directive, info_table)
    return veto, columns, selection


cdef tuple _span_columns(vector[_Cand]& order, vector[Py_ssize_t]& found_q, vector[long long]& found_tokens,
                         list candidates, list bulks, list cand_priority, list bulk_priority,
                         const long long[::1] ids, const long long[::1] group, const long long[::1] g_span_of,
                         const unsigned char[::1] g_directive, const double[::1] info_table):
    """The span table's columns (as ``SpanTable.add`` would fill them, frozen) and the selection tables, from
    the resolved spans."""
    cdef Py_ssize_t m = found_q.size(), k, q, h
    cdef int b
    cdef vector[int] used_as                      # bulk i -> its number among the bulks used, or -1
    cdef vector[long long] prio, starts, costs
    cdef vector[double] scores, residuals
    cdef dict rounded = {}                        # score -> rounded to 4 places (a handful of distinct values)
    used_as.assign(len(bulks), -1)
    reasons_l, details_l, used, bulk_of, hit_of = [], [], [], [], []
    # per bulk: reason, score column, residual column (``Hits.residuals_of`` decides one value or one per hit)
    b_reason = [bulk.reason for bulk in bulks]
    b_scores = [bulk.scores for bulk in bulks]
    b_residuals = [bulk.residuals_of(range(len(bulk.starts))) for bulk in bulks]
    prio.resize(m)
    starts.resize(m)
    costs.resize(m)
    scores.resize(m)
    residuals.resize(m)
    for k in range(m):
        q = found_q[k]
        b = order[q].bulk
        h = order[q].hit
        starts[k] = order[q].start
        costs[k] = found_tokens[k]
        if b < 0:
            c = candidates[h]
            reasons_l.append(c.reason)
            prio[k] = cand_priority[h]
            score = round(float(c.score), 4)
            details_l.append(c.detail)
            residual = c.residual
            bulk_of.append(-1)
            hit_of.append(-1)
        else:
            if used_as[b] < 0:
                used_as[b] = len(used)
                used.append(bulks[b])
            reasons_l.append(b_reason[b])
            prio[k] = bulk_priority[b]
            raw = b_scores[b][h]
            score = rounded.get(raw)
            if score is None:
                score = rounded[raw] = round(float(raw), 4)
            details_l.append(None)
            residual = b_residuals[b][h]
            bulk_of.append(used_as[b])
            hit_of.append(h)
        scores[k] = score
        residuals[k] = residual
    columns = (tuple(reasons_l), tuple([prio[k] for k in range(m)]), tuple([scores[k] for k in range(m)]),
               tuple([starts[k] for k in range(m)]), tuple([order[found_q[k]].end for k in range(m)]),
               tuple([costs[k] for k in range(m)]), tuple([residuals[k] for k in range(m)]), details_l, tuple(used),
               tuple(bulk_of), tuple(hit_of))
    return columns, _finish_core(ids, group, g_span_of, g_directive, info_table, costs, residuals)


cdef void _push_listed(vector[_Cand]& order, list cand, Py_ssize_t a, Py_ssize_t b) except *:
    cdef _Cand c
    cdef Py_ssize_t k
    c.bulk = -1
    for k in range(a, b):
        c.hit = k
        c.start, c.end, c.sentence_level, c.mask, c.has_anchor, c.lock_start, c.lock_end = cand[k]
        order.push_back(c)


cdef dict _resolve_order(str text, vector[_Cand]& order, const long long[::1] g_start, const long long[::1] g_end,
                         const signed char[::1] g_prot, const unsigned char[::1] g_directive,
                         const long long[::1] g_tokens, long long structural_mask, veto_reason,
                         long long[::1] span_of, vector[Py_ssize_t]& found_q, vector[long long]& found_tokens):
    cdef Text t = _raw(text)
    cdef Py_ssize_t n = len(text), ng = g_start.shape[0], k, g, a, b, la, lb
    cdef const long long* starts = &g_start[0] if ng else NULL
    cdef const long long* ends = &g_end[0] if ng else NULL
    cdef long long* span_c = &span_of[0] if ng else NULL
    cdef unsigned char* locked = <unsigned char*>malloc(max(ng, 1))
    cdef dict veto = {}
    cdef Cut r
    cdef Py_ssize_t s, e, ls, le, q, n_found = 0
    cdef bint sentence_level, has_anchor, blocked, any_prot, any_free, definite
    cdef long long mask, tokens
    cdef int code
    cdef str why
    try:
        for g in range(ng):
            span_c[g] = -1
            locked[g] = 0
        for q in range(<Py_ssize_t>order.size()):
            s = order[q].start
            e = order[q].end
            mask = order[q].mask
            sentence_level = order[q].sentence_level
            has_anchor = order[q].has_anchor
            ls = order[q].lock_start
            le = order[q].lock_end
            r = _cut(t, n, s, e, starts, ends, ng)
            a = r.a
            b = r.b
            if b <= a:
                continue
            blocked = False
            any_prot = False
            for g in range(a, b):
                if g_directive[g]:
                    blocked = True
                    break
                if g_prot[g]:
                    any_prot = True
            if blocked:
                continue
            if any_prot:
                why = ""
                definite = False
                for g in range(a, b):
                    code = g_prot[g]
                    if code and (((structural_mask >> code) & 1) or not ((mask >> code) & 1)):
                        definite = True
                        break
                if definite:
                    # vetoed for sure; the message is only worth building when a group will show it
                    for g in range(a, b):
                        if not g_prot[g] and span_c[g] < 0 and g not in veto:
                            why = veto_reason(order[q].bulk, order[q].hit, a, b)
                            break
                    if why:
                        for g in range(a, b):
                            if not g_prot[g] and span_c[g] < 0 and g not in veto:
                                veto[g] = why
                    continue
                if has_anchor:
                    why = veto_reason(order[q].bulk, order[q].hit, a, b)
                    if why:
                        for g in range(a, b):
                            if not g_prot[g] and span_c[g] < 0 and g not in veto:
                                veto[g] = why
                        continue
            if sentence_level:
                blocked = False
                for g in range(a, b):
                    if locked[g]:
                        blocked = True
                        break
                if blocked:
                    continue
            any_free = False
            tokens = 0
            for g in range(a, b):
                if span_c[g] < 0:
                    any_free = True
                    span_c[g] = n_found
                    tokens += g_tokens[g]
            if not any_free:
                continue
            n_found += 1
            found_q.push_back(q)
            found_tokens.push_back(tokens)
            if ls >= 0:
                la = _bisect_right(ends, ng, ls)
                lb = _bisect_left(starts, ng, le)
                for g in range(la, lb):
                    locked[g] = 1
    finally:
        free(locked)
    return veto


def apply_protections(tuple starts, tuple ends, tuple codes, const long long[::1] g_start,
                      const long long[::1] g_end, signed char[::1] g_prot, long long[::1] g_iv):
    """``resolve.apply_protections`` without the kernel: each group gets the strongest protection covering it.

    Ranges are applied weakest code first, in list order within a code, so a later range of the same
    code and any stronger range overwrite; ``g_prot`` gets code + 1, ``g_iv`` the range index (0 and −1 where
    nothing covers a group: the arrays need no initial values).
    """
    cdef Py_ssize_t ng = g_start.shape[0], m = len(codes), k, a, b, g, i
    cdef int code, top = -1
    cdef const long long* gs = &g_start[0] if ng else NULL
    cdef const long long* ge = &g_end[0] if ng else NULL
    cdef vector[int] code_of
    cdef vector[Py_ssize_t] by_code           # range indexes, weakest code first, list order within a code
    cdef vector[Py_ssize_t] first_of          # code -> where its ranges start in by_code
    for g in range(ng):
        g_prot[g] = 0
        g_iv[g] = -1
    if not ng or not m:
        return
    code_of.resize(m)
    for k in range(m):
        code_of[k] = codes[k]
        if code_of[k] > top:
            top = code_of[k]
    first_of.assign(top + 2, 0)
    for k in range(m):  # counting sort, strongest code (0) last
        first_of[top - code_of[k] + 1] += 1
    for i in range(1, top + 2):
        first_of[i] += first_of[i - 1]
    by_code.resize(m)
    for k in range(m):
        i = top - code_of[k]
        by_code[first_of[i]] = k
        first_of[i] += 1
    for i in range(m):
        k = by_code[i]
        code = code_of[k]
        a = _bisect_right(ge, ng, <long long>starts[k])
        b = _bisect_left(gs, ng, <long long>ends[k])
        for g in range(a, b):
            g_prot[g] = code + 1
            g_iv[g] = k


cdef inline int _utf8_len(Py_UCS4 c):
    if c < 0x80:
        return 1
    if c < 0x800:
        return 2
    if c < 0x10000:
        return 3
    return 4


cdef Py_ssize_t _append_ids(vector[unsigned int]& ids, object got) except -1:
    """Append the uint32 ids in buffer ``got`` to ``ids``; returns how many."""
    cdef Py_buffer pb
    cdef Py_ssize_t cnt, old
    PyObject_GetBuffer(got, &pb, PyBUF_SIMPLE)
    try:
        cnt = pb.len // 4
        old = ids.size()
        ids.resize(old + cnt)
        if cnt:
            memcpy(&ids[old], pb.buf, cnt * 4)
    finally:
        PyBuffer_Release(&pb)
    return cnt


def tokenize(str text, blocks, encode, special, cache, const unsigned char[::1] byte_lengths):
    """Every block of ``text`` encoded on its own (``encode(block_text, special)``: tiktoken's buffer form, uint32
    ids) and the engine's token arrays built in one pass.  ``blocks``: [(start, end)]; ``cache``: None or an
    object with ``get(text) -> bytes | None`` and ``put(text, bytes)`` holding ids per block text.

    Returns ``(cols, n_groups, block_ms)``: ``cols`` an int64 array of 9 rows — token id, character start and
    end, display group, block, index in block, then per group its first character, end character and token
    count (the first ``n_groups`` entries) — and per block the milliseconds its encoding (or cache hit) took.
    A token owns the characters whose first UTF-8 byte lies in it; a token starting inside a character joins
    the group of the token before it (``tokens.char_spans``).
    """
    cdef Text t = _raw(text)
    cdef Py_ssize_t n = len(text), k, j, i = 0, nb = len(blocks), cnt, ci, total
    cdef long long tok, pos, cb, g = -1
    cdef vector[unsigned int] ids
    cdef vector[Py_ssize_t] counts, block_start
    cdef double t0
    cdef list block_ms = []
    for bs, be in blocks:
        t0 = _now()
        piece = text[bs:be]
        got = cache.get(piece) if cache is not None else None
        if got is None:
            got = encode(piece, special)
            if cache is not None:
                got = bytes(got)
                cache.put(piece, got)
        cnt = _append_ids(ids, got)
        block_ms.append((_now() - t0) * 1000.0)
        counts.push_back(cnt)
        block_start.push_back(bs)
    total = ids.size()
    cols = _np.empty((9, total), dtype=_np.int64)
    if not total:
        return cols, 0, block_ms
    cdef long long[:, ::1] c = cols
    cdef long long* tok_id = &c[0, 0]
    cdef long long* start = &c[1, 0]
    cdef long long* end = &c[2, 0]
    cdef long long* grp = &c[3, 0]
    cdef long long* blk = &c[4, 0]
    cdef long long* idx = &c[5, 0]
    cdef long long* g_start = &c[6, 0]
    cdef long long* g_end = &c[7, 0]
    cdef long long* g_tokens = &c[8, 0]
    cdef const unsigned char* lengths = &byte_lengths[0]
    for k in range(nb):
        cnt = counts[k]
        ci = block_start[k]       # character cursor (global index) and
        cb = 0                    # the byte where that character starts, relative to the block
        pos = 0
        for j in range(cnt):
            tok = ids[i]
            tok_id[i] = tok
            while cb < pos and ci < n:
                cb += _utf8_len(_at(t, ci))
                ci += 1
            start[i] = ci
            if cb == pos:
                g += 1
                g_start[g] = ci
                g_tokens[g] = 0
            grp[i] = g
            g_tokens[g] += 1
            pos += lengths[tok]
            while cb < pos and ci < n:
                cb += _utf8_len(_at(t, ci))
                ci += 1
            end[i] = ci
            g_end[g] = ci
            blk[i] = k
            idx[i] = j
            i += 1
    return cols, g + 1, block_ms


# ---------------------------------------------------------------------------------------- reconstruct
cdef Py_UCS4 _NONE = 0x110000   # "no character yet" (the text may hold any code point, NUL included)


cdef inline bint _space_tab(Py_UCS4 c):
    return c == u' ' or c == u'\t'


cdef inline bint _clause_punct(Py_UCS4 c):    # result._CLAUSE_PUNCT
    return c == u'，' or c == u',' or c == u'、' or c == u'；' or c == u';' or c == u'：' or c == u':'


cdef inline bint _end_punct(Py_UCS4 c):       # result._END_PUNCT
    return c == u'。' or c == u'.' or c == u'!' or c == u'！' or c == u'?' or c == u'？'


cdef inline bint _opener(Py_UCS4 c):          # result._OPENERS
    return c == u'（' or c == u'(' or c == u'“' or c == u'"' or c == u'「' or c == u'『' or c == u'《'


cdef Py_UCS4 _last_kept(Text t, vector[pair[Py_ssize_t, Py_ssize_t]]& out, bint skip_space):
    cdef Py_ssize_t i, a, k
    for i in range(<Py_ssize_t>out.size() - 1, -1, -1):
        a = out[i].first
        k = out[i].second
        while skip_space and k > a and _space_tab(_at(t, k - 1)):
            k -= 1
        if k > a:
            return _at(t, k - 1)
    return _NONE


cdef void _drop_clause_punct(Text t, vector[pair[Py_ssize_t, Py_ssize_t]]& out, vector[unsigned char]& free):
    cdef Py_ssize_t a = out.back().first, e = out.back().second
    while e > a and _space_tab(_at(t, e - 1)) and free[e - 1]:
        e -= 1
    if e > a and _clause_punct(_at(t, e - 1)) and free[e - 1]:
        e -= 1
    out.back().second = e


cdef Py_ssize_t _without_lead_newlines(Text t, vector[pair[Py_ssize_t, Py_ssize_t]]& out, Py_ssize_t s,
                                       Py_ssize_t e, Py_UCS4 tail, vector[unsigned char]& free):
    """``result._without_lead_newlines``."""
    cdef Py_ssize_t lead = 0, trail = 0, drop, k, a
    while s + lead < e and _at(t, s + lead) == u'\n':
        lead += 1
    if tail == _NONE:
        drop = lead
    else:
        for k in range(<Py_ssize_t>out.size() - 1, -1, -1):
            a = out[k].second
            while a > out[k].first and _at(t, a - 1) == u'\n':
                a -= 1
            trail += out[k].second - a
            if a > out[k].first:
                break
        drop = min(lead, trail)
    while drop and free[s]:
        s += 1
        drop -= 1
    return s


def reconstruct(str text, list removed, list protected):
    """``result.reconstruct_python``: ``text`` minus ``removed``, tidying whitespace and dangling
    punctuation at the cuts, never touching ``protected`` characters."""
    cdef Text t = _raw(text)
    cdef Py_ssize_t n = len(text), s, e, pos = 0, i, dangling
    cdef vector[unsigned char] free
    cdef vector[pair[Py_ssize_t, Py_ssize_t]] pieces, out
    cdef Py_UCS4 tail, visible, c
    cdef bint cut_at_end, blank_tail
    free.assign(n + 1, 1)
    for s, e in protected:
        for i in range(max(s, 0), min(e, n + 1)):
            free[i] = 0
    for s, e in sorted(removed):
        if s > pos:
            pieces.push_back(pair[Py_ssize_t, Py_ssize_t](pos, s))
        pos = max(pos, e)
    cut_at_end = pos >= n and len(removed) > 0
    if pos < n:
        pieces.push_back(pair[Py_ssize_t, Py_ssize_t](pos, n))
    for i in range(<Py_ssize_t>pieces.size()):
        s = pieces[i].first
        e = pieces[i].second
        if s > 0:  # a cut precedes this piece
            tail = _last_kept(t, out, False)
            blank_tail = (tail == _NONE or tail == u'\n' or tail == u' ' or tail == u'\t' or tail == u'。'
                          or tail == u'！' or tail == u'？' or tail == u'，' or tail == u'、' or tail == u'；'
                          or tail == u'：')  # (result._FULL_WIDTH_PUNCT too)
            if blank_tail:
                while s < e and _space_tab(_at(t, s)) and free[s]:
                    s += 1
            if tail == _NONE or tail == u'\n':
                s = _without_lead_newlines(t, out, s, e, tail, free)
            visible = _last_kept(t, out, True)
            dangling = s
            while s < e and free[s]:
                c = _at(t, s)
                if not ((_clause_punct(c) and (visible == _NONE or visible == u'\n' or _clause_punct(visible)
                                               or _end_punct(visible) or _opener(visible)))
                        or (_end_punct(c) and (visible == _NONE or visible == u'\n' or _end_punct(visible)))):
                    break
                s += 1
                while s < e and _space_tab(_at(t, s)) and free[s] and blank_tail:
                    s += 1
            if s > dangling and (tail == _NONE or tail == u'\n'):
                s = _without_lead_newlines(t, out, s, e, tail, free)  # (result._kept_pieces: the emptied line)
            if out.size() and s < e and (_end_punct(_at(t, s)) or _clause_punct(_at(t, s))):
                _drop_clause_punct(t, out, free)
        if s < e:
            out.push_back(pair[Py_ssize_t, Py_ssize_t](s, e))
    if cut_at_end and out.size():
        _drop_clause_punct(t, out, free)
    return "".join([text[out[i].first:out[i].second] for i in range(<Py_ssize_t>out.size())])


# ---------------------------------------------------------------------------------------- finish
cdef tuple _finish_core(const long long[::1] ids, const long long[::1] group, const long long[::1] g_span,
                        const unsigned char[::1] g_directive, const double[::1] info_table,
                        vector[long long]& costs, vector[double]& residuals):
    """``resolve.finish_python``'s tuple: (per-token directive flags, directive token count, information total,
    per-span loss, per-span cost)."""
    cdef Py_ssize_t n = ids.shape[0], m = costs.size(), i, k
    cdef long long g, sp, tokens_directive = 0
    cdef double v
    tok_directive_a = _np.empty(n, dtype=_np.bool_)
    info_a = _np.empty(n, dtype=_np.float64)
    loss_a = _np.empty(m, dtype=_np.float64)
    cost_a = _np.empty(m, dtype=_np.int64)
    cdef unsigned char[::1] tok_directive = tok_directive_a.view(_np.uint8)
    cdef double[::1] info = info_a, span_loss = loss_a
    cdef long long[::1] cost = cost_a
    for k in range(m):
        span_loss[k] = 0.0
        cost[k] = costs[k]
    for i in range(n):
        g = group[i]
        if g_directive[g]:
            tok_directive[i] = 1
            tokens_directive += 1
            v = 0.0
        else:
            tok_directive[i] = 0
            v = info_table[ids[i]]
        info[i] = v
        sp = g_span[g]
        if sp >= 0:
            span_loss[sp] += v
    for k in range(m):
        span_loss[k] = span_loss[k] * residuals[k]
    # the total as numpy sums it (pairwise), so that it is bit for bit the twin's
    return tok_directive_a, tokens_directive, float(info_a.sum()), loss_a, cost_a

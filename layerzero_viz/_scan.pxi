# Included by _native.pyx: scanners for protections and lexicons.
#
# Each scanner reproduces one regex of protect.py / lexicon.py exactly (Python's ``re`` semantics:
# leftmost match, resumed at the previous match's end); ``tests/engine/test_native.py`` compares them
# on the corpus sample and on generated text.  Results are flat lists [start0, end0, start1, end1, ...].
from libcpp.string cimport string


cdef inline bint _a_letter(Py_UCS4 c):
    return (u'a' <= c <= u'z') or (u'A' <= c <= u'Z')


cdef inline bint _a_digit(Py_UCS4 c):
    return u'0' <= c <= u'9'


cdef inline bint _a_alnum(Py_UCS4 c):
    return _a_letter(c) or _a_digit(c)


cdef inline bint _a_word(Py_UCS4 c):         # \w with re.ASCII
    return _a_alnum(c) or c == u'_'


cdef inline bint _a_space(Py_UCS4 c):        # \s with re.ASCII
    return c == u' ' or (u'\t' <= c <= u'\r')


cdef inline bint _u_word(Py_UCS4 c):         # \w for str patterns
    return _isalnum(c) or c == u'_'


cdef inline Py_UCS4 _get(Text t, Py_ssize_t n, Py_ssize_t i):
    """The char at i, or 0 past the end (0 matches no class used here)."""
    if 0 <= i < n:
        return _at(t, i)
    return 0


# ------------------------------------------------------------------------------------------- numbers
cdef inline bint _currency(Py_UCS4 c):
    return c == u'¥' or c == u'$' or c == u'€' or c == u'£' or c == u'￥'


cdef inline bint _cjk_num(Py_UCS4 c):
    return (c == u'零' or c == u'〇' or c == u'一' or c == u'二' or c == u'两' or c == u'三' or c == u'四'
            or c == u'五' or c == u'六' or c == u'七' or c == u'八' or c == u'九' or c == u'十' or c == u'百'
            or c == u'千' or c == u'万' or c == u'亿' or c == u'半')


cdef inline bint _cjk_num_small(Py_UCS4 c):   # after 分之: no 万亿半
    return _cjk_num(c) and c != u'万' and c != u'亿' and c != u'半'


cdef inline bint _in(Py_UCS4 c, str chars):
    return c != 0 and c in chars


cdef str _NUM_UNIT = u"年月日号时点分秒天周岁元块万亿倍个位次条件项级"
cdef str _CJK_UNIT = u"年日号天周岁元块倍位次条件项级成折"


def scan_numbers(str text):
    """``protect._NUMBER.finditer`` spans."""
    cdef Text t = _raw(text)
    cdef Py_ssize_t n = len(text), i = 0, j, L
    cdef Py_UCS4 c
    cdef list out = []
    while i < n:
        c = _at(t, i)
        if _currency(c):
            j = i + 1
            if _isspace(_get(t, n, j)) and j + 1 < n and _isdecimal(_at(t, j + 1)):
                j += 1
            if j < n and _isdecimal(_at(t, j)):
                j += 1
                while j < n and (_isdecimal(_at(t, j)) or _at(t, j) == u',' or _at(t, j) == u'，'):
                    j += 1
                if _get(t, n, j) == u'.' and j + 1 < n and _isdecimal(_at(t, j + 1)):
                    j += 2
                    while j < n and _isdecimal(_at(t, j)):
                        j += 1
                if _in(_get(t, n, j), u"万亿千百kKmMbB"):
                    j += 1
                out.append(i)
                out.append(j)
                i = j
                continue
            i += 1
        elif _isdecimal(c):
            j = i + 1
            while j < n and _isdecimal(_at(t, j)):
                j += 1
            while _in(_get(t, n, j), u".,:/-") and j + 1 < n and _isdecimal(_at(t, j + 1)):
                j += 2
                while j < n and _isdecimal(_at(t, j)):
                    j += 1
            c = _get(t, n, j)
            if c == u'%' or c == u'％' or c == u'‰' or _in(c, _NUM_UNIT):
                j += 1
            elif _isspace(c) and _get(t, n, j + 1) == u'%':
                j += 2
            elif _a_letter(c):
                L = 1
                while L < 4 and _a_letter(_get(t, n, j + L)):
                    L += 1
                if L <= 3 and not _u_word(_get(t, n, j + L)):
                    j += L
            out.append(i)
            out.append(j)
            i = j
        elif _cjk_num(c):
            j = i + 1
            while j < n and _cjk_num(_at(t, j)):
                j += 1
            c = _get(t, n, j)
            L = 0
            if _in(c, _CJK_UNIT):
                L = 1
            elif c == u'个' and _get(t, n, j + 1) == u'月':
                L = 2
            elif (c == u'个' and _get(t, n, j + 1) == u'工' and _get(t, n, j + 2) == u'作'
                  and _get(t, n, j + 3) == u'日'):
                L = 4
            elif c == u'小' and _get(t, n, j + 1) == u'时':
                L = 2
            elif c == u'分' and _get(t, n, j + 1) == u'钟':
                L = 2
            elif c == u'秒' and _get(t, n, j + 1) == u'钟':
                L = 2
            elif c == u'月':
                L = 2 if _get(t, n, j + 1) == u'份' else 1
            elif c == u'分' and _get(t, n, j + 1) == u'之' and _cjk_num_small(_get(t, n, j + 2)):
                L = 3
                while _cjk_num_small(_get(t, n, j + L)):
                    L += 1
            if L:
                out.append(i)
                out.append(j + L)
                i = j + L
            else:
                i = j  # no start inside the run can match either
        else:
            i += 1
    return out


# --------------------------------------------------------------------------------------- identifiers
cdef inline bint _seg(Py_UCS4 c):             # [\w.\-] with re.ASCII
    return _a_word(c) or c == u'.' or c == u'-'


cdef inline bint _url_char(Py_UCS4 c):        # [^\s<>"'，。）)] with re.ASCII
    return not (_a_space(c) or c == u'<' or c == u'>' or c == u'"' or c == u"'" or c == u'，'
                or c == u'。' or c == u'）' or c == u')')


cdef list _urls(Text t, Py_ssize_t n):
    cdef list out = []
    cdef Py_ssize_t i = 0, j
    while i < n:
        if (_at(t, i) == u'h' and _get(t, n, i + 1) == u't' and _get(t, n, i + 2) == u't'
                and _get(t, n, i + 3) == u'p'):
            j = i + 4
            if _get(t, n, j) == u's':
                j += 1
            if (_get(t, n, j) == u':' and _get(t, n, j + 1) == u'/' and _get(t, n, j + 2) == u'/'
                    and j + 3 < n and _url_char(_at(t, j + 3))):
                j += 4
                while j < n and _url_char(_at(t, j)):
                    j += 1
                out.append(i)
                out.append(j)
                i = j
                continue
        i += 1
    return out


cdef inline bint _local(Py_UCS4 c):           # [\w.+-] with re.ASCII
    return _a_word(c) or c == u'.' or c == u'+' or c == u'-'


cdef inline bint _label(Py_UCS4 c):           # [\w-] with re.ASCII
    return _a_word(c) or c == u'-'


cdef list _emails(Text t, Py_ssize_t n):
    cdef list out = []
    cdef Py_ssize_t a, r, d, last = 0, groups
    for a in range(n):
        if _at(t, a) != u'@' or a < last:
            continue
        r = a
        while r > last and _local(_at(t, r - 1)):
            r -= 1
        if r == a:
            continue
        d = a + 1
        while _label(_get(t, n, d)):
            d += 1
        if d == a + 1:
            continue
        groups = 0
        while _get(t, n, d) == u'.' and _label(_get(t, n, d + 1)):
            d += 2
            while _label(_get(t, n, d)):
                d += 1
            groups += 1
        if not groups:
            continue
        out.append(r)
        out.append(d)
        last = d
    return out


cdef list _posix_paths(Text t, Py_ssize_t n):
    cdef list out = []
    cdef Py_ssize_t p = 0, q, k, end
    cdef Py_UCS4 c, prev
    while p < n:
        c = _at(t, p)
        if c != u'/' and c != u'.' and c != u'~':
            p += 1
            continue
        prev = _get(t, n, p - 1)
        if p > 0 and (_a_word(prev) or prev == u'/' or prev == u':'):
            p += 1
            continue
        q = -1
        if c == u'/':
            q = p
        elif c == u'~':
            if _get(t, n, p + 1) == u'/':
                q = p + 1
        elif _get(t, n, p + 1) == u'.' and _get(t, n, p + 2) == u'/':
            q = p + 2
        elif _get(t, n, p + 1) == u'/':
            q = p + 1
        if q < 0 or not _seg(_get(t, n, q + 1)):
            p += 1
            continue
        k = q + 1
        while _seg(_get(t, n, k)):
            k += 1
        end = k
        while _get(t, n, k) == u'/' and _seg(_get(t, n, k + 1)):
            k += 1
            while _seg(_get(t, n, k)):
                k += 1
            end = k
        out.append(p)
        out.append(end)
        p = end
    return out


cdef list _windows_paths(Text t, Py_ssize_t n):
    cdef list out = []
    cdef Py_ssize_t p = 0, k
    while p < n:
        if (_a_letter(_at(t, p)) and _get(t, n, p + 1) == u':' and _get(t, n, p + 2) == u'\\'
                and _seg(_get(t, n, p + 3))):
            k = p + 3
            while True:
                while _seg(_get(t, n, k)):
                    k += 1
                if _get(t, n, k) == u'\\':
                    k += 1
                    if _seg(_get(t, n, k)):
                        continue
                break
            out.append(p)
            out.append(k)
            p = k
            continue
        p += 1
    return out


cdef list _hash_ids(Text t, Py_ssize_t n):
    cdef list out = []
    cdef Py_ssize_t p = 0, k
    while p < n:
        if _at(t, p) == u'#' and _a_digit(_get(t, n, p + 1)):
            k = p + 2
            while _label(_get(t, n, k)):
                k += 1
            out.append(p)
            out.append(k)
            p = k
            continue
        p += 1
    return out


cdef list _codes(Text t, Py_ssize_t n):
    """``\\b[A-Za-z][A-Za-z0-9]*(?:[-_][A-Za-z0-9]+)*[-_]?\\d[\\w-]*`` (SKU-12345, v2)."""
    cdef list out = []
    cdef Py_ssize_t p = 0, k, found
    cdef bint sep
    cdef Py_UCS4 c
    while p < n:
        if not _a_letter(_at(t, p)) or (p > 0 and _a_word(_at(t, p - 1))):
            p += 1
            continue
        # the first digit reachable before a doubled separator
        found = -1
        sep = False
        k = p + 1
        while k < n:
            c = _at(t, k)
            if _a_digit(c):
                found = k
                break
            if _a_letter(c):
                sep = False
            elif c == u'-' or c == u'_':
                if sep:
                    break
                sep = True
            else:
                break
            k += 1
        if found < 0:
            p += 1
            continue
        k = found + 1
        while _label(_get(t, n, k)):
            k += 1
        out.append(p)
        out.append(k)
        p = k
    return out


cdef list _snake(Text t, Py_ssize_t n):
    """``\\b[A-Za-z0-9]+(?:_[A-Za-z0-9]+)+\\b``: a whole ASCII word of alnum runs joined by single _."""
    cdef list out = []
    cdef Py_ssize_t p = 0, k
    cdef bint ok, any_sep
    while p < n:
        if not _a_word(_at(t, p)):
            p += 1
            continue
        k = p
        ok = _a_alnum(_at(t, p))
        any_sep = False
        while k < n and _a_word(_at(t, k)):
            if _at(t, k) == u'_':
                any_sep = True
                if not _a_alnum(_get(t, n, k + 1)):
                    ok = False
            k += 1
        if ok and any_sep:
            out.append(p)
            out.append(k)
        p = k
    return out


cdef list _placeholders(Text t, Py_ssize_t n):
    """``\\{\\{?\\s*[\\w.]+\\s*\\}?\\}`` (Unicode \\w and \\s)."""
    cdef list out = []
    cdef Py_ssize_t p = 0, k, w
    cdef Py_UCS4 c
    while p < n:
        if _at(t, p) != u'{':
            p += 1
            continue
        k = p + 1
        if _get(t, n, k) == u'{':
            k += 1
        while _isspace(_get(t, n, k)):
            k += 1
        w = k
        while True:
            c = _get(t, n, k)
            if c != 0 and (_u_word(c) or c == u'.'):
                k += 1
            else:
                break
        if k == w:
            p += 1
            continue
        while _isspace(_get(t, n, k)):
            k += 1
        if _get(t, n, k) == u'}':
            k += 1
            if _get(t, n, k) == u'}':
                k += 1
            out.append(p)
            out.append(k)
            p = k
            continue
        p += 1
    return out


cdef list _bracket_names(Text t, Py_ssize_t n):
    cdef list out = []
    cdef Py_ssize_t p = 0, k
    cdef Py_UCS4 c
    while p < n:
        if _at(t, p) == u'[':
            k = p + 1
            while True:
                c = _get(t, n, k)
                if (u'A' <= c <= u'Z') or c == u'_':
                    k += 1
                else:
                    break
            if k - p - 1 >= 2 and _get(t, n, k) == u']':
                out.append(p)
                out.append(k + 1)
                p = k + 1
                continue
        p += 1
    return out


def scan_identifiers(str text, tuple wanted):
    """Spans of each ``protect._IDENTIFIERS`` pattern (in that order); None where ``wanted[k]`` is false."""
    cdef Text t = _raw(text)
    cdef Py_ssize_t n = len(text)
    scanners = []
    out = []
    for k in range(9):
        if not wanted[k]:
            out.append(None)
        elif k == 0:
            out.append(_urls(t, n))
        elif k == 1:
            out.append(_emails(t, n))
        elif k == 2:
            out.append(_posix_paths(t, n))
        elif k == 3:
            out.append(_windows_paths(t, n))
        elif k == 4:
            out.append(_hash_ids(t, n))
        elif k == 5:
            out.append(_codes(t, n))
        elif k == 6:
            out.append(_snake(t, n))
        elif k == 7:
            out.append(_placeholders(t, n))
        else:
            out.append(_bracket_names(t, n))
    return out


# ---------------------------------------------------------------------------------------- user facts
cdef tuple _ZH_VERBS = (u"是", u"有", u"在", u"住在", u"姓", u"叫", u"今年", u"已经", u"刚刚", u"刚", u"的",
                        u"买了", u"购买了", u"办理了", u"办了", u"开了", u"绑定了", u"持有", u"目前", u"现在是",
                        u"属于")
cdef tuple _EN_I_VERBS = (u"am", u"have", u"own", u"live", u"work", u"bought", u"ordered", u"paid", u"use", u"run")
cdef tuple _EN_MY_NOUNS = (
    u"name", u"account", u"order", u"email", u"phone", u"address", u"plan", u"membership", u"subscription", u"id",
    u"number", u"company", u"team", u"budget", u"age", u"salary", u"income", u"policy", u"card", u"car", u"house",
    u"flight", u"booking", u"reservation", u"level", u"status", u"tier")
cdef tuple _EN_NOT_AFTER = (u"wondering", u"hoping", u"writing", u"looking", u"asking", u"just", u"sorry", u"afraid",
                            u"glad", u"happy", u"curious", u"trying")


cdef bint _lit(Text t, Py_ssize_t n, Py_ssize_t i, str word):
    cdef Py_ssize_t k
    if i + len(word) > n:
        return False
    for k in range(len(word)):
        if _at(t, i + k) != word[k]:
            return False
    return True


cdef bint _lit_ci(Text t, Py_ssize_t n, Py_ssize_t i, str word):
    """ASCII case-insensitive literal (``word`` in lower case)."""
    cdef Py_ssize_t k
    cdef Py_UCS4 c
    if i + len(word) > n:
        return False
    for k in range(len(word)):
        c = _at(t, i + k)
        if u'A' <= c <= u'Z':
            c = <Py_UCS4>(<unsigned int>c + 32)
        if c != word[k]:
            return False
    return True


cdef Py_ssize_t _spaces(Text t, Py_ssize_t n, Py_ssize_t i):
    while i < n and _a_space(_at(t, i)):
        i += 1
    return i


cdef Py_ssize_t _word_after(Text t, Py_ssize_t n, Py_ssize_t i, tuple words, bint boundary):
    """End of the first of ``words`` (case-insensitive) at i — followed by a \\b when ``boundary`` — or -1."""
    cdef str w
    for w in words:
        if _lit_ci(t, n, i, w) and (not boundary or not _a_word(_get(t, n, i + len(w)))):
            return i + len(w)
    return -1


def scan_user_facts(str text, Py_ssize_t start, Py_ssize_t end):
    """``protect._USER_FACT_ZH`` then ``_USER_FACT_EN`` spans within [start, end)."""
    cdef Text t = _raw(text)
    cdef Py_ssize_t n = min(end, len(text)), i, j, k, m
    cdef Py_UCS4 c
    cdef str w
    cdef list out = []
    i = max(start, 0)
    while i < n:
        c = _at(t, i)
        j = -1
        if c == u'我':
            j = i + 1
        elif c == u'本' and _get(t, n, i + 1) == u'人':
            j = i + 2
        if j < 0:
            i += 1
            continue
        m = -1
        for k in range(2):
            if k == 0 and _get(t, n, j) != u'们':
                continue
            for w in _ZH_VERBS:
                if _lit(t, n, j + (1 if k == 0 else 0), w):
                    m = j + (1 if k == 0 else 0) + len(w)
                    break
            if m >= 0:
                break
        if m >= 0:
            out.append(i)
            out.append(m)
            i = m
        else:
            i += 1
    i = max(start, 0)
    while i < n:
        c = _at(t, i)
        if (c != u'i' and c != u'I' and c != u'm' and c != u'M') or (i > 0 and _a_word(_at(t, i - 1))):
            i += 1
            continue
        m = -1
        if c == u'i' or c == u'I':
            c = _get(t, n, i + 1)
            if c == u"'" or c == u'’':
                m = _word_after(t, n, i + 2, (u"m", u"ve"), True)
            elif _a_space(c):
                k = _spaces(t, n, i + 1)
                m = _word_after(t, n, k, _EN_I_VERBS, True)
                if m < 0 and _lit_ci(t, n, k, u"was") and _a_space(_get(t, n, k + 3)):
                    k = _spaces(t, n, k + 3)
                    m = _word_after(t, n, k, (u"born",), True)
        elif _get(t, n, i + 1) == u'y' or _get(t, n, i + 1) == u'Y':
            if _a_space(_get(t, n, i + 2)):
                m = _word_after(t, n, _spaces(t, n, i + 2), _EN_MY_NOUNS, True)
        if m >= 0 and _a_space(_get(t, n, m)):
            if _word_after(t, n, _spaces(t, n, m), _EN_NOT_AFTER, False) >= 0:
                m = -1
        if m >= 0:
            out.append(i)
            out.append(m)
            i = m
        else:
            i += 1
    return out


# ------------------------------------------------------------------------------------------- lexicons
cdef struct Node:
    int accept          # entry id, -1 when no entry ends here


cdef struct Edge:
    uint64_t key        # (node << 21 | char) + 1; 0 marks an empty slot
    int child


cdef class Trie:
    """A prefix tree of literal entries (code points); ``accept`` carries each entry's id.

    Edges live in one open-addressing table (a lookup is one probe, usually in cache).
    """
    cdef vector[Node] nodes
    cdef vector[Edge] edges
    cdef uint64_t mask
    cdef size_t n_edges
    cdef vector[uint64_t] first                # bitset of BMP chars that start an entry (a filter before the lookup)

    def __cinit__(self):
        cdef Node root
        cdef Edge empty
        root.accept = -1
        self.nodes.push_back(root)
        self.first.assign(1024, 0)
        empty.key = 0
        empty.child = -1
        self.edges.assign(256, empty)
        self.mask = 255
        self.n_edges = 0

    cdef void _grow(self):
        cdef vector[Edge] old = self.edges
        cdef Edge empty
        cdef size_t k
        cdef uint64_t slot_
        empty.key = 0
        empty.child = -1
        self.edges.assign(old.size() * 2, empty)
        self.mask = self.edges.size() - 1
        for k in range(old.size()):
            if old[k].key:
                slot_ = _mix(old[k].key) & self.mask
                while self.edges[slot_].key:
                    slot_ = (slot_ + 1) & self.mask
                self.edges[slot_] = old[k]

    def add(self, str entry, int ident):
        cdef int node = 0, child
        cdef uint64_t key, slot_
        cdef Node fresh
        cdef Py_UCS4 c
        if not entry:
            return
        c = entry[0]
        if c < 65536:
            self.first[<uint64_t>c >> 6] |= (<uint64_t>1) << (<uint64_t>c & 63)
        for c in entry:
            child = self.child(node, c)
            if child < 0:
                if 2 * (self.n_edges + 1) > self.edges.size():
                    self._grow()
                child = <int>self.nodes.size()
                fresh.accept = -1
                self.nodes.push_back(fresh)
                key = ((<uint64_t>node << 21) | <uint64_t>c) + 1
                slot_ = _mix(key) & self.mask
                while self.edges[slot_].key:
                    slot_ = (slot_ + 1) & self.mask
                self.edges[slot_].key = key
                self.edges[slot_].child = child
                self.n_edges += 1
            node = child
        if self.nodes[node].accept < 0:
            self.nodes[node].accept = ident

    cdef inline bint may_start(self, Py_UCS4 c):
        return c >= 65536 or (self.first[<uint64_t>c >> 6] >> (<uint64_t>c & 63)) & 1

    cdef inline int child(self, int node, Py_UCS4 c):
        cdef uint64_t key = ((<uint64_t>node << 21) | <uint64_t>c) + 1
        cdef uint64_t slot_ = _mix(key) & self.mask
        while self.edges[slot_].key:
            if self.edges[slot_].key == key:
                return self.edges[slot_].child
            slot_ = (slot_ + 1) & self.mask
        return -1


cdef class Lexicons:
    """Every lexicon as tries: English phrases in one (owners per entry), each Chinese lexicon on its own.

    ``scan`` gives the same hits as ``lexicon.scan_python``.
    """
    cdef Trie en
    cdef vector[vector[int]] en_owners          # entry id -> output slots
    cdef list zh                                 # [(Trie, slot, aligned)]
    cdef vector[uint64_t] dict_table              # jieba dictionary words of 2-4 chars: FNV hashes, open addressing
    cdef uint64_t dict_mask
    cdef int n_slots
    cdef vector[vector[bint]] zh_is_word          # per zh lexicon: entry id -> a word (not an exception)

    def __init__(self, int n_slots, list en_entries, list zh_lexicons, dict_words):
        """``en_entries``: [(normalised phrase, [slots])]; ``zh_lexicons``: [(slot, aligned, [(entry, is_word)])]."""
        cdef int k
        cdef vector[int] owners
        cdef vector[bint] flags
        self.n_slots = n_slots
        self.en = Trie()
        for k, (phrase, slots) in enumerate(en_entries):
            self.en.add(phrase, k)
            owners.clear()
            for s in slots:
                owners.push_back(s)
            self.en_owners.push_back(owners)
        self.zh = []
        for slot, aligned, items in zh_lexicons:
            trie = Trie()
            flags.clear()
            for k, (entry, is_word) in enumerate(items):
                trie.add(entry, k)
                flags.push_back(is_word)
            self.zh.append((trie, slot, aligned))
            self.zh_is_word.push_back(flags)
        cdef size_t size = 1024
        cdef uint64_t h, slot_
        while size < 2 * len(dict_words):
            size *= 2
        self.dict_table.assign(size, 0)
        self.dict_mask = size - 1
        for w in dict_words:
            h = _hash_str(w) | 1  # 0 marks an empty slot
            slot_ = _mix(h) & self.dict_mask
            while self.dict_table[slot_] != 0 and self.dict_table[slot_] != h:
                slot_ = (slot_ + 1) & self.dict_mask
            self.dict_table[slot_] = h

    cdef inline bint in_dict(self, uint64_t h):
        cdef uint64_t slot_
        h |= 1
        slot_ = _mix(h) & self.dict_mask
        while self.dict_table[slot_] != 0:
            if self.dict_table[slot_] == h:
                return True
            slot_ = (slot_ + 1) & self.dict_mask
        return False

    cdef bint aligned(self, Text t, Py_ssize_t n, Py_ssize_t start, Py_ssize_t end):
        """``lexicon.zh_word_aligned``: no dictionary word of 2-4 chars crosses start or end."""
        cdef Py_ssize_t p, i, j, k
        cdef uint64_t h
        for p in (start, end):
            if p <= 0 or p >= n or not (_is_cjk(_at(t, p - 1)) and _is_cjk(_at(t, p))):
                continue
            for i in range(max(0, p - 3), p):
                h = FNV_OFFSET
                for k in range(i, p):
                    h = (h ^ <uint64_t>_at(t, k)) * FNV_PRIME
                for j in range(p + 1, min(n, i + 4) + 1):
                    h = (h ^ <uint64_t>_at(t, j - 1)) * FNV_PRIME
                    if self.in_dict(h):
                        return False
        return True

    def is_aligned(self, str text, Py_ssize_t start, Py_ssize_t end):
        return self.aligned(_raw(text), len(text), start, end)

    def scan(self, str text, bint with_zh):
        """Hits per slot, each a flat list [start, end, ...] in text order."""
        cdef Text t = _raw(text)
        cdef Py_ssize_t n = len(text), p = 0, k, best_end
        cdef int node, best_id, slot, z
        cdef Py_UCS4 c
        cdef Trie trie
        cdef list out = [[] for _ in range(self.n_slots)]
        cdef list lst
        cdef bint is_aligned
        # English: \b(?:trie)(?![\w'’]), ASCII case-insensitive, whitespace runs match one space
        while p < n:
            c = _at(t, p)
            if not _a_alnum(c) or (p > 0 and _a_word(_at(t, p - 1))):
                p += 1
                continue
            node = 0
            k = p
            best_end = -1
            best_id = -1
            while k < n:
                c = _at(t, k)
                if _a_space(c):
                    node = self.en.child(node, u' ')
                    if node < 0:
                        break
                    k = _spaces(t, n, k)
                else:
                    if u'A' <= c <= u'Z':
                        c = <Py_UCS4>(<unsigned int>c + 32)
                    elif c == u'’':
                        c = u"'"
                    node = self.en.child(node, c)
                    if node < 0:
                        break
                    k += 1
                if self.en.nodes[node].accept >= 0:
                    c = _get(t, n, k)
                    if k >= n or not (_a_word(c) or c == u"'" or c == u'’'):
                        best_end = k
                        best_id = self.en.nodes[node].accept
            if best_end < 0:
                p += 1
                continue
            c = _at(t, p)
            if not (best_end - p == 1 and not (u'a' <= c <= u'z')):
                for slot in self.en_owners[best_id]:
                    lst = out[slot]
                    lst.append(p)
                    lst.append(best_end)
            p = best_end
        if not with_zh:
            return out
        # Chinese: leftmost-longest literal matches per lexicon; exception words are matched and dropped.
        # One pass for all lexicons: each resumes after its own last match, as separate scans would.
        cdef Py_ssize_t nz = len(self.zh)
        cdef vector[Py_ssize_t] resume
        cdef vector[void*] tries
        cdef vector[int] slots
        cdef vector[bint] aligned_flags
        cdef vector[uint64_t] union_first
        resume.assign(nz, 0)
        union_first.assign(1024, 0)
        for z in range(nz):
            trie, slot, is_aligned = self.zh[z]
            tries.push_back(<void*>trie)
            slots.push_back(slot)
            aligned_flags.push_back(is_aligned)
            for k in range(1024):
                union_first[k] |= trie.first[k]
        for p in range(n):
            c = _at(t, p)
            if c < 65536 and not (union_first[<uint64_t>c >> 6] >> (<uint64_t>c & 63)) & 1:
                continue
            for z in range(nz):
                if resume[z] > p:
                    continue
                trie = <Trie>tries[z]
                if not trie.may_start(c):
                    continue
                node = trie.child(0, c)
                if node < 0:
                    continue
                k = p + 1
                best_end = k if trie.nodes[node].accept >= 0 else -1
                best_id = trie.nodes[node].accept
                while k < n:
                    node = trie.child(node, _at(t, k))
                    if node < 0:
                        break
                    k += 1
                    if trie.nodes[node].accept >= 0:
                        best_end = k
                        best_id = trie.nodes[node].accept
                if best_end < 0:
                    continue
                if self.zh_is_word[z][best_id] and (not aligned_flags[z] or self.aligned(t, n, p, best_end)):
                    lst = out[slots[z]]
                    lst.append(p)
                    lst.append(best_end)
                resume[z] = best_end
        return out


def scan_quotes(str text):
    """``protect._QUOTE.finditer`` spans: “…” 「…」 『…』 (≤200 chars), 《…》 (≤100), "…" (≤200), no line breaks."""
    cdef Text t = _raw(text)
    cdef Py_ssize_t n = len(text), i = 0, j, limit
    cdef Py_UCS4 c, close, other
    cdef list out = []
    while i < n:
        c = _at(t, i)
        if c == u'“':
            close, other, limit = u'”', u'“', 200
        elif c == u'「':
            close, other, limit = u'」', u'「', 200
        elif c == u'『':
            close, other, limit = u'』', u'『', 200
        elif c == u'《':
            close, other, limit = u'》', u'《', 100
        elif c == u'"':
            close, other, limit = u'"', u'"', 200
        else:
            i += 1
            continue
        # [^open close \n]{1,limit} then close: the first close within reach, nothing forbidden before it
        j = i + 1
        while j < n and j - i - 1 < limit:
            c = _at(t, j)
            if c == close or c == other or c == u'\n':
                break
            j += 1
        if j < n and j > i + 1 and _at(t, j) == close:
            out.append(i)
            out.append(j + 1)
            i = j + 1
        else:
            i += 1
    return out

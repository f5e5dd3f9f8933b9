# Included by _native.pyx: scanners for protections and lexicons.
#
# Each scanner reproduces one regex of protect.py / lexicon.py exactly (Python's ``re`` semantics:
# leftmost match, resumed at the previous match's end); ``tests/engine/test_native.py`` compares them
# on the corpus sample and on generated text.  Results are flat lists [start0, end0, start1, end1, ...].
from libcpp.string cimport string


cdef inline bint _a_letter(Py_UCS4 c) noexcept nogil:
    return (u'a' <= c <= u'z') or (u'A' <= c <= u'Z')


cdef inline bint _a_digit(Py_UCS4 c) noexcept nogil:
    return u'0' <= c <= u'9'


cdef inline bint _a_alnum(Py_UCS4 c) noexcept nogil:
    return _a_letter(c) or _a_digit(c)


cdef inline bint _a_word(Py_UCS4 c) noexcept nogil:         # \w with re.ASCII
    return _a_alnum(c) or c == u'_'


cdef inline bint _a_space(Py_UCS4 c) noexcept nogil:        # \s with re.ASCII
    return c == u' ' or (u'\t' <= c <= u'\r')


cdef inline bint _u_word(Py_UCS4 c) noexcept nogil:         # \w for str patterns
    return _isalnum(c) or c == u'_'


cdef inline Py_UCS4 _get(Text t, Py_ssize_t n, Py_ssize_t i) noexcept nogil:
    """The char at i, or 0 past the end (0 matches no class used here)."""
    if 0 <= i < n:
        return _at(t, i)
    return 0


# ------------------------------------------------------------------------------------------- numbers
cdef inline bint _currency(Py_UCS4 c) noexcept nogil:
    return c == u'¥' or c == u'$' or c == u'€' or c == u'£' or c == u'￥'


cdef inline bint _cjk_num(Py_UCS4 c) noexcept nogil:
    return (c == u'零' or c == u'〇' or c == u'一' or c == u'二' or c == u'两' or c == u'三' or c == u'四'
            or c == u'五' or c == u'六' or c == u'七' or c == u'八' or c == u'九' or c == u'十' or c == u'百'
            or c == u'千' or c == u'万' or c == u'亿' or c == u'半')


cdef inline bint _cjk_num_small(Py_UCS4 c) noexcept nogil:   # after 分之: no 万亿半
    return _cjk_num(c) and c != u'万' and c != u'亿' and c != u'半'


cdef inline bint _num_unit(Py_UCS4 c) noexcept nogil:    # 年月日号时点分秒天周岁元块万亿倍个位次条件项级
    return (c == u'年' or c == u'月' or c == u'日' or c == u'号' or c == u'时' or c == u'点' or c == u'分'
            or c == u'秒' or c == u'天' or c == u'周' or c == u'岁' or c == u'元' or c == u'块' or c == u'万'
            or c == u'亿' or c == u'倍' or c == u'个' or c == u'位' or c == u'次' or c == u'条' or c == u'件'
            or c == u'项' or c == u'级')


cdef inline bint _cjk_unit(Py_UCS4 c) noexcept nogil:    # 年日号天周岁元块倍位次条件项级成折
    return (c == u'年' or c == u'日' or c == u'号' or c == u'天' or c == u'周' or c == u'岁' or c == u'元'
            or c == u'块' or c == u'倍' or c == u'位' or c == u'次' or c == u'条' or c == u'件' or c == u'项'
            or c == u'级' or c == u'成' or c == u'折')


cdef inline bint _amount_suffix(Py_UCS4 c) noexcept nogil:    # 万亿千百kKmMbB
    return (c == u'万' or c == u'亿' or c == u'千' or c == u'百' or c == u'k' or c == u'K' or c == u'm'
            or c == u'M' or c == u'b' or c == u'B')


cdef inline bint _number_sep(Py_UCS4 c) noexcept nogil:    # .,:/-
    return c == u'.' or c == u',' or c == u':' or c == u'/' or c == u'-'


def scan_numbers(str text):
    """``protect._NUMBER.finditer`` spans."""
    cdef vector[Py_ssize_t] out
    _numbers(_raw(text), len(text), out)
    return out


cdef void _numbers(Text t, Py_ssize_t n, vector[Py_ssize_t]& out) noexcept nogil:
    cdef Py_ssize_t i = 0, j, L
    cdef Py_UCS4 c
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
                if _amount_suffix(_get(t, n, j)):
                    j += 1
                out.push_back(i)
                out.push_back(j)
                i = j
                continue
            i += 1
        elif _isdecimal(c):
            j = i + 1
            while j < n and _isdecimal(_at(t, j)):
                j += 1
            while _number_sep(_get(t, n, j)) and j + 1 < n and _isdecimal(_at(t, j + 1)):
                j += 2
                while j < n and _isdecimal(_at(t, j)):
                    j += 1
            c = _get(t, n, j)
            if c == u'%' or c == u'％' or c == u'‰' or _num_unit(c):
                j += 1
            elif _isspace(c) and _get(t, n, j + 1) == u'%':
                j += 2
            elif _a_letter(c):
                L = 1
                while L < 4 and _a_letter(_get(t, n, j + L)):
                    L += 1
                if L <= 3 and not _u_word(_get(t, n, j + L)):
                    j += L
            out.push_back(i)
            out.push_back(j)
            i = j
        elif _cjk_num(c):
            j = i + 1
            while j < n and _cjk_num(_at(t, j)):
                j += 1
            c = _get(t, n, j)
            L = 0
            if _cjk_unit(c):
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
                out.push_back(i)
                out.push_back(j + L)
                i = j + L
            else:
                i = j  # no start inside the run can match either
        else:
            i += 1


# --------------------------------------------------------------------------------------- identifiers
cdef inline bint _seg(Py_UCS4 c) noexcept nogil:             # [\w.\-] with re.ASCII
    return _a_word(c) or c == u'.' or c == u'-'


cdef inline bint _url_char(Py_UCS4 c) noexcept nogil:        # [^\s<>"'，。）)] with re.ASCII
    return not (_a_space(c) or c == u'<' or c == u'>' or c == u'"' or c == u"'" or c == u'，'
                or c == u'。' or c == u'）' or c == u')')


cdef void _urls(Text t, Py_ssize_t n, vector[Py_ssize_t]& out) noexcept nogil:
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
                out.push_back(i)
                out.push_back(j)
                i = j
                continue
        i += 1


cdef inline bint _local(Py_UCS4 c) noexcept nogil:           # [\w.+-] with re.ASCII
    return _a_word(c) or c == u'.' or c == u'+' or c == u'-'


cdef inline bint _label(Py_UCS4 c) noexcept nogil:           # [\w-] with re.ASCII
    return _a_word(c) or c == u'-'


cdef void _emails(Text t, Py_ssize_t n, vector[Py_ssize_t]& out) noexcept nogil:
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
        out.push_back(r)
        out.push_back(d)
        last = d


cdef void _posix_paths(Text t, Py_ssize_t n, vector[Py_ssize_t]& out) noexcept nogil:
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
        out.push_back(p)
        out.push_back(end)
        p = end


cdef void _windows_paths(Text t, Py_ssize_t n, vector[Py_ssize_t]& out) noexcept nogil:
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
            out.push_back(p)
            out.push_back(k)
            p = k
            continue
        p += 1


cdef void _hash_ids(Text t, Py_ssize_t n, vector[Py_ssize_t]& out) noexcept nogil:
    cdef Py_ssize_t p = 0, k
    while p < n:
        if _at(t, p) == u'#' and _a_digit(_get(t, n, p + 1)):
            k = p + 2
            while _label(_get(t, n, k)):
                k += 1
            out.push_back(p)
            out.push_back(k)
            p = k
            continue
        p += 1


cdef void _codes(Text t, Py_ssize_t n, vector[Py_ssize_t]& out) noexcept nogil:
    """``\\b[A-Za-z][A-Za-z0-9]*(?:[-_][A-Za-z0-9]+)*[-_]?\\d[\\w-]*`` (SKU-12345, v2)."""
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
        out.push_back(p)
        out.push_back(k)
        p = k


cdef void _snake(Text t, Py_ssize_t n, vector[Py_ssize_t]& out) noexcept nogil:
    """``\\b[A-Za-z0-9]+(?:_[A-Za-z0-9]+)+\\b``: a whole ASCII word of alnum runs joined by single _."""
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
            out.push_back(p)
            out.push_back(k)
        p = k


cdef void _placeholders(Text t, Py_ssize_t n, vector[Py_ssize_t]& out) noexcept nogil:
    """``\\{\\{?\\s*[\\w.]+\\s*\\}?\\}`` (Unicode \\w and \\s)."""
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
            out.push_back(p)
            out.push_back(k)
            p = k
            continue
        p += 1


cdef void _bracket_names(Text t, Py_ssize_t n, vector[Py_ssize_t]& out) noexcept nogil:
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
                out.push_back(p)
                out.push_back(k + 1)
                p = k + 1
                continue
        p += 1


cdef void _identifiers(Text t, Py_ssize_t n, const bint* wanted, vector[vector[Py_ssize_t]]& out) noexcept nogil:
    out.clear()
    out.resize(9)
    if wanted[0]:
        _urls(t, n, out[0])
    if wanted[1]:
        _emails(t, n, out[1])
    if wanted[2]:
        _posix_paths(t, n, out[2])
    if wanted[3]:
        _windows_paths(t, n, out[3])
    if wanted[4]:
        _hash_ids(t, n, out[4])
    if wanted[5]:
        _codes(t, n, out[5])
    if wanted[6]:
        _snake(t, n, out[6])
    if wanted[7]:
        _placeholders(t, n, out[7])
    if wanted[8]:
        _bracket_names(t, n, out[8])


def scan_identifiers(str text, tuple wanted):
    """Spans of each ``protect._IDENTIFIERS`` pattern (in that order); None where ``wanted[k]`` is false."""
    cdef bint flags[9]
    cdef vector[vector[Py_ssize_t]] found
    for k in range(9):
        flags[k] = bool(wanted[k])
    _identifiers(_raw(text), len(text), flags, found)
    return [list(found[k]) if flags[k] else None for k in range(9)]


# ---------------------------------------------------------------------------------------- user facts
ctypedef vector[Py_UCS4] Word


cdef vector[Word] _words(tuple items):
    cdef vector[Word] out
    cdef Word w
    cdef Py_UCS4 c
    for item in items:
        w.clear()
        for c in item:
            w.push_back(c)
        out.push_back(w)
    return out


cdef vector[Word] _ZH_VERBS = _words((
    u"是", u"有", u"在", u"住在", u"姓", u"叫", u"今年", u"已经", u"刚刚", u"刚", u"的", u"买了", u"购买了", u"办理了",
    u"办了", u"开了", u"绑定了", u"持有", u"目前", u"现在是", u"属于"))
cdef vector[Word] _EN_I_VERBS = _words((u"am", u"have", u"own", u"live", u"work", u"bought", u"ordered", u"paid",
                                        u"use", u"run"))
cdef vector[Word] _EN_I_CONTRACTIONS = _words((u"m", u"ve"))
cdef vector[Word] _EN_BORN = _words((u"born",))
cdef vector[Word] _EN_MY_NOUNS = _words((
    u"name", u"account", u"order", u"email", u"phone", u"address", u"plan", u"membership", u"subscription", u"id",
    u"number", u"company", u"team", u"budget", u"age", u"salary", u"income", u"policy", u"card", u"car", u"house",
    u"flight", u"booking", u"reservation", u"level", u"status", u"tier"))
cdef vector[Word] _EN_NOT_AFTER = _words((u"wondering", u"hoping", u"writing", u"looking", u"asking", u"just",
                                          u"sorry", u"afraid", u"glad", u"happy", u"curious", u"trying"))
cdef Word _WAS = _words((u"was",))[0]


cdef bint _lit(Text t, Py_ssize_t n, Py_ssize_t i, const Word& word) noexcept nogil:
    cdef size_t k
    if i + <Py_ssize_t>word.size() > n:
        return False
    for k in range(word.size()):
        if _at(t, i + k) != word[k]:
            return False
    return True


cdef bint _lit_ci(Text t, Py_ssize_t n, Py_ssize_t i, const Word& word) noexcept nogil:
    """ASCII case-insensitive literal (``word`` in lower case)."""
    cdef size_t k
    cdef Py_UCS4 c
    if i + <Py_ssize_t>word.size() > n:
        return False
    for k in range(word.size()):
        c = _at(t, i + k)
        if u'A' <= c <= u'Z':
            c = <Py_UCS4>(<unsigned int>c + 32)
        if c != word[k]:
            return False
    return True


cdef Py_ssize_t _spaces(Text t, Py_ssize_t n, Py_ssize_t i) noexcept nogil:
    while i < n and _a_space(_at(t, i)):
        i += 1
    return i


cdef Py_ssize_t _word_after(Text t, Py_ssize_t n, Py_ssize_t i, const vector[Word]& words,
                            bint boundary) noexcept nogil:
    """End of the first of ``words`` (case-insensitive) at i — followed by a \\b when ``boundary`` — or -1."""
    cdef size_t k, L
    for k in range(words.size()):
        L = words[k].size()
        if _lit_ci(t, n, i, words[k]) and (not boundary or not _a_word(_get(t, n, i + L))):
            return i + L
    return -1


def scan_user_facts(str text, Py_ssize_t start, Py_ssize_t end):
    """``protect._USER_FACT_ZH`` then ``_USER_FACT_EN`` spans within [start, end)."""
    cdef vector[Py_ssize_t] out
    _user_facts(_raw(text), len(text), start, end, out)
    return out


cdef void _user_facts(Text t, Py_ssize_t length, Py_ssize_t start, Py_ssize_t end,
                      vector[Py_ssize_t]& out) noexcept nogil:
    cdef Py_ssize_t n = min(end, length), i, j, k, m
    cdef Py_UCS4 c
    cdef size_t w
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
            for w in range(_ZH_VERBS.size()):
                if _lit(t, n, j + (1 if k == 0 else 0), _ZH_VERBS[w]):
                    m = j + (1 if k == 0 else 0) + <Py_ssize_t>_ZH_VERBS[w].size()
                    break
            if m >= 0:
                break
        if m >= 0:
            out.push_back(i)
            out.push_back(m)
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
                m = _word_after(t, n, i + 2, _EN_I_CONTRACTIONS, True)
            elif _a_space(c):
                k = _spaces(t, n, i + 1)
                m = _word_after(t, n, k, _EN_I_VERBS, True)
                if m < 0 and _lit_ci(t, n, k, _WAS) and _a_space(_get(t, n, k + 3)):
                    k = _spaces(t, n, k + 3)
                    m = _word_after(t, n, k, _EN_BORN, True)
        elif _get(t, n, i + 1) == u'y' or _get(t, n, i + 1) == u'Y':
            if _a_space(_get(t, n, i + 2)):
                m = _word_after(t, n, _spaces(t, n, i + 2), _EN_MY_NOUNS, True)
        if m >= 0 and _a_space(_get(t, n, m)):
            if _word_after(t, n, _spaces(t, n, m), _EN_NOT_AFTER, False) >= 0:
                m = -1
        if m >= 0:
            out.push_back(i)
            out.push_back(m)
            i = m
        else:
            i += 1


# ------------------------------------------------------------------------------------------- lexicons
cdef struct Node:
    int accept          # entry id, -1 when no entry ends here


cdef struct Edge:
    uint64_t key        # (node << 21 | char) + 1; 0 marks an empty slot
    int child


cdef cppclass TrieC:
    """A prefix tree of literal entries (code points); edges in one open-addressing table, so a lookup is
    one probe, usually in cache; a bitset of the chars that start an entry filters positions first."""
    vector[Node] nodes
    vector[Edge] edges
    uint64_t mask
    size_t n_edges
    vector[uint64_t] first

    void init() noexcept nogil:
        cdef Node root
        cdef Edge empty
        root.accept = -1
        this.nodes.clear()
        this.nodes.push_back(root)
        this.first.assign(1024, 0)
        empty.key = 0
        empty.child = -1
        this.edges.assign(256, empty)
        this.mask = 255
        this.n_edges = 0

    bint may_start(Py_UCS4 c) noexcept nogil:
        return c >= 65536 or (this.first[<uint64_t>c >> 6] >> (<uint64_t>c & 63)) & 1

    int child(int node, Py_UCS4 c) noexcept nogil:
        cdef uint64_t key = ((<uint64_t>node << 21) | <uint64_t>c) + 1
        cdef uint64_t slot_ = _mix(key) & this.mask
        while this.edges[slot_].key:
            if this.edges[slot_].key == key:
                return this.edges[slot_].child
            slot_ = (slot_ + 1) & this.mask
        return -1

    void grow() noexcept nogil:
        cdef vector[Edge] old = this.edges
        cdef Edge empty
        cdef size_t k
        cdef uint64_t slot_
        empty.key = 0
        empty.child = -1
        this.edges.assign(old.size() * 2, empty)
        this.mask = this.edges.size() - 1
        for k in range(old.size()):
            if old[k].key:
                slot_ = _mix(old[k].key) & this.mask
                while this.edges[slot_].key:
                    slot_ = (slot_ + 1) & this.mask
                this.edges[slot_] = old[k]

    void add(const vector[Py_UCS4]& entry, int ident) noexcept nogil:
        cdef int node = 0, child
        cdef uint64_t key, slot_
        cdef Node fresh
        cdef Py_UCS4 c
        cdef size_t k
        if entry.size() == 0:
            return
        c = entry[0]
        if c < 65536:
            this.first[<uint64_t>c >> 6] |= (<uint64_t>1) << (<uint64_t>c & 63)
        for k in range(entry.size()):
            c = entry[k]
            child = this.child(node, c)
            if child < 0:
                if 2 * (this.n_edges + 1) > this.edges.size():
                    this.grow()
                child = <int>this.nodes.size()
                fresh.accept = -1
                this.nodes.push_back(fresh)
                key = ((<uint64_t>node << 21) | <uint64_t>c) + 1
                slot_ = _mix(key) & this.mask
                while this.edges[slot_].key:
                    slot_ = (slot_ + 1) & this.mask
                this.edges[slot_].key = key
                this.edges[slot_].child = child
                this.n_edges += 1
            node = child
        if this.nodes[node].accept < 0:
            this.nodes[node].accept = ident


cdef Word _word_of(str text):
    cdef Word w
    cdef Py_UCS4 c
    for c in text:
        w.push_back(c)
    return w


cdef class Lexicons:
    """Every lexicon as tries: English phrases in one (owners per entry), each Chinese lexicon on its own.

    ``scan`` gives the same hits as ``lexicon.scan_python``; ``_scan_into`` is the same without the GIL.
    """
    cdef TrieC en
    cdef vector[vector[int]] en_owners          # entry id -> output slots
    cdef vector[TrieC] zh
    cdef vector[int] zh_slot
    cdef vector[bint] zh_aligned
    cdef vector[vector[bint]] zh_is_word         # per zh lexicon: entry id -> a word (not an exception)
    cdef vector[uint64_t] zh_first               # union of the zh tries' first-char bitsets
    cdef vector[uint64_t] dict_table             # jieba dictionary words of 2-4 chars: FNV hashes, open addressing
    cdef uint64_t dict_mask
    cdef int n_slots

    def __init__(self, int n_slots, list en_entries, list zh_lexicons, dict_words):
        """``en_entries``: [(normalised phrase, [slots])]; ``zh_lexicons``: [(slot, aligned, [(entry, is_word)])]."""
        cdef int k
        cdef size_t z, i
        cdef vector[int] owners
        cdef vector[bint] flags
        cdef TrieC trie
        self.n_slots = n_slots
        self.en.init()
        for k, (phrase, slots) in enumerate(en_entries):
            self.en.add(_word_of(phrase), k)
            owners.clear()
            for s in slots:
                owners.push_back(s)
            self.en_owners.push_back(owners)
        for slot, aligned, items in zh_lexicons:
            trie.init()
            flags.clear()
            for k, (entry, is_word) in enumerate(items):
                trie.add(_word_of(entry), k)
                flags.push_back(is_word)
            self.zh.push_back(trie)
            self.zh_slot.push_back(slot)
            self.zh_aligned.push_back(aligned)
            self.zh_is_word.push_back(flags)
        self.zh_first.assign(1024, 0)
        for z in range(self.zh.size()):
            for i in range(1024):
                self.zh_first[i] |= self.zh[z].first[i]
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

    cdef inline bint in_dict(self, uint64_t h) noexcept nogil:
        cdef uint64_t slot_
        h |= 1
        slot_ = _mix(h) & self.dict_mask
        while self.dict_table[slot_] != 0:
            if self.dict_table[slot_] == h:
                return True
            slot_ = (slot_ + 1) & self.dict_mask
        return False

    cdef bint aligned(self, Text t, Py_ssize_t n, Py_ssize_t start, Py_ssize_t end) noexcept nogil:
        """``lexicon.zh_word_aligned``: no dictionary word of 2-4 chars crosses start or end."""
        cdef Py_ssize_t p, i, j, k, q
        cdef uint64_t h
        for q in range(2):
            p = start if q == 0 else end
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

    def scan(self, str text, bint with_zh):
        """Hits per slot, each a flat list [start, end, ...] in text order."""
        cdef vector[vector[Py_ssize_t]] out
        self._scan_into(_raw(text), len(text), with_zh, out)
        return [list(v) for v in out]

    cdef void _scan_into(self, Text t, Py_ssize_t n, bint with_zh, vector[vector[Py_ssize_t]]& out) noexcept nogil:
        cdef Py_ssize_t p = 0, k, best_end
        cdef int node, best_id, slot
        cdef size_t z, nz, o
        cdef Py_UCS4 c
        cdef vector[Py_ssize_t] resume
        out.clear()
        out.resize(self.n_slots)
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
                for o in range(self.en_owners[best_id].size()):
                    slot = self.en_owners[best_id][o]
                    out[slot].push_back(p)
                    out[slot].push_back(best_end)
            p = best_end
        if not with_zh:
            return
        # Chinese: leftmost-longest literal matches per lexicon; exception words are matched and dropped.
        # One pass for all lexicons: each resumes after its own last match, as separate scans would.
        nz = self.zh.size()
        resume.assign(nz, 0)
        for p in range(n):
            c = _at(t, p)
            if c < 65536 and not (self.zh_first[<uint64_t>c >> 6] >> (<uint64_t>c & 63)) & 1:
                continue
            for z in range(nz):
                if resume[z] > p or not self.zh[z].may_start(c):
                    continue
                node = self.zh[z].child(0, c)
                if node < 0:
                    continue
                k = p + 1
                best_end = k if self.zh[z].nodes[node].accept >= 0 else -1
                best_id = self.zh[z].nodes[node].accept
                while k < n:
                    node = self.zh[z].child(node, _at(t, k))
                    if node < 0:
                        break
                    k += 1
                    if self.zh[z].nodes[node].accept >= 0:
                        best_end = k
                        best_id = self.zh[z].nodes[node].accept
                if best_end < 0:
                    continue
                if self.zh_is_word[z][best_id] and (not self.zh_aligned[z] or self.aligned(t, n, p, best_end)):
                    out[self.zh_slot[z]].push_back(p)
                    out[self.zh_slot[z]].push_back(best_end)
                resume[z] = best_end


def scan_quotes(str text):
    """``protect._QUOTE.finditer`` spans: “…” 「…」 『…』 (≤200 chars), 《…》 (≤100), "…" (≤200), no line breaks."""
    cdef vector[Py_ssize_t] out
    _quotes(_raw(text), len(text), out)
    return out


cdef void _quotes(Text t, Py_ssize_t n, vector[Py_ssize_t]& out) noexcept nogil:
    cdef Py_ssize_t i = 0, j, limit
    cdef Py_UCS4 c, close, other
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
            out.push_back(i)
            out.push_back(j + 1)
            i = j + 1
        else:
            i += 1


def scan_code(str text):
    """``protect._CODE.finditer`` spans: a fenced block from ``` to the next ``` (or the end of the text),
    or `inline code` on one line."""
    cdef vector[Py_ssize_t] out
    _code_spans(_raw(text), len(text), out)
    return out


cdef inline bint _fence(Text t, Py_ssize_t n, Py_ssize_t i) noexcept nogil:
    return i + 3 <= n and _at(t, i) == u'`' and _at(t, i + 1) == u'`' and _at(t, i + 2) == u'`'


cdef void _code_spans(Text t, Py_ssize_t n, vector[Py_ssize_t]& out) noexcept nogil:
    cdef Py_ssize_t i = 0, j
    while i < n:
        if _at(t, i) != u'`':
            i += 1
            continue
        if _fence(t, n, i):  # ```.*?(?:```|\Z): the first fence after this one, else the end of the text
            j = i + 3
            while j < n and not _fence(t, n, j):
                j += 1
            out.push_back(i)
            out.push_back(j + 3 if j < n else n)
            i = j + 3 if j < n else n
            continue
        j = i + 1  # `[^`\n]+`
        while j < n and _at(t, j) != u'`' and _at(t, j) != u'\n':
            j += 1
        if j > i + 1 and j < n and _at(t, j) == u'`':
            out.push_back(i)
            out.push_back(j + 1)
            i = j + 1
        else:
            i += 1


# ----------------------------------------------------------------------------------------- scan job
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC


cdef inline double _now() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec + ts.tv_nsec * 1e-9

cdef class ScanJob:
    """Every scanner of a text in one job that runs without the GIL (numbers, quotes, identifiers, user
    facts, lexicons, the repeat scan), so other threads (the app's other sessions) run meanwhile.  ``results``
    converts to Python afterwards."""
    cdef str text
    cdef Text t
    cdef Py_ssize_t n
    cdef Lexicons lexicons
    cdef bint with_zh
    cdef bint wanted[9]
    cdef vector[Py_ssize_t] user_ranges
    cdef vector[Py_ssize_t] numbers, quotes, code, user_facts
    cdef vector[vector[Py_ssize_t]] identifiers, lexicon_hits
    cdef double seconds, repeat_seconds
    cdef bint done
    cdef RepeatScan repeat_scan
    cdef bint with_repeats

    def __init__(self, str text, Lexicons lexicons, tuple wanted, list user_ranges, RepeatScan repeats=None):
        """``wanted``: which of the 9 identifier scanners to run; ``user_ranges``: [(start, end)] of user blocks;
        ``repeats``: the repeated-constraint scan to run too (``results()["repeats"]``)."""
        self.repeat_scan = repeats
        self.with_repeats = repeats is not None
        self.text = text
        self.t = _raw(text)
        self.n = len(text)
        self.lexicons = lexicons
        self.with_zh = not text.isascii()
        for k in range(9):
            self.wanted[k] = bool(wanted[k])
        for s, e in user_ranges:
            self.user_ranges.push_back(s)
            self.user_ranges.push_back(e)
        self.done = False

    def run(self):
        """Run the scanners on this thread, releasing the GIL throughout (once)."""
        if self.done:
            raise RuntimeError("ScanJob already run")
        with nogil:
            self._run()
        self.done = True

    cdef void _run(self) noexcept nogil:
        cdef size_t k
        cdef double t0 = _now()
        _numbers(self.t, self.n, self.numbers)
        _quotes(self.t, self.n, self.quotes)
        _code_spans(self.t, self.n, self.code)
        _identifiers(self.t, self.n, self.wanted, self.identifiers)
        for k in range(0, self.user_ranges.size(), 2):
            _user_facts(self.t, self.n, self.user_ranges[k], self.user_ranges[k + 1], self.user_facts)
        self.lexicons._scan_into(self.t, self.n, self.with_zh, self.lexicon_hits)
        self.seconds = _now() - t0
        t0 = _now()
        if self.with_repeats:
            self.repeat_scan.run(self.t, self.n)
        self.repeat_seconds = _now() - t0

    cdef tuple _packed_lexicons(self):
        """Every slot's hits back to back in one tuple, and the offsets where each slot's start."""
        cdef size_t k
        cdef vector[Py_ssize_t] flat, offsets
        offsets.push_back(0)
        for k in range(self.lexicon_hits.size()):
            flat.insert(flat.end(), self.lexicon_hits[k].begin(), self.lexicon_hits[k].end())
            offsets.push_back(flat.size())
        return _flat_tuple(flat, 0, flat.size()), _flat_tuple(offsets, 0, offsets.size())

    def results(self):
        """{"numbers", "quotes", "code", "identifiers" (9 lists or None), "user_facts", "lexicons" ((all slots'
        hits flat, each slot's offset into them)), "repeats", "context" (``RepeatScan.context_matches``), "ms",
        "repeats_ms"}.  Call it after ``run`` has returned (on whichever thread it ran)."""
        if not self.done:
            raise RuntimeError("ScanJob.results() before run()")
        return {
            "numbers": _flat_tuple(self.numbers, 0, self.numbers.size()),
            "quotes": _flat_tuple(self.quotes, 0, self.quotes.size()),
            "code": _flat_tuple(self.code, 0, self.code.size()),
            "identifiers": [_flat_tuple(self.identifiers[k], 0, self.identifiers[k].size()) if self.wanted[k]
                            else None for k in range(9)],
            "user_facts": _flat_tuple(self.user_facts, 0, self.user_facts.size()), "lexicons": self._packed_lexicons(),
            "repeats": self.repeat_scan.results(True) if self.with_repeats else None,
            "context": self.repeat_scan.context_matches() if self.with_repeats else None,
            "ms": self.seconds * 1000.0, "repeats_ms": self.repeat_seconds * 1000.0,
        }

# Included by _native.pyx: the token records of the JSON result as text (the twin of
# result.PruneResult._token_json_pieces, which defines it).

cdef extern from "Python.h":
    object PyUnicode_New(Py_ssize_t size, Py_UCS4 maxchar)
    Py_UCS4 PyUnicode_MAX_CHAR_VALUE(object o)
    void PyUnicode_WRITE(int kind, void* data, Py_ssize_t index, Py_UCS4 value) nogil


cdef inline Py_UCS4 _bound(Py_UCS4 c) noexcept nogil:
    """The largest character of ``c``'s representation class (ASCII, Latin-1, UCS-2, UCS-4)."""
    return 0x7F if c <= 0x7F else (0xFF if c <= 0xFF else (0xFFFF if c <= 0xFFFF else 0x10FFFF))


cdef inline Py_ssize_t _int_len(long long v) noexcept nogil:
    cdef Py_ssize_t n = 1
    cdef unsigned long long u
    if v < 0:
        n += 1
        u = <unsigned long long>(-v)
    else:
        u = <unsigned long long>v
    while u >= 10:
        u //= 10
        n += 1
    return n


cdef inline Py_ssize_t _escaped_len(Text t, Py_ssize_t s, Py_ssize_t e, Py_UCS4* top) noexcept nogil:
    """The length of ``json.encoder.encode_basestring(text[s:e])``, raising ``top`` to its characters' bound."""
    cdef Py_ssize_t i, n = 2
    cdef Py_UCS4 c
    for i in range(s, e):
        c = _at(t, i)
        if c == u'"' or c == u'\\' or c == u'\n' or c == u'\r' or c == u'\t' or c == 8 or c == 12:
            n += 2
        elif c < 0x20:
            n += 6
        else:
            n += 1
            if c > top[0]:
                top[0] = _bound(c)
    return n


cdef class _Writer:
    """Characters written into a str allocated at its final size and kind."""
    cdef int kind
    cdef void* data
    cdef Py_ssize_t at

    cdef inline void put(self, Py_UCS4 c) noexcept:
        PyUnicode_WRITE(self.kind, self.data, self.at, c)
        self.at += 1

    cdef inline void put_str(self, str s):
        cdef Py_ssize_t i, n = len(s)
        cdef Text t = _raw(s)
        cdef const unsigned char* s1
        cdef unsigned short* d2
        if t.kind == self.kind:
            memcpy(<char*>self.data + self.at * self.kind, t.data, n * self.kind)
            self.at += n
            return
        if t.kind == 1 and self.kind == 2:  # most pieces are ASCII, most results hold CJK text
            s1 = <const unsigned char*>t.data
            d2 = <unsigned short*>self.data + self.at
            for i in range(n):
                d2[i] = s1[i]
            self.at += n
            return
        for i in range(n):
            PyUnicode_WRITE(self.kind, self.data, self.at + i, _at(t, i))
        self.at += n

    cdef inline void put_int(self, long long v) noexcept:
        cdef char digits[24]
        cdef int k = 0
        cdef unsigned long long u
        if v < 0:
            self.put(u'-')
            u = <unsigned long long>(-v)
        else:
            u = <unsigned long long>v
        while True:
            digits[k] = <char>(48 + u % 10)
            k += 1
            u //= 10
            if u == 0:
                break
        while k > 0:
            k -= 1
            self.put(<Py_UCS4>digits[k])

    cdef inline void put_json_string(self, Text t, Py_ssize_t s, Py_ssize_t e) noexcept:
        """``json.encoder.encode_basestring(text[s:e])``: quotes, backslash, \\b \\f \\n \\r \\t, other C0
        controls as \\u00xx; everything else (non-ASCII included) as it is."""
        cdef Py_ssize_t i
        cdef Py_UCS4 c
        cdef int shift
        cdef unsigned int v, d
        self.put(u'"')
        for i in range(s, e):
            c = _at(t, i)
            if c == u'"' or c == u'\\':
                self.put(u'\\')
                self.put(c)
            elif c >= 0x20:
                self.put(c)
            elif c == u'\n':
                self.put(u'\\')
                self.put(u'n')
            elif c == u'\r':
                self.put(u'\\')
                self.put(u'r')
            elif c == u'\t':
                self.put(u'\\')
                self.put(u't')
            elif c == 8:
                self.put(u'\\')
                self.put(u'b')
            elif c == 12:
                self.put(u'\\')
                self.put(u'f')
            else:
                self.put(u'\\')
                self.put(u'u')
                v = <unsigned int>c
                for shift in range(12, -4, -4):
                    d = (v >> shift) & 15
                    self.put(<Py_UCS4>(48 + d if d < 10 else 87 + d))  # lower-case hex, as json writes it
        self.put(u'"')


_START_KEY = ', "start": '
_END_KEY = ', "end": '


def token_records(str text, const long long[::1] start, const long long[::1] end, const long long[::1] block,
                  const long long[::1] tok_i, const long long[::1] id_of, const long long[::1] tail_of,
                  const long long[::1] loss_of, list heads, list id_parts, list tails, list loss_parts,
                  const long long[::1] block_start, Py_ssize_t c0, Py_ssize_t c1, str last_loss):
    """Records ``c0``..``c1`` of the token list as one str, exactly as ``result._token_json_pieces`` joins them:
    per token its block's head, ``i``, its id's part, the text as a JSON string, start and end (block
    offsets), its shared tail and its loss part (``last_loss`` for the list's last token, when ``c1`` is it).

    Two passes: the length and the largest character class first, then the characters straight into the str
    (no intermediate buffer and no scan of the result)."""
    cdef Text t = _raw(text)
    cdef Py_ssize_t k, n = start.shape[0], size = 0
    cdef long long base
    cdef Py_UCS4 top = 0x7F, bound
    cdef str piece
    cdef str start_key = _START_KEY, end_key = _END_KEY
    if c1 <= c0:
        return ""
    for k in range(c0, c1):
        base = block_start[block[k]]
        for piece in (heads[block[k]], id_parts[id_of[k]], tails[tail_of[k]],
                      last_loss if k == n - 1 else loss_parts[loss_of[k]]):
            size += len(piece)
            bound = PyUnicode_MAX_CHAR_VALUE(piece)
            if bound > top:
                top = bound
        size += _int_len(tok_i[k]) + _int_len(start[k] - base) + _int_len(end[k] - base)
        size += _escaped_len(t, start[k], end[k], &top)
    size += (len(start_key) + len(end_key)) * (c1 - c0)
    result = PyUnicode_New(size, top)
    cdef _Writer w = _Writer.__new__(_Writer)
    w.kind = PyUnicode_KIND(result)
    w.data = PyUnicode_DATA(result)
    w.at = 0
    for k in range(c0, c1):
        base = block_start[block[k]]
        w.put_str(heads[block[k]])
        w.put_int(tok_i[k])
        w.put_str(id_parts[id_of[k]])
        w.put_json_string(t, start[k], end[k])
        w.put_str(start_key)
        w.put_int(start[k] - base)
        w.put_str(end_key)
        w.put_int(end[k] - base)
        w.put_str(tails[tail_of[k]])
        w.put_str(last_loss if k == n - 1 else loss_parts[loss_of[k]])
    if w.at != size:
        raise RuntimeError(f"token_records wrote {w.at} characters into {size}")
    return result

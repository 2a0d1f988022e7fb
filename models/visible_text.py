"""Text shown to a person with its invisible characters made visible, so a name or Azure's message cannot hide
or reorder what a terminal, a log or the Temporal UI shows.

Escaped: every character Python does not call printable (`str.isprintable`): control characters (C0, DEL, C1:
a terminal's escape sequences), format characters (the bidirectional overrides and isolates U+202A-U+202E and
U+2066-U+2069, zero-width characters, the byte order mark), line and paragraph separators, spaces other than
' ', surrogates, private and unassigned code points. Each is written as Python writes it in a string literal
(`\\n`, `\\x1b`, `\\u202e`, `\\U000e0001`), as `repr` does, which is also how errors quote a bad value.
"""


_SHORT = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escaped(char: str) -> str:
    if char in _SHORT:
        return _SHORT[char]
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def visible(text: str, *, keep_newlines: bool = False) -> str:
    """`text` with every invisible character escaped; newlines kept as they are with `keep_newlines` (a text of
    several lines), escaped otherwise (one line cannot pretend to be two)."""
    if text.isprintable():  # the common case, at C speed
        return text
    return "".join(char if char.isprintable() or (keep_newlines and char == "\n") else _escaped(char)
                   for char in text)


def _json_escaped(char: str) -> str:
    code = ord(char)
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000  # a UTF-16 surrogate pair, as JSON writes a character beyond the BMP
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def visible_json(document: str) -> str:
    """A JSON text with every invisible character inside its strings written as a JSON escape (`\\u202e`): the
    same document, which a terminal shows as it is (JSON's own whitespace, ' ' and newlines, is left alone)."""
    if document.isprintable():
        return document
    return "".join(char if char.isprintable() or char == "\n" else _json_escaped(char) for char in document)

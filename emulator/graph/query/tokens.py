"""Tokenizer for the KQL subset: turns query text into a flat list of positioned tokens."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from .errors import QueryError


class Kind(Enum):
    IDENT = "identifier"
    STRING = "string"
    NUMBER = "number"
    OP = "operator"
    PIPE = "|"
    LPAREN = "("
    RPAREN = ")"
    LBRACKET = "["
    RBRACKET = "]"
    COMMA = ","
    DOT = "."
    SEMICOLON = ";"
    END = "end of query"


@dataclass(frozen=True)
class Token:
    kind: Kind
    text: str  # identifier / operator text, or the decoded value of a string literal
    start: int
    end: int  # exclusive; adjacency (end == next.start) lets the parser join `mv-expand`

    def describe(self) -> str:
        return self.kind.value if self.kind is Kind.END else repr(self.text)


# Longest first, so `!~` wins over `!` and `==` over `=`.
_OPERATORS = ("==", "=~", "!=", "!~", "<=", ">=", "<", ">", "=", "!", "~", "-", "+", "*", "/", "%")
_SINGLE = {
    "|": Kind.PIPE,
    "(": Kind.LPAREN,
    ")": Kind.RPAREN,
    "[": Kind.LBRACKET,
    "]": Kind.RBRACKET,
    ",": Kind.COMMA,
    ".": Kind.DOT,
    ";": Kind.SEMICOLON,
}
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "'": "'", '"': '"'}


def tokenize(text: str) -> list[Token]:
    tokens: list[Token] = []
    pos = 0
    while pos < len(text):
        char = text[pos]
        if char.isspace():
            pos += 1
        elif text.startswith("//", pos):  # KQL line comment
            newline = text.find("\n", pos)
            pos = len(text) if newline < 0 else newline + 1
        elif char in "'\"" or (char == "@" and text[pos + 1 : pos + 2] in ("'", '"')):
            token = _read_string(text, pos)
            tokens.append(token)
            pos = token.end
        elif char.isdigit():
            end = pos
            while end < len(text) and (text[end].isdigit() or text[end] == "."):
                end += 1
            tokens.append(Token(Kind.NUMBER, text[pos:end], pos, end))
            pos = end
        elif char.isalpha() or char == "_" or (char == "$" and text[pos + 1 : pos + 2].isalpha()):
            end = pos + 1  # `$left` / `$right` in a join's `on` clause are identifiers too
            while end < len(text) and (text[end].isalnum() or text[end] == "_"):
                end += 1
            tokens.append(Token(Kind.IDENT, text[pos:end], pos, end))
            pos = end
        elif char in _SINGLE:
            tokens.append(Token(_SINGLE[char], char, pos, pos + 1))
            pos += 1
        else:
            operator = next((op for op in _OPERATORS if text.startswith(op, pos)), None)
            if operator is None:
                raise QueryError(f"unexpected character {char!r} at position {pos}")
            tokens.append(Token(Kind.OP, operator, pos, pos + len(operator)))
            pos += len(operator)
    tokens.append(Token(Kind.END, "", len(text), len(text)))
    return tokens


def _read_string(text: str, start: int) -> Token:
    verbatim = text[start] == "@"  # @'...' takes backslashes literally
    quote_at = start + 1 if verbatim else start
    quote = text[quote_at]
    pos = quote_at + 1
    chars: list[str] = []
    while pos < len(text):
        char = text[pos]
        if char == quote:
            return Token(Kind.STRING, "".join(chars), start, pos + 1)
        if char == "\\" and not verbatim:
            escaped = text[pos + 1 : pos + 2]
            if escaped not in _ESCAPES:
                raise QueryError(f"invalid escape sequence in string literal at position {pos}")
            chars.append(_ESCAPES[escaped])
            pos += 2
            continue
        chars.append(char)
        pos += 1
    raise QueryError(f"unterminated string literal starting at position {start}")

"""The shell blocks of the README and the docs/ pages, so tests run their commands exactly as written (they cannot
drift apart)."""

import re
import shlex
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
_BLOCK = re.compile(r"(?:<!-- e2e: (?P<marker>[\w-]+)[^>]*-->\n)?```sh\n(?P<body>.*?)```", re.DOTALL)


def sh_blocks() -> list[tuple[str, str]]:
    """(marker, body) for every ```sh block of the README and every marked one of a docs/ page; the README's
    unmarked first block is the "make" block."""
    found = [(m.group("marker") or "", m.group("body")) for m in _BLOCK.finditer(README.read_text())]
    if found and not found[0][0]:
        found[0] = ("make", found[0][1])
    for page in sorted(DOCS.glob("*.md")):
        found += [(m.group("marker"), m.group("body")) for m in _BLOCK.finditer(page.read_text()) if m.group("marker")]
    return found


def commands(marker: str) -> list[list[str]]:
    """The commands of the block with this marker, continuation lines joined, comments dropped."""
    bodies = [body for name, body in sh_blocks() if name == marker]
    assert len(bodies) == 1, f"README and docs/ have {len(bodies)} blocks marked {marker!r}"
    joined = bodies[0].replace("\\\n", " ")
    lines = [line for line in joined.splitlines() if line.strip() and not line.startswith("#")]
    return [shlex.split(line, comments=True) for line in lines]


def paragraph(opening: str) -> str:
    """The README paragraph that starts with `opening`, its lines joined by spaces."""
    text = README.read_text()
    start = text.index(opening)
    end = text.find("\n\n", start)
    return " ".join(text[start : end if end >= 0 else len(text)].split())


def code_spans(text: str) -> list[str]:
    """Every `code` span of the text, in order."""
    return re.findall(r"`([^`]+)`", text)

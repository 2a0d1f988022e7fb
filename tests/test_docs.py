"""The docs stay true to the code: every `code` name a docs/ page quotes exists; the architecture pages' public
Temporal API, activities, error types and search attributes are exactly the code's, and docs/architecture.md's
index names every module; the README's guarantees name tests that exist, the README links every docs/ page (the
overview every architecture page), whose links resolve; and no line of a page is wider than 120 characters."""

import importlib
import re
from functools import cache
from pathlib import Path

import pytest
from temporalio.workflow import _Definition

from models.activity_io import ActivityName
from models.errors import ErrorType
from models.search_attributes import ALL_KEYS
from workers.settings import Settings
from workflows.machine.workflow import MachineLifecycle
from workflows.pool.workflow import MachinePool

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
OVERVIEW = DOCS / "architecture.md"
ARCHITECTURE = DOCS / "architecture"
PAGES = sorted([*DOCS.glob("*.md"), *ARCHITECTURE.glob("*.md")])
# Every page a reader of the repository meets, for the line width.
READ_PAGES = [ROOT / "README.md", ROOT / "emulator" / "README.md", *PAGES]
WIDTH = 120
# Pages whose tables are looked up row by row, wider than a line; any other line of theirs keeps the width.
WIDE_TABLES = {
    "docs/performance.md": "the table `python -m bench.report --markdown` prints",
    "docs/configuration.md": "every setting and duration, one row each",
    "docs/operating.md": "every `azmc` command, one row each",
    "docs/vm-features.md": "each spec field and the Azure field it sets",
    "docs/health.md": "the health signals",
    "docs/production.md": "versions and sizing",
    "docs/testing.md": "the tiers",
    "emulator/README.md": "the emulator's Resource Health and capacity tables, its guest faults",
}
# The modules docs/architecture.md's index names; the emulator's are in emulator/README.md.
INDEXED = ("models", "workflows", "activities", "codec", "workers", "cli")
SOURCES = ("models", "workflows", "activities", "workers", "cli", "emulator", "bench", "tests")
_SPAN = re.compile(r"`([^`]+)`")  # inline code may wrap a line
_FENCED = re.compile(r"^```.*?^```", flags=re.DOTALL | re.MULTILINE)
_DOTTED = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")
_TOKEN = re.compile(r"[\w.-]+")
_PATH_ENDINGS = (".py", ".md", ".json", ".yml", ".yaml", ".toml", ".svg")
_ENV = re.compile(r"AZMC_[A-Z0-9_]+")
_FLAG = re.compile(r"--[a-z][a-z0-9-]*")
_WORD = re.compile(r"[\w-]+")
_LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


@cache
def _corpus() -> str:
    """Every Python source of the repo (but this file, which names wrong things on purpose), lower-cased."""
    files = [p for package in SOURCES for p in (ROOT / package).rglob("*.py") if p != Path(__file__).resolve()]
    return "\n".join(p.read_text(encoding="utf-8") for p in files).lower()


@cache
def _words() -> frozenset[str]:
    """Every maximal run of word characters and dashes in the corpus: a token of those alone is in the code exactly
    when it is one of them (a set lookup instead of a scan of the corpus per token, most of this file's CPU)."""
    return frozenset(_WORD.findall(_corpus()))


@cache  # a scan of the whole corpus; the pages name many of the same things
def _in_code(token: str) -> bool:
    if _WORD.fullmatch(token.lower()):
        return token.lower() in _words()
    return re.search(rf"(?<![\w-]){re.escape(token.lower())}(?![\w-])", _corpus()) is not None


def _dotted_problem(name: str) -> str | None:
    """A module path (`models.errors.ErrorType`) must import and resolve; any other dotted name
    (`AzureCalls.settle`, `workflow.now`) must have every part in the code."""
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            target = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attribute in parts[cut:]:
            if not hasattr(target, attribute):
                return f"`{name}`: {'.'.join(parts[:cut])} has no {attribute}"
            target = getattr(target, attribute)
        return None
    missing = [part for part in parts if not _in_code(part)]
    return f"`{name}`: {', '.join(missing)} not found in the code" if missing else None


def span_problem(span: str) -> str | None:
    """Why a `code` span of the doc names nothing real, or None (free text such as `<vm>-nic` is not checked)."""
    text = span
    if _ENV.fullmatch(text):  # a setting's variable is its field's name, or a variable the code reads itself
        known = text.removeprefix("AZMC_").lower() in Settings.model_fields or _in_code(text)
        return None if known else f"`{text}`: no such setting"
    if _FLAG.fullmatch(text):  # typer makes `--orphan-grace` of a parameter `orphan_grace`
        known = _in_code(text) or _in_code(text[2:].replace("-", "_"))
        return None if known else f"`{text}`: no such flag"
    if _is_path(text):
        return None if (ROOT / text.rstrip("/")).exists() else f"`{text}`: no such file or folder"
    name = re.sub(r"\(.*\)$", "", text)  # `workflow.patched(...)` names workflow.patched
    if _DOTTED.fullmatch(name):
        return _dotted_problem(name)
    if _TOKEN.fullmatch(text):
        return None if _in_code(text) else f"`{text}`: not found in the code"
    return None


def _is_path(text: str) -> bool:
    """A repository path: it ends like a file, or starts with one of the repository's own top-level folders
    (`azmc-demo/vm1`, a workflow id, does not)."""
    if not re.fullmatch(r"\w[\w./-]*", text):  # not a /url
        return False
    return text.endswith(_PATH_ENDINGS) or ("/" in text and (ROOT / text.split("/")[0]).is_dir())


def doc_problems(markdown: str) -> list[str]:
    return [problem for span in sorted(spans(markdown)) if (problem := span_problem(span))]


def section(markdown: str, title: str) -> str:
    start = markdown.index(f"## {title}")
    end = markdown.find("\n## ", start + 1)
    return markdown[start:end if end > 0 else None]


def spans(markdown: str) -> set[str]:
    """The inline code of `markdown`, outside fenced blocks."""
    return {" ".join(span.split()) for span in _SPAN.findall(_FENCED.sub("", markdown))}


def page(name: str) -> str:
    return (ARCHITECTURE / name).read_text(encoding="utf-8")


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_every_quoted_name_exists(page: Path) -> None:
    assert doc_problems(page.read_text(encoding="utf-8")) == []


def test_the_checker_catches_wrong_names() -> None:
    """Not vacuous: a renamed module, attribute, file or identifier is reported."""
    wrong = ("`models.errors.NoSuchType` `workflows/no_such_flow.py` `activities/gone/` "
             "`no_such_helper_anywhere` `AzureCalls.no_such_method` `azmc-no-such-tag` `AZMC_NO_SUCH_SETTING` "
             "`--no-such-flag` `docs/no-such-chart.svg`")
    assert len(doc_problems(wrong)) == 9
    assert doc_problems("`models.errors.ErrorType` `workflows/machine/saga.py` `AzureCalls.settle` `azmc-owner` "
                        "`AZMC_ORPHAN_GRACE` `AZMC_TEMPORAL_TLS` `--orphan-grace` `azmc-demo/vm1`") == []


def test_the_flows_have_one_mermaid_diagram() -> None:
    blocks = re.findall(r"```mermaid\n(.*?)```", page("machine.md"), flags=re.DOTALL)
    assert len(blocks) == 1 and blocks[0].startswith("flowchart")
    for phase in ("Pending", "Creating", "Running", "Unknown", "CrashLoopBackOff", "Failed", "Terminating",
                  "Deleted"):
        assert phase in blocks[0], phase


def listed(markdown: str, kind: str) -> set[str]:
    """The names of a page's list items such as "- signal `delete`: ..." (or "- update `pause` / update `resume`")."""
    return set(re.findall(rf"^- {kind} `([^`]+)`", markdown, flags=re.MULTILINE)) | \
        set(re.findall(rf"/ {kind} `([^`]+)`", markdown))


def test_public_api_lists_every_signal_query_and_update_and_nothing_else() -> None:
    definition = _Definition.from_class(MachineLifecycle)
    assert definition is not None
    api = page("api.md")
    for kind, names in (("signal", set(definition.signals) - {None}), ("query", set(definition.queries)),
                        ("update", set(definition.updates))):
        assert listed(api, kind) == names, (kind, listed(api, kind), names)
    assert {span for span in spans(api) if re.fullmatch(r"Azmc[A-Z]\w+", span)} == {key.name for key in ALL_KEYS}


def test_pool_api_lists_every_signal_query_and_update_and_nothing_else() -> None:
    definition = _Definition.from_class(MachinePool)
    assert definition is not None
    api = page("pools.md")
    for kind, names in (("signal", set(definition.signals) - {None}), ("query", set(definition.queries)),
                        ("update", set(definition.updates))):
        assert listed(api, kind) == names, (kind, listed(api, kind), names)


def test_every_activity_is_listed() -> None:
    assert {name.value for name in ActivityName} <= spans(page("api.md"))


def test_the_error_list_is_the_error_taxonomy() -> None:
    rows = re.findall(r"^- `(\w+)` \(", section(page("activities.md"), "Errors"), flags=re.MULTILINE)
    assert sorted(rows) == sorted(kind.value for kind in ErrorType)


def unindexed(overview: str, root: Path = ROOT) -> list[str]:
    """The modules of INDEXED that the overview's index does not name (a package's `__init__` needs no entry)."""
    return [str(path.relative_to(root)) for package in INDEXED for path in sorted((root / package).rglob("*.py"))
            if path.name != "__init__.py" and f"`{path.relative_to(root)}`" not in overview]


def test_the_index_names_every_module() -> None:
    assert unindexed(OVERVIEW.read_text(encoding="utf-8")) == []


def test_the_index_check_sees_a_module_left_out(tmp_path: Path) -> None:
    (tmp_path / "models").mkdir()
    for name in ("__init__.py", "spec.py", "status.py"):
        (tmp_path / "models" / name).write_text("")
    assert unindexed("- models: `models/spec.py`", tmp_path) == ["models/status.py"]


def _relative(page: Path) -> str:
    return str(page.relative_to(ROOT))


def too_wide(markdown: str, tables_may_be: bool = False) -> list[int]:
    """The numbers of the lines wider than WIDTH, but in fenced blocks (commands run as written) and, where
    `tables_may_be`, table rows."""
    wide, fenced = [], False
    for number, line in enumerate(markdown.splitlines(), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced and len(line) > WIDTH and not (tables_may_be and line.lstrip().startswith("|")):
            wide.append(number)
    return wide


@pytest.mark.parametrize("page", READ_PAGES, ids=_relative)
def test_no_line_is_wider_than_120(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    assert too_wide(text, tables_may_be=_relative(page) in WIDE_TABLES) == []


def test_the_wide_tables_are_still_wide() -> None:
    """A page listed in WIDE_TABLES whose tables fit leaves the list, so the exception only shrinks."""
    assert sorted(name for name in WIDE_TABLES if not too_wide((ROOT / name).read_text(encoding="utf-8"))) == []



def test_the_width_check_sees_a_wide_line() -> None:
    assert too_wide("short\n" + "x" * 121 + "\n```sh\n" + "y" * 200 + "\n```\n| " + "z" * 130) == [2, 6]
    assert too_wide("| " + "z" * 130, tables_may_be=True) == []


def test_every_readme_guarantee_names_tests_that_exist() -> None:
    guarantees = section((ROOT / "README.md").read_text(encoding="utf-8"), "Guarantees\n")
    promises = re.split(r"^- ", guarantees, flags=re.MULTILINE)[1:]
    assert len(promises) >= 7
    for promise in promises:
        proof = promise.split("Proof:", 1)[1] if "Proof:" in promise else ""
        cited = [span for span in spans(proof) if span.startswith("tests/")]
        assert cited, f"a guarantee without a test: {promise[:80]!r}"
        for path in cited:
            assert (ROOT / path).is_file() and Path(path).name.startswith("test_"), path


def links(markdown: str) -> list[str]:
    """The relative targets of the Markdown links and images of a page (no web address), anchors dropped."""
    prose = _SPAN.sub("", _FENCED.sub("", markdown))
    return [target for target in _LINK.findall(prose) if "://" not in target]


def test_the_readme_links_every_docs_page_and_the_overview_every_architecture_page() -> None:
    linked = {(ROOT / target).resolve() for target in links((ROOT / "README.md").read_text(encoding="utf-8"))}
    linked |= {(DOCS / target).resolve() for target in links(OVERVIEW.read_text(encoding="utf-8"))}
    assert [str(page.relative_to(DOCS)) for page in PAGES if page.resolve() not in linked] == []


@pytest.mark.parametrize("page", [ROOT / "README.md", *PAGES], ids=lambda page: page.name)
def test_links_resolve(page: Path) -> None:
    broken = [target for target in links(page.read_text(encoding="utf-8")) if not (page.parent / target).exists()]
    assert broken == []


def test_the_link_checker_sees_links_and_images() -> None:
    assert links("[a](docs/a.md#x) ![b](b.svg) [web](https://temporal.io) `[c](d)`") == ["docs/a.md", "b.svg"]

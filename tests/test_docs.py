"""The docs stay true to the code: every `code` name a docs/ page quotes exists; docs/architecture.md's public
Temporal API, activities, error types and search attributes are exactly the code's; the README's guarantees
name tests that exist, and the README links every docs/ page, whose links resolve."""

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
DOC = DOCS / "architecture.md"
PAGES = sorted(DOCS.glob("*.md"))
SOURCES = ("models", "workflows", "activities", "workers", "cli", "emulator", "bench", "tests")
_SPAN = re.compile(r"`([^`]+)`")  # inline code may wrap a line
_FENCED = re.compile(r"^```.*?^```", flags=re.DOTALL | re.MULTILINE)
_DOTTED = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")
_TOKEN = re.compile(r"[\w.-]+")
_PATH_ENDINGS = (".py", ".md", ".json", ".yml", ".yaml", ".toml", ".svg")
_ENV = re.compile(r"AZMC_[A-Z0-9_]+")
_FLAG = re.compile(r"--[a-z][a-z0-9-]*")
_LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


@cache
def _corpus() -> str:
    """Every Python source of the repo (but this file, which names wrong things on purpose), lower-cased."""
    files = [p for package in SOURCES for p in (ROOT / package).rglob("*.py") if p != Path(__file__).resolve()]
    return "\n".join(p.read_text(encoding="utf-8") for p in files).lower()


def _in_code(token: str) -> bool:
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


@pytest.fixture(scope="module")
def doc() -> str:
    return DOC.read_text(encoding="utf-8")


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


def test_the_flows_have_one_mermaid_diagram(doc: str) -> None:
    blocks = re.findall(r"```mermaid\n(.*?)```", doc, flags=re.DOTALL)
    assert len(blocks) == 1 and blocks[0].startswith("flowchart")
    for phase in ("Pending", "Creating", "Running", "Unknown", "CrashLoopBackOff", "Failed", "Terminating",
                  "Deleted"):
        assert phase in blocks[0], phase


def test_public_api_lists_every_signal_query_and_update_and_nothing_else(doc: str) -> None:
    definition = _Definition.from_class(MachineLifecycle)
    assert definition is not None
    api = section(doc, "The public Temporal API")
    for kind, names in (("signal", set(definition.signals) - {None}), ("query", set(definition.queries)),
                        ("update", set(definition.updates))):
        documented = set(re.findall(rf"\| {kind} `([^`]+)`", api))
        assert documented == names, (kind, documented, names)
    assert {key.name for key in ALL_KEYS} <= spans(api)
    assert {span for span in spans(doc) if re.fullmatch(r"Azmc[A-Z]\w+", span)} == {key.name for key in ALL_KEYS}


def test_pool_api_lists_every_signal_query_and_update_and_nothing_else(doc: str) -> None:
    definition = _Definition.from_class(MachinePool)
    assert definition is not None
    api = section(doc, "Pools")
    for kind, names in (("signal", set(definition.signals) - {None}), ("query", set(definition.queries)),
                        ("update", set(definition.updates))):
        documented = set(re.findall(rf"\| {kind} `([^`]+)`", api)) | set(re.findall(rf"/ {kind} `([^`]+)`", api))
        assert documented == names, (kind, documented, names)


def test_every_activity_is_listed(doc: str) -> None:
    assert {name.value for name in ActivityName} <= spans(section(doc, "The public Temporal API"))


def test_the_error_table_is_the_error_taxonomy(doc: str) -> None:
    rows = re.findall(r"^\| `(\w+)` \|", section(doc, "Errors"), flags=re.MULTILINE)
    assert sorted(rows) == sorted(kind.value for kind in ErrorType)


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


def test_the_readme_links_every_docs_page() -> None:
    linked = {(ROOT / target).resolve() for target in links((ROOT / "README.md").read_text(encoding="utf-8"))}
    assert [page.name for page in PAGES if page.resolve() not in linked] == []


@pytest.mark.parametrize("page", [ROOT / "README.md", *PAGES], ids=lambda page: page.name)
def test_links_resolve(page: Path) -> None:
    broken = [target for target in links(page.read_text(encoding="utf-8")) if not (page.parent / target).exists()]
    assert broken == []


def test_the_link_checker_sees_links_and_images() -> None:
    assert links("[a](docs/a.md#x) ![b](b.svg) [web](https://temporal.io) `[c](d)`") == ["docs/a.md", "b.svg"]

"""The Temporal UI of `azmc dev` in a real browser (headless Chromium, Debian's `chromium` and
`chromium-driver`): the workflow list filtered by `AzmcPhase`, then a machine's page, whose input and
current details are decoded through the codec server `azmc dev` points the UI at (the browser calls it
across origins: CORS). Screenshots go to test-artifacts/.

The browser is a system package this test never installs: without it the test says so and how to get it
(`apt-get install -y chromium chromium-driver`; selenium comes with `make install`)."""

import os
import shutil
import subprocess
import sys
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.stack import ROOT, azmc_dev, wait_until

CHROMIUM, CHROMEDRIVER = shutil.which("chromium"), shutil.which("chromedriver")
ARTIFACTS = ROOT / "test-artifacts"
# `make test` installs the browser wherever it may (root with apt: the Makefile's `browser` target), so there a
# missing browser is a failure. Only where nothing may install it (no root, or no apt) does the test not run,
# and it says how to make it run.
CAN_INSTALL_BROWSER = os.geteuid() == 0 and shutil.which("apt-get") is not None
pytestmark = pytest.mark.skipif(
    not (CHROMIUM and CHROMEDRIVER) and not CAN_INSTALL_BROWSER,
    reason="this machine cannot install a browser for the test (it needs root and apt): install Debian's chromium "
           "and chromium-driver (`sudo apt-get install -y chromium chromium-driver`), then run this test",
)


@pytest.fixture
def dev_stack(tmp_path: Path) -> Iterator[dict[str, int]]:
    with azmc_dev(tmp_path) as dev:
        done = subprocess.run([sys.executable, "-m", "cli", "apply", "-f", "examples/machine.yaml", "--wait"],
                              cwd=ROOT, env=dev.env(), capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        yield dev.ports


def _browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    missing = "chromium or chromedriver is missing, though this machine may install them: run `make browser`"
    assert CHROMIUM and CHROMEDRIVER, missing
    options = Options()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1600,1200"):
        options.add_argument(argument)
    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)


def _text_within(browser, what: str, timeout_s: float = 30) -> str:
    """The page's text, frames included (the UI renders current details in a sandboxed iframe)."""
    from selenium.webdriver.common.by import By

    found = ""

    def has_it() -> bool:
        nonlocal found
        parts = [browser.find_element(By.TAG_NAME, "body").text]
        for frame in browser.find_elements(By.TAG_NAME, "iframe"):
            browser.switch_to.frame(frame)
            parts.append(browser.find_element(By.TAG_NAME, "body").text)
            browser.switch_to.default_content()
        found = "\n".join(parts)
        return what in found

    wait_until(has_it, timeout_s, f"{what!r} on {browser.current_url}", interval_s=0.5)
    return found


def _filtered(base: str, phase: str) -> str:
    return f"{base}?query={urllib.parse.quote(f'AzmcPhase = {chr(34)}{phase}{chr(34)}')}"


def test_ui_filters_by_phase_and_shows_decoded_input_and_current_details(dev_stack: dict[str, int]) -> None:
    from selenium.webdriver.common.by import By

    ARTIFACTS.mkdir(exist_ok=True)
    base = f"http://localhost:{dev_stack['--ui-port']}/namespaces/default/workflows"
    browser = _browser()
    try:
        browser.get(_filtered(base, "Deleted"))
        listed = _text_within(browser, "No Workflows", 30)
        assert "machine/azmc-demo/vm2" not in listed
        browser.get(_filtered(base, "Running"))
        _text_within(browser, "machine/azmc-demo/vm2")
        browser.save_screenshot(str(ARTIFACTS / "ui-list-running.png"))
        link = next(a for a in browser.find_elements(By.TAG_NAME, "a")
                    if "machine%2Fazmc-demo%2Fvm2" in (a.get_attribute("href") or ""))
        link.click()
        # The input is decoded by the codec server: the spec's fields in plain JSON.
        page = _text_within(browser, '"vm_sizes": [')
        assert '"resource_group": "azmc-demo"' in page and '"Standard_D4s_v5"' in page
        browser.save_screenshot(str(ARTIFACTS / "ui-machine-input.png"))
        next(a for a in browser.find_elements(By.TAG_NAME, "a") if a.text.strip() == "User Metadata").click()
        details = _text_within(browser, "vm2 - Running")
        assert "Last operation: Create Successful" in details and "NICs: vm2-nic" in details
        assert "Machine vm2: Standard_D4s_v5 in azmc-demo (westeurope), pool workers" in details  # the summary
        browser.save_screenshot(str(ARTIFACTS / "ui-machine-current-details.png"))
    finally:
        browser.quit()

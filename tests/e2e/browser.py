"""Headless Chromium driven by Selenium through Debian's chromedriver, with
the team's browser flags and a fresh profile; the console's messages are
kept so a test can assert that no script or policy error was logged."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1280,1500",
]


def _find(*names: str) -> str:
    for name in names:
        found = shutil.which(name) or (
            f"/usr/bin/{name}" if os.path.exists(f"/usr/bin/{name}") else None
        )
        if found:
            return found
    raise RuntimeError(f"{names[0]} is missing: make deps-browser")


@contextmanager
def chromium(profile: Path) -> Iterator[webdriver.Chrome]:
    os.environ["SE_OFFLINE"] = "true"  # Selenium Manager must not look for downloads
    options = Options()
    options.binary_location = _find("chromium", "chromium-browser")
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(
        service=Service(executable_path=_find("chromedriver")), options=options
    )
    try:
        driver.set_page_load_timeout(90)
        driver.set_script_timeout(60)
        yield driver
    finally:
        driver.quit()


def severe(driver: webdriver.Chrome) -> list[str]:
    """The console's errors since the last call (scripts, CSP violations)."""
    return [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]

"""Headless Chromium for the end-to-end tests and the session benchmark.

Debian's /usr/bin/chromium and /usr/bin/chromedriver, with the driver path
given explicitly so Selenium Manager never tries to download anything, and
a fresh profile directory per browser so parallel runs never share state.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from waiting import wait_until

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
WAIT = 30.0


def chromium(profile: Path, width: int = 1400, height: int = 1000) -> webdriver.Chrome:
    """A headless Chromium using the fresh profile directory ``profile`` (a tmp_path: cleaned up for us)."""
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage", f"--user-data-dir={profile}", f"--window-size={width},{height}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})  # the page's console, for driver.get_log("browser")
    return webdriver.Chrome(options=options, service=Service(executable_path=CHROMEDRIVER))


def as_phone(driver: webdriver.Chrome, width: int = 375, height: int = 800) -> None:
    """Show the pages as a phone of ``width`` CSS pixels does (a window cannot be made that narrow)."""
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": True})


def uncaught_errors(driver: webdriver.Chrome) -> list[dict]:
    """The page's console errors since the last call: its scripts' (the browser's own note of an
    answer's HTTP status, source "network", is not the page's error)."""
    return [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE" and entry.get("source") != "network"]


def wait_for(condition: Callable[[], Any], timeout: float = WAIT, what: str = "condition") -> Any:
    """Poll ``condition`` until it returns something true (returned); fail naming ``what`` after ``timeout`` s."""
    value = wait_until(condition, timeout, 0.05)
    if not value:
        raise AssertionError(f"timed out waiting for {what}")
    return value

"""The long view in a real browser (headless Chromium): the interval maxima
drawn over days, downsampled on the server, finer when zoomed, a point
leading to its interval's page, and the span's histogram on a log count
axis; the console stays free of errors (no script failed, no rule of the
content-security policy was broken)."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

from browser import chromium, severe
from interval_payloads import interval
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support import expected_conditions as ec
from selenium.webdriver.support.ui import WebDriverWait
from server_proc import running_server
from test_server_browser import point_offset

from rtgauge.store import open_store

T0 = datetime(2026, 9, 1)
DAYS = 12  # 3,456 five-minute intervals: more than the 2,000 points a series is cut to
SPIKE = 1000  # the interval of a 250 µs maximum


def fill(store: str) -> None:
    ivs = [
        interval(
            T0 + timedelta(minutes=5 * i),
            250_000 if i == SPIKE else 15_000 + (i % 50) * 100,
            count=1000,
            tail=2,
        )
        for i in range(DAYS * 288)
    ]
    with open_store(store) as s:
        s.intervals.add("line-3", "line-3-controller", ivs, "test")


def drawn(driver: WebDriver) -> int:
    count: int = driver.execute_script(
        "const gd = document.getElementById('long-max');"
        "return gd && gd.data ? gd.data.reduce((n, t) => n + t.x.length, 0) : 0;"
    )
    return count


def test_long_view_in_chromium(tmp_path: Path) -> None:
    store = str(tmp_path / "store")
    fill(store)
    with running_server(store) as server, chromium(tmp_path / "profile") as driver:
        driver.get(server.url + "/")
        link = WebDriverWait(driver, 60).until(
            ec.element_to_be_clickable((By.CSS_SELECTOR, "#monitored a.rtg-long"))
        )
        link.click()
        WebDriverWait(driver, 60).until(lambda d: drawn(d) > 0)
        assert 1000 < drawn(driver) <= 2000  # cut on the server
        assert (
            driver.execute_script(
                "return document.getElementById('long-max')._fullLayout.xaxis.type"
            )
            == "date"
        )
        top = driver.execute_script(
            "const t = document.getElementById('long-max').data[0];"
            "const i = t.y.indexOf(Math.max(...t.y)); return [t.y[i], t.customdata[i]];"
        )
        assert top[0] == 250.0  # the spike survives the cut, with its interval
        hist = driver.execute_script(
            "const gd = document.getElementById('long-hist');"
            "return [gd._fullLayout.yaxis.type, gd.data[0].y.reduce((a, b) => a + b, 0)];"
        )
        assert hist == ["log", DAYS * 288 * 2 * 1000]

        # Zoom to one day: that day's intervals, every one of them.
        driver.execute_script(
            "Plotly.relayout('long-max', {'xaxis.range[0]': '2026-09-04 00:00:00',"
            " 'xaxis.range[1]': '2026-09-05 00:00:00'});"
        )
        WebDriverWait(driver, 60).until(lambda d: drawn(d) == 288)
        hist = driver.execute_script(
            "return document.getElementById('long-hist').data[0].y.reduce((a, b) => a + b, 0);"
        )
        assert hist == 288 * 2 * 1000  # the histogram follows the span shown
        assert severe(driver) == []

        # Back to the whole span, then a click on the spike opens its interval.
        driver.execute_script("Plotly.relayout('long-max', {'xaxis.autorange': true});")
        WebDriverWait(driver, 60).until(lambda d: drawn(d) > 1000)
        index = driver.execute_script(
            "const t = document.getElementById('long-max').data[0]; return t.y.indexOf(Math.max(...t.y));"
        )
        x, y = point_offset(driver, "long-max", 0, index)
        plot = driver.find_element(By.ID, "long-max")
        ActionChains(driver).move_to_element_with_offset(plot, x, y).click().perform()
        WebDriverWait(driver, 60).until(ec.url_contains(f"/intervals/{top[1]}"))
        text = driver.find_element(By.TAG_NAME, "body").text
        assert "250.00 µs in timer.wakeup.cpu1" in text and "stress-ng-cpu/4242" in text
        assert severe(driver) == []

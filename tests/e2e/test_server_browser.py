"""The dashboard in a real browser (headless Chromium, driven by Selenium):
filter the runs, open one and explore its latency over time, compare two,
open a history, zoom its chart, hover a run and follow it. Assertions are on
what the page shows; the console must stay free of errors (no script
failed, no content-security rule was broken)."""

from __future__ import annotations

import copy
import json
import os
import shutil
from pathlib import Path
from typing import Any

from browser import chromium, severe
from bundle_bytes import bundle_bytes
from history_bundles import body, make
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support import expected_conditions as ec
from selenium.webdriver.support.select import Select
from selenium.webdriver.support.ui import WebDriverWait
from server_proc import running_server

from rtgauge.store import open_store

HOSTILE_LABEL = "<b>bold</b>"


def _series_run(records: list[dict[str, Any]]) -> bytes:
    """board-b's newest run, whose TMR-P-LAT recorded its latency over time."""
    recs = copy.deepcopy(records)
    for r in recs:
        if r.get("id") == "TMR-P-LAT":
            r["series"] = [
                {
                    "name": "timer.wakeup.max",
                    "unit": "ns",
                    "window_ms": 100,
                    "points": [
                        [t * 100, 15000 + (t % 7) * 2500 + (40000 if t == 13 else 0)]
                        for t in range(30)
                    ],
                    "phases": [
                        {"name": "idle", "start_ms": 0, "end_ms": 1500},
                        {"name": "fork load", "start_ms": 1500, "end_ms": 3000},
                    ],
                }
            ]
    return bundle_bytes(
        recs, host="board-b", label="vanilla-6.12", when="2026-11-06T00:00:00+00:00"
    )


def fill(store: str, records: list[dict[str, Any]]) -> None:
    with open_store(store) as s:
        for day, above in ((1, 5), (2, 6), (3, 5), (4, 400)):  # the 4th regressed
            b = make(records, f"2026-11-0{day}T00:00:00+00:00", body(5000, above), label="rt-6.12")
            b.system["host"]["hostname"] = "board-a"
            s.add(json.dumps(b.to_json()).encode())
        s.add(
            bundle_bytes(
                records, host="board-b", label="vanilla-6.12", when="2026-11-05T00:00:00+00:00"
            )
        )
        s.add(_series_run(records))
        s.add(
            bundle_bytes(
                records, host="board-c", label=HOSTILE_LABEL, when="2026-11-07T00:00:00+00:00"
            )
        )


def rows(driver: WebDriver) -> list[WebElement]:
    return driver.find_elements(By.CSS_SELECTOR, "#runs tbody tr")


def wait(driver: WebDriver, css: str) -> WebElement:
    return WebDriverWait(driver, 60).until(ec.presence_of_element_located((By.CSS_SELECTOR, css)))


def point_offset(driver: WebDriver, plot_id: str, trace: int, index: int) -> tuple[int, int]:
    """Where a chart draws one point, from the element's centre (Selenium's origin)."""
    x, y, w, h = driver.execute_script(
        """const gd = document.getElementById(arguments[0]);
        const xa = gd._fullLayout.xaxis, ya = gd._fullLayout.yaxis;
        const d = gd._fullData[arguments[1]];
        const px = xa._offset + xa.d2p(d.x[arguments[2]]);
        const py = ya._offset + ya.d2p(d.y[arguments[2]]);
        const r = gd.getBoundingClientRect();
        return [px, py, r.width, r.height];""",
        plot_id,
        trace,
        index,
    )
    return round(x - w / 2), round(y - h / 2)


def shoot(driver: WebDriver, tmp: Path, name: str) -> None:
    """A screenshot in the test's folder, and in $RTGAUGE_SCREENSHOTS when set."""
    path = tmp / f"{name}.png"
    driver.save_screenshot(str(path))
    assert path.stat().st_size > 10_000
    keep = os.environ.get("RTGAUGE_SCREENSHOTS")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(keep) / path.name)


def test_dashboard_in_chromium(
    pg_store: str, sample_records: list[dict[str, Any]], tmp_path: Path
) -> None:
    fill(pg_store, sample_records)
    with running_server(pg_store) as server, chromium(tmp_path / "profile") as driver:
        # The runs, newest first; markup in a label stays text.
        driver.get(server.url + "/")
        wait(driver, "#runs")
        assert len(rows(driver)) == 7 and driver.find_element(By.ID, "run-count").text == "7 runs"
        assert HOSTILE_LABEL in driver.find_element(By.ID, "runs").text
        assert driver.find_elements(By.CSS_SELECTOR, "#runs b") == []
        shoot(driver, tmp_path, "runs")

        # Filter: one host.
        Select(driver.find_element(By.ID, "f-host")).select_by_visible_text("board-b")
        driver.find_element(By.ID, "apply-filters").click()
        WebDriverWait(driver, 60).until(ec.url_contains("host=board-b"))
        hosts = [r.find_element(By.CLASS_NAME, "rtg-host").text for r in rows(driver)]
        assert hosts == ["board-b", "board-b"]
        assert driver.find_element(By.ID, "run-count").text == "2 runs"

        # Open the newest: its report, and its latency over time to explore.
        rows(driver)[0].find_element(By.CLASS_NAME, "rtg-open").click()
        wait(driver, "#series-charts .js-plotly-plot")
        text = driver.find_element(By.TAG_NAME, "body").text
        assert "rtgauge: board-b — 6.18.44-fc-v657" in text
        for section in (
            "System and how it was measured",
            "Behaviour verdicts",
            "Latency over time",
        ):
            assert section in text
        dx, dy = point_offset(driver, "series-0", 0, 13)
        ActionChains(driver).move_to_element_with_offset(
            driver.find_element(By.ID, "series-0"), dx, dy
        ).perform()
        hover = wait(driver, "#series-0 .hoverlayer .hovertext")
        assert "1.300 s" in hover.text and "µs" in hover.text  # the sample under the pointer
        shoot(driver, tmp_path, "run")

        # Compare two runs picked in the table.
        driver.get(server.url + "/")
        wait(driver, "#runs")
        compare = driver.find_element(By.ID, "compare")
        assert not compare.is_enabled()
        boxes = driver.find_elements(By.CSS_SELECTOR, "#runs input[name=run]")
        boxes[1].click()
        boxes[2].click()
        assert compare.is_enabled()
        compare.click()
        wait(driver, "#compare-bar")
        text = driver.find_element(By.TAG_NAME, "body").text
        assert "Ratings" in text and "Figures side by side" in text
        assert text.count("run 6 (board-b") == 1 and "run 5 (board-b" in text
        shoot(driver, tmp_path, "compare")

        # A history: from a label in the table, with its heat map and regression.
        driver.get(server.url + "/")
        driver.find_element(By.LINK_TEXT, "rt-6.12").click()
        wait(driver, "#history-charts .js-plotly-plot")
        text = driver.find_element(By.TAG_NAME, "body").text
        assert "rtgauge history" in text and "history of label rt-6.12: 4 runs" in text
        assert "REGRESSION" in text and "Regressions" in text
        assert len(driver.find_elements(By.CSS_SELECTOR, "figure.chart svg .regression")) == 1
        links = driver.find_elements(By.CSS_SELECTOR, ".rtg-history-runs a")
        assert [a.text for a in links] == ["run 1", "run 2", "run 3", "run 4"]
        plot = driver.find_element(
            By.CSS_SELECTOR, '#history-charts [data-test="TMR-P-LAT"]'
        ).get_attribute("id")
        assert plot and "TMR-P-LAT" in driver.find_element(By.ID, plot).text
        before = driver.execute_script(
            f"return document.getElementById('{plot}')._fullLayout.xaxis.range.slice()"
        )
        x0, y0 = point_offset(driver, plot, 0, 0)
        x1, _ = point_offset(driver, plot, 0, 2)
        chart = driver.find_element(By.ID, plot)
        ActionChains(driver).move_to_element_with_offset(
            chart, x0 + 5, y0 + 30
        ).click_and_hold().move_by_offset(x1 - x0 - 10, 20).release().perform()
        WebDriverWait(driver, 30).until(
            lambda d: (
                d.execute_script(
                    f"return document.getElementById('{plot}')._fullLayout.xaxis.range.slice()"
                )
                != before
            )
        )  # zoomed in
        driver.execute_script(
            f"Plotly.relayout('{plot}', {{'xaxis.autorange': true, 'yaxis.autorange': true}})"
        )
        x, y = point_offset(driver, plot, 0, 3)
        ActionChains(driver).move_to_element_with_offset(chart, x, y).perform()
        hover = wait(driver, f"#{plot} .hoverlayer .hovertext")
        assert "run 4" in hover.text and "max" in hover.text
        shoot(driver, tmp_path, "history")
        ActionChains(driver).move_to_element_with_offset(chart, x, y).click().perform()
        WebDriverWait(driver, 60).until(ec.url_contains("/runs/4"))
        wait(driver, "#run-bar")
        assert severe(driver) == []

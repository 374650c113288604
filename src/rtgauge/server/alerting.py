"""The alert rules applied to intervals as they are stored: each rule of the
interval's label judges it (alert_state.py), its incident is opened, kept or
cleared in the store, and a webhook is told once when an incident fires and
once when it clears."""

from __future__ import annotations

import json
import threading
from datetime import datetime, timedelta
from typing import Any

from rtgauge.server.alert_rules import LabelRules
from rtgauge.server.alert_state import step, tail_worse
from rtgauge.server.long_view import MergedHistogram
from rtgauge.server.webhook import Webhooks
from rtgauge.store import ResultStore
from rtgauge.store.index_row import now_utc
from rtgauge.store.intervals_table import counted, stamp, utc

Record = dict[str, Any]


class Alerts:
    def __init__(
        self, rules: dict[str, LabelRules], store: ResultStore, webhooks: Webhooks
    ) -> None:
        self.rules = rules
        self.store = store
        self.webhooks = webhooks
        self._lock = threading.Lock()  # one batch judged at a time: incidents in order
        self._references: dict[
            tuple[str, str | None, str, datetime, timedelta], MergedHistogram
        ] = {}

    def judge(self, host: str, label: str | None, stored: list[tuple[int, Record]]) -> None:
        """The newly stored intervals (id, as pushed), oldest first."""
        rules = self.rules.get(label or "")
        if rules is None or not stored:
            return
        with self._lock:
            for interval_id, iv in sorted(stored, key=lambda s: str(s[1]["start"])):
                for kind in rules.kinds():
                    self._one(rules, kind, host, label, interval_id, iv)

    def _one(
        self,
        rules: LabelRules,
        kind: str,
        host: str,
        label: str | None,
        interval_id: int,
        iv: Record,
    ) -> None:
        verdict = self._verdict(rules, kind, host, label, iv)
        bad = verdict is not None
        incident = self.store.incidents.open_one(kind, host, label, iv["test"])
        state = None if incident is None else incident.clean
        new, event = step(state, bad, rules.clear_after)
        if event == "fired":
            assert verdict is not None
            detail = self._payload("fired", kind, host, label, interval_id, iv, verdict)
            detail["incident"] = self.store.incidents.fire(
                kind,
                host,
                label,
                iv["test"],
                interval_id,
                utc(iv["start"]),
                float(verdict["value"]),
                detail,
            )
            self._send(rules, detail)
        elif incident is not None:
            cleared = now_utc() if event == "cleared" else None
            self.store.incidents.note(incident.id, new or 0, interval_id, cleared)
            if event == "cleared":
                detail = self._payload(
                    "cleared", kind, host, label, interval_id, iv, {"value": None}
                )
                detail["incident"] = incident.id
                detail["fired_interval"] = incident.fired_interval
                self._send(rules, detail)

    def _verdict(
        self, rules: LabelRules, kind: str, host: str, label: str | None, iv: Record
    ) -> Record | None:
        """What makes the interval bad under the rule, or None when it is not."""
        if kind == "max_above":
            assert rules.max_above_ns is not None
            maxima = [f["max"] for f in iv["figures"] if f["max"] is not None]
            worst = max(maxima, default=None)
            if worst is None or worst <= rules.max_above_ns:
                return None
            return {"value": worst, "unit": "ns", "limit": rules.max_above_ns}
        tail = rules.tail_worse
        assert tail is not None
        start = utc(iv["start"])
        reference = self._reference(host, label, iv["test"], start, tail.reference)
        now = MergedHistogram()
        for f, kept in zip(iv["figures"], counted(iv["figures"]), strict=True):
            if kept:
                now.add(f["hist"])
        got = tail_worse(reference, now, tail.q, tail.p)
        if got is None or not got.worse:
            return None
        return {
            "value": got.above / got.count,
            "unit": f"share of samples at or above the reference's {tail.quantile}",
            "limit": got.reference_above / got.reference_count,
            "threshold_ns": got.threshold_ns,
            "above": got.above,
            "count": got.count,
            "p_value": got.p_value,
            "method": "one-sided Fisher exact test, interval against reference period",
        }

    def _reference(
        self, host: str, label: str | None, test: str, start: datetime, length: timedelta
    ) -> MergedHistogram:
        """The reference period's histograms merged: the `length` before the
        interval's start, to the hour (kept for that hour: an interval a
        minute later compares with the same reference)."""
        until = start.replace(minute=0, second=0, microsecond=0)
        key = (host, label, test, until, length)
        found = self._references.get(key)
        if found is None:
            found = self.store.intervals.span_histogram(host, label, test, until - length, until)
            if len(self._references) > 256:
                self._references.clear()
            self._references[key] = found
        return found

    def _payload(
        self,
        event: str,
        kind: str,
        host: str,
        label: str | None,
        interval_id: int,
        iv: Record,
        verdict: Record,
    ) -> Record:
        worst = iv.get("worst") or {}
        return {
            "event": event,
            "rule": kind,
            "host": host,
            "label": label,
            "test": iv["test"],
            "interval": {
                "id": interval_id,
                "start": iv["start"],
                "end": iv["end"],
                "url": f"/intervals/{interval_id}",
            },
            **verdict,
            "culprit": worst.get("culprit"),
            "summary": worst.get("summary"),
            "window": worst.get("window"),
            "sent_at": stamp(now_utc()),
        }

    def _send(self, rules: LabelRules, payload: Record) -> None:
        if rules.webhook is not None:
            self.webhooks.send(rules.webhook, json.loads(json.dumps(payload)))

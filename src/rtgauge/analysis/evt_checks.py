"""What extreme value theory assumes of a latency sequence, tested on the
per-block maxima in time order: stationarity (KPSS), independence (Ljung-Box)
and identical distribution (the two halves compared with Kolmogorov-Smirnov).

Each test rejects at ALPHA. The three together reject truly i.i.d. data about
3 % of the time: a rejection withholds an estimate, it never makes one up.

statsmodels and scipy are loaded by the checks themselves: a report without a
deadline, which runs none, does not pay for them.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rtgauge.analysis.tail_data import Floats

ALPHA = 0.01
MIN_BLOCKS = 20  # fewer maxima than this and the tests say nothing


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool | None  # None: not run (too few blocks, nothing recorded)
    p_value: float | None
    words: str

    def to_json(self) -> dict[str, object]:
        return {"name": self.name, "ok": self.ok, "p_value": self.p_value, "words": self.words}


def _stationarity(x: Floats) -> Check:
    from statsmodels.tsa.stattools import kpss

    with warnings.catch_warnings():
        # KPSS p-values come from a table spanning 0.01..0.1; outside it the
        # bound is returned with a warning, which is what we want to use.
        warnings.simplefilter("ignore")
        stat, p, *_ = kpss(x, regression="c", nlags="auto")
    p = float(p)
    ok = bool(p > ALPHA)
    words = f"KPSS on {len(x)} block maxima: statistic {stat:.3g}, p {p:.3g}" + (
        "" if ok else ": the level drifts (a trend or a change)"
    )
    return Check("stationarity (KPSS)", ok, float(p), words)


def _independence(x: Floats) -> Check:
    from statsmodels.stats.diagnostic import acorr_ljungbox

    lags = max(1, min(10, len(x) // 5))
    res = acorr_ljungbox(x, lags=[lags])
    p = float(res["lb_pvalue"].iloc[0])
    ok = bool(p > ALPHA)
    words = f"Ljung-Box on {len(x)} block maxima, {lags} lags: p {p:.3g}" + (
        "" if ok else ": successive maxima are correlated"
    )
    return Check("independence (Ljung-Box)", ok, p, words)


def _identical(x: Floats) -> Check:
    from scipy.stats import ks_2samp

    half = len(x) // 2
    res = ks_2samp(x[:half], x[half:])
    p = float(res.pvalue)
    ok = bool(p > ALPHA)
    words = f"Kolmogorov-Smirnov, first half against second half of the block maxima: p {p:.3g}" + (
        "" if ok else ": the two halves differ"
    )
    return Check("identical distribution (KS, two halves)", ok, p, words)


def check_assumptions(maxima: Floats | None) -> list[Check]:
    """The three checks, or why they could not be run."""
    names = (
        "stationarity (KPSS)",
        "independence (Ljung-Box)",
        "identical distribution (KS, two halves)",
    )
    if maxima is None:
        why = "not tested: this record has no block maxima (the order of samples is unknown)"
        return [Check(n, None, None, why) for n in names]
    if len(maxima) < MIN_BLOCKS:
        why = f"not tested: {len(maxima)} full blocks, the tests need at least {MIN_BLOCKS}"
        return [Check(n, None, None, why) for n in names]
    if float(maxima.max() - maxima.min()) == 0.0:
        why = "not tested: every block maximum is the same value"
        return [Check(n, None, None, why) for n in names]
    return [_stationarity(maxima), _independence(maxima), _identical(maxima)]

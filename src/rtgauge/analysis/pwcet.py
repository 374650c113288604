"""A probabilistic worst case (pWCET) from extreme value theory, as
measurement-based timing analysis does: a generalized Pareto distribution
fitted to the latencies above a threshold (peaks over threshold), after the
checks of what the theory assumes (evt_checks.py).

Threshold rule: the lowest histogram bucket edge with at least K samples at
or above it, K = 2 % of the samples, at least 50 and at most 1000. The fit is
scipy's maximum-likelihood genpareto on the histogram's tail (values binned
to ≤ 0.78 % of their size, spread evenly inside their bucket). The interval
is a parametric bootstrap: refits of samples drawn from the fitted tail, the
number above the threshold drawn binomially too; the refits are made all at
once (gpd_refit.py), each as scipy's Nelder-Mead would make it.

numpy and scipy are loaded by estimate(), not by importing the module: the
report's renderers import its types and constants.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rtgauge.analysis.evt_checks import Check, check_assumptions
from rtgauge.analysis.gpd_refit import refit
from rtgauge.analysis.requirements import misses, quantile
from rtgauge.analysis.tail_data import empirical_exceedance, full_maxima, tail_values
from rtgauge.model import Blocks, Metric

if TYPE_CHECKING:
    from rtgauge.analysis.tail_data import Floats

PROBABILITIES = (1e-6, 1e-9)
MIN_SAMPLES = 1000
SHARE, MIN_K, MAX_K = 0.02, 50, 1000
BOOTSTRAP = 100  # refits: the band's ends are known to a few percent
SEED = 20261123  # fixed: the same bundle gives the same interval
CURVE_LOW = 1e-12

ESTIMATED = "estimated"
UNTESTED = "estimated, assumptions not tested"
NOT_APPLICABLE = "not applicable"


@dataclass(frozen=True)
class Interval:
    estimate: float
    low: float | None
    high: float | None

    def to_json(self) -> dict[str, float | None]:
        return {"estimate": self.estimate, "low": self.low, "high": self.high}


@dataclass(frozen=True)
class Pwcet:
    test: str
    metric: str
    status: str  # ESTIMATED, UNTESTED or NOT_APPLICABLE
    reason: str  # why not applicable, or what the estimate rests on
    confidence: float
    checks: list[Check]
    empirical: list[tuple[float, float]]  # (latency, P(X ≥ latency)) measured
    deadline_ns: float | None = None
    threshold_ns: float | None = None
    exceedances: int = 0
    samples: int = 0
    shape: Interval | None = None
    scale_ns: float | None = None
    at: dict[float, Interval] = field(default_factory=dict)  # latency at a probability
    deadline_probability: Interval | None = None
    endpoint_ns: float | None = None  # the fitted tail's upper end (shape < 0)
    curve: list[tuple[float, float, float | None, float | None]] = field(default_factory=list)
    caveats: list[str] = field(default_factory=list)

    @property
    def heavy(self) -> bool:
        return self.shape is not None and self.shape.estimate > 0

    def to_json(self) -> dict[str, Any]:
        return {
            "test": self.test,
            "metric": self.metric,
            "status": self.status,
            "reason": self.reason,
            "confidence": self.confidence,
            "checks": [c.to_json() for c in self.checks],
            "threshold_ns": self.threshold_ns,
            "threshold_rule": THRESHOLD_RULE,
            "exceedances": self.exceedances,
            "samples": self.samples,
            "shape": self.shape.to_json() if self.shape else None,
            "scale_ns": self.scale_ns,
            "heavy_tail": self.heavy,
            "upper_endpoint_ns": self.endpoint_ns,
            "latency_at_probability": {f"{p:g}": i.to_json() for p, i in self.at.items()},
            "deadline_ns": self.deadline_ns,
            "deadline_exceedance_probability": (
                self.deadline_probability.to_json() if self.deadline_probability else None
            ),
            "caveats": self.caveats,
        }


THRESHOLD_RULE = (
    f"lowest bucket edge with at least {SHARE:.0%} of the samples at or above it "
    f"(at least {MIN_K}, at most {MAX_K} exceedances)"
)


def _fit(y: Floats) -> tuple[float, float] | None:
    """Maximum-likelihood (shape, scale) of a generalized Pareto with location 0."""
    import numpy as np
    from scipy.stats import genpareto

    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            c, _, s = genpareto.fit(y, floc=0)
        except (ValueError, RuntimeError, OverflowError):
            return None
        return float(c), float(s)


def _latency(
    u: float, zeta: Floats | float, c: Floats | float, s: Floats | float, p: Floats
) -> Floats:
    """The latency exceeded with probability p (p below zeta, the threshold's);
    one row per (zeta, c, s) when they are arrays of the bootstrap's refits."""
    import numpy as np
    from scipy.stats import genpareto

    with np.errstate(all="ignore"):
        return np.asarray(u + genpareto.isf(p / zeta, c, scale=s), dtype=float)


def _probability(
    u: float, zeta: Floats | float, c: Floats | float, s: Floats | float, x: float
) -> Floats:
    import numpy as np
    from scipy.stats import genpareto

    return np.asarray(zeta * genpareto.sf(x - u, c, scale=s), dtype=float)


def not_applicable(
    test: str, metric: Metric, why: str, confidence: float, checks: list[Check]
) -> Pwcet:
    return Pwcet(
        test, metric.name, NOT_APPLICABLE, why, confidence, checks, empirical_exceedance(metric)
    )


def estimate(
    test: str,
    metric: Metric,
    deadline_ns: float | None = None,
    confidence: float = 0.95,
    bootstrap: int | None = None,
) -> Pwcet:
    """The pWCET of one latency figure, or why there is none."""
    import numpy as np
    from scipy.stats import genpareto

    if bootstrap is None:
        bootstrap = BOOTSTRAP
    blocks = metric.blocks
    checks = check_assumptions(full_maxima(blocks) if blocks else None)
    failed = [c for c in checks if c.ok is False]
    n = metric.count
    if failed:
        why = "because " + "; ".join(c.words for c in failed)
        return not_applicable(test, metric, why, confidence, checks)
    if n < MIN_SAMPLES:
        why = f"because {n} samples are too few for a tail fit (it needs {MIN_SAMPLES})"
        return not_applicable(test, metric, why, confidence, checks)
    k = min(MAX_K, max(MIN_K, math.ceil(SHARE * n)))
    u, values, n_in = tail_values(metric, k)
    y = values - u
    fitted = _fit(y) if len(y) >= MIN_K and float(np.ptp(y)) > 0 else None
    if fitted is None:
        why = "because the tail above the threshold could not be fitted (too few distinct values)"
        return not_applicable(test, metric, why, confidence, checks)
    c, s = fitted
    zeta = len(y) / n_in
    probs = [p for p in PROBABILITIES]
    curve_p = np.logspace(math.log10(zeta), math.log10(CURVE_LOW), 56)
    grid = np.concatenate([probs, curve_p])
    # The resamples are drawn one after the other from one seeded stream (the
    # same draws as ever), then refitted together.
    rng = np.random.default_rng(SEED)
    draws: list[Floats] = []
    for _ in range(bootstrap):
        k_b = int(rng.binomial(n_in, zeta))
        if k_b >= 10:
            draws.append(genpareto.rvs(c, scale=s, size=k_b, random_state=rng))
    shapes, scales = refit(draws, (c, s))
    fitted_b = np.isfinite(shapes)  # a refit that failed is left out, as ever
    z_b = np.array([len(d) for d in draws], dtype=float)[fitted_b] / n_in
    reps_c, s_b = shapes[fitted_b], scales[fitted_b]
    reps_x = _latency(u, z_b[:, None], reps_c[:, None], s_b[:, None], grid[None, :])
    reps_d = (
        _probability(u, z_b, reps_c, s_b, deadline_ns)
        if deadline_ns is not None and deadline_ns > u
        else np.zeros(0)
    )
    lo_q, hi_q = (1 - confidence) / 2 * 100, (1 + confidence) / 2 * 100
    enough = len(reps_c) >= bootstrap // 2 and bootstrap > 0
    x_hat = _latency(u, zeta, c, s, grid)
    band_lo = band_hi = None
    if enough:
        band_lo = np.nanpercentile(reps_x, lo_q, axis=0)
        band_hi = np.nanpercentile(reps_x, hi_q, axis=0)

    def interval(i: int) -> Interval:
        if band_lo is None or band_hi is None:
            return Interval(float(x_hat[i]), None, None)
        return Interval(float(x_hat[i]), float(band_lo[i]), float(band_hi[i]))

    at: dict[float, Interval] = {}
    for i, p in enumerate(probs):
        if p >= zeta:  # within the measured range: no extrapolation
            q = quantile(metric, 1 - p)
            at[p] = Interval(float(q if q is not None else math.nan), None, None)
        else:
            at[p] = interval(i)
    curve: list[tuple[float, float, float | None, float | None]] = []
    for j, p in enumerate(curve_p):
        at_j = len(probs) + j
        if band_lo is not None and band_hi is not None:
            lo_j, hi_j = float(band_lo[at_j]), float(band_hi[at_j])
            curve.append((float(p), float(x_hat[at_j]), lo_j, hi_j))
        else:
            curve.append((float(p), float(x_hat[at_j]), None, None))
    shape = Interval(
        c,
        float(np.percentile(reps_c, lo_q)) if enough else None,
        float(np.percentile(reps_c, hi_q)) if enough else None,
    )
    dl_prob, caveats = None, _caveats(checks, blocks, c, shape, metric)
    if deadline_ns is not None:
        if deadline_ns > u:
            d_hat = float(_probability(u, zeta, c, s, deadline_ns))
            d_lo = float(np.percentile(reps_d, lo_q)) if len(reps_d) > 10 else None
            d_hi = float(np.percentile(reps_d, hi_q)) if len(reps_d) > 10 else None
            dl_prob = Interval(d_hat, d_lo, d_hi)
        else:
            _, possible = misses(metric, deadline_ns)
            dl_prob = Interval(possible / n, None, None)
            caveats.append(
                "the deadline lies below the fit's threshold: its exceedance probability "
                "is the measured share, not an extrapolation"
            )
    tested = all(ch.ok for ch in checks)
    return Pwcet(
        test=test,
        metric=metric.name,
        status=ESTIMATED if tested else UNTESTED,
        reason=(
            "stationarity, independence and identical distribution not rejected"
            if tested
            else "the checks of what EVT assumes could not be run: " + checks[0].words
        ),
        confidence=confidence,
        checks=checks,
        empirical=empirical_exceedance(metric),
        deadline_ns=deadline_ns,
        threshold_ns=u,
        exceedances=len(y),
        samples=n_in,
        shape=shape,
        scale_ns=s,
        at=at,
        deadline_probability=dl_prob,
        endpoint_ns=(u - s / c) if c < 0 else None,
        curve=curve,
        caveats=caveats,
    )


def _caveats(
    checks: list[Check], blocks: Blocks | None, c: float, shape: Interval, metric: Metric
) -> list[Any]:
    out = [
        "fitted on the histogram's tail: values are known to within their bucket "
        "(≤ 0.78 % wide) and spread evenly inside it"
    ]
    if c > 0:
        out.append(
            f"heavy tail (fitted shape {c:.3g} > 0): no finite bound exists; the latencies "
            "at 1e-6 and 1e-9 extrapolate a heavy tail and are estimates, not bounds"
        )
    elif shape.high is not None and shape.high > 0:
        out.append(
            f"the shape's interval reaches {shape.high:.3g} > 0: a heavy tail is not excluded, "
            "so the upper end of the fitted tail is not a safe bound"
        )
    if metric.hist.overflow:
        out.append(f"{metric.hist.overflow} samples overflowed the histogram: not in the fit")
    if blocks is None or any(ch.ok is None for ch in checks):
        out.append(
            "stationarity and independence were not tested: the estimate assumes them "
            "and is only as good as that assumption"
        )
    out.append(
        "an EVT estimate extrapolates what was measured under these conditions; it promises "
        "nothing about events the run did not exercise (other loads, other code paths)"
    )
    return out

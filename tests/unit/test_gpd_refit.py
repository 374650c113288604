"""The bootstrap's refits made together are the refits scipy makes one at a time."""

from __future__ import annotations

import math

import numpy as np
from scipy import optimize
from scipy.stats import genpareto

from rtgauge.analysis.gpd_refit import nll, refit


def one_at_a_time(y: np.ndarray, start: tuple[float, float]) -> tuple[float, float] | None:
    """The refit pwcet.py made before, resample by resample."""
    res = optimize.minimize(
        lambda p: genpareto.nnlf((p[0], 0.0, math.exp(p[1])), y),
        [start[0], math.log(start[1])],
        method="Nelder-Mead",
        options={"xatol": 1e-3, "fatol": 1e-3},
    )
    if not res.success or not np.all(np.isfinite(res.x)):
        return None
    return float(res.x[0]), math.exp(float(res.x[1]))


def resamples(shape: float, scale: float, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    sizes = rng.binomial(1000, 0.5, size=30)  # rows of different lengths: padded
    return [genpareto.rvs(shape, scale=scale, size=int(k), random_state=rng) for k in sizes]


def test_the_refits_are_scipys_for_heavy_light_and_bounded_tails() -> None:
    for shape, scale, seed in ((0.25, 5000.0, 1), (0.02, 800.0, 2), (-0.3, 2000.0, 3)):
        samples = resamples(shape, scale, seed)
        shapes, scales = refit(samples, (shape, scale))
        assert shapes.shape == scales.shape == (len(samples),)
        for y, c, s in zip(samples, shapes, scales, strict=True):
            alone = one_at_a_time(y, (shape, scale))
            assert alone is not None
            assert math.isclose(c, alone[0], rel_tol=1e-9, abs_tol=1e-12), (shape, c, alone)
            assert math.isclose(s, alone[1], rel_tol=1e-9), (shape, s, alone)


def test_the_likelihood_is_scipys_inside_and_outside_the_support() -> None:
    y = genpareto.rvs(0.1, scale=100.0, size=200, random_state=np.random.default_rng(4))
    padded = np.zeros((1, 260))
    padded[0, :200] = y
    k = np.array([200.0])
    top = float(y.max())
    for c, scale in ((0.1, 100.0), (0.0, 90.0), (-0.2, 150.0), (-0.5, top / 3), (math.inf, 1.0)):
        got = float(nll(np.array([[c, math.log(scale)]]), padded, k)[0])
        want = float(genpareto.nnlf((c, 0.0, scale), y))
        if math.isinf(want):
            assert got == want, (c, scale)  # beyond the support: inf, as scipy says
        else:
            assert math.isclose(got, want, rel_tol=1e-12), (c, scale, got, want)


def test_no_resample_no_refit() -> None:
    shapes, scales = refit([], (0.1, 100.0))
    assert shapes.size == 0 and scales.size == 0

"""The parametric bootstrap's refits of a generalized Pareto tail (location 0),
every resample at once (pwcet.py).

Each resample's fit is the one pwcet.py made one resample at a time before:
scipy's Nelder-Mead (its coefficients, starting simplex, xatol and fatol of
1e-3, its limits of 200 iterations and evaluations per parameter) on scipy's
negative log-likelihood of genpareto, over (shape, log scale), started at
the point estimate. Here the resamples are the rows of one array, padded
with zeros (an excess of zero adds nothing to the likelihood's sums), and
every row still moving takes its simplex step together: a bootstrap is some
hundred numpy operations on the whole array rather than thousands of scipy
calls on one resample. Which step a row takes (reflect, expand, contract,
shrink) is decided per row by scipy's own rules, so a row follows the path
scipy's minimize would; the sums' order differs, so the last digits may.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, TypeAlias

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Floats: TypeAlias = npt.NDArray[np.float64]
    Ints: TypeAlias = npt.NDArray[np.int64]

XATOL = FATOL = 1e-3
MAX_STEPS = 400  # scipy's default limit on iterations and on evaluations (200 per parameter)
RHO, CHI, PSI, SIGMA = 1.0, 2.0, 0.5, 0.5  # reflection, expansion, contraction, shrink
NONZDELT, ZDELT = 0.05, 0.00025  # scipy's starting simplex around x0


def nll(p: Floats, y: Floats, k: Floats) -> Floats:
    """scipy's genpareto.nnlf((shape, 0, exp(log scale)), sample) of each row:
    p holds rows of (shape, log scale), y the samples padded with zeros, k
    their sizes. inf where the parameters are invalid or a value lies beyond
    the support, as scipy has it."""
    import numpy as np
    from scipy.special import xlog1py

    c = p[:, 0]
    scale = np.exp(p[:, 1])
    with np.errstate(all="ignore"):
        x = y / scale[:, None]
        nonzero = c != 0
        cc = np.where(nonzero, c, 1.0)[:, None]
        logpdf = np.where(nonzero[:, None], -xlog1py(cc + 1.0, cc * x) / cc, -x)
        upper = np.where(c < 0, -1.0 / np.where(c < 0, c, -1.0), np.inf)
        inside = ((x >= 0) & (x <= upper[:, None])).all(axis=1)
        value = -logpdf.sum(axis=1) + k * np.log(scale)
    valid = np.isfinite(c) & (scale > 0) & inside
    return np.where(valid, value, np.inf)


def refit(samples: list[Floats], start: tuple[float, float]) -> tuple[Floats, Floats]:
    """(shapes, scales) of the samples' maximum-likelihood fits, started at
    start = (shape, scale); NaN where a fit did not converge within scipy's
    limits or ended on a value that is not finite."""
    import numpy as np

    m = len(samples)
    if m == 0:
        return np.zeros(0), np.zeros(0)
    k = np.array([len(s) for s in samples], dtype=float)
    y = np.zeros((m, int(k.max())))
    for i, s in enumerate(samples):
        y[i, : len(s)] = s

    x0 = np.array([start[0], math.log(start[1])])
    simplex = np.empty((3, 2))
    simplex[0] = x0
    for j in range(2):
        point = x0.copy()
        point[j] = (1 + NONZDELT) * point[j] if point[j] != 0 else ZDELT
        simplex[j + 1] = point
    sim = np.repeat(simplex[None], m, axis=0)  # (rows, vertex, parameter)
    fsim = np.stack([nll(sim[:, j], y, k) for j in range(3)], axis=1)
    sim, fsim = _sorted(sim, fsim)
    calls = np.full(m, 3)
    steps = np.ones(m, dtype=np.int64)
    moving = np.ones(m, dtype=bool)
    converged = np.zeros(m, dtype=bool)
    while True:
        moving &= (calls < MAX_STEPS) & (steps < MAX_STEPS)
        with np.errstate(invalid="ignore"):  # inf - inf: not converged, as in scipy
            small = (np.abs(sim[:, 1:] - sim[:, :1]).max(axis=(1, 2)) <= XATOL) & (
                np.abs(fsim[:, :1] - fsim[:, 1:]).max(axis=1) <= FATOL
            )
        converged |= moving & small
        moving &= ~small
        rows = np.flatnonzero(moving)
        if rows.size == 0:
            break
        sim[rows], fsim[rows] = _step(sim[rows], fsim[rows], y[rows], k[rows], calls, rows)
        steps[rows] += 1
    best = sim[:, 0]
    shapes, scales = best[:, 0].copy(), np.exp(best[:, 1])
    bad = ~converged | ~np.isfinite(shapes) | ~np.isfinite(best[:, 1])
    shapes[bad] = np.nan
    scales[bad] = np.nan
    return shapes, scales


def _step(
    sim: Floats, fsim: Floats, y: Floats, k: Floats, calls: Ints, rows: Ints
) -> tuple[Floats, Floats]:
    """One Nelder-Mead iteration of every row, scipy's branches taken per row."""
    import numpy as np

    xbar = (sim[:, 0] + sim[:, 1]) / 2
    worst = sim[:, 2]
    xr = (1 + RHO) * xbar - RHO * worst
    fxr = nll(xr, y, k)
    calls[rows] += 1
    expand = fxr < fsim[:, 0]
    reflect = ~expand & (fxr < fsim[:, 1])
    outside = ~expand & ~reflect & (fxr < fsim[:, 2])
    inside = ~expand & ~reflect & ~outside
    x2 = np.where(
        expand[:, None],
        (1 + RHO * CHI) * xbar - RHO * CHI * worst,
        np.where(
            outside[:, None],
            (1 + PSI * RHO) * xbar - PSI * RHO * worst,
            (1 - PSI) * xbar + PSI * worst,
        ),
    )
    second = ~reflect
    f2 = np.full(len(fxr), np.inf)
    f2[second] = nll(x2[second], y[second], k[second])
    calls[rows[second]] += 1
    take2 = (expand & (f2 < fxr)) | (outside & (f2 <= fxr)) | (inside & (f2 < fsim[:, 2]))
    shrink = (outside | inside) & ~take2
    keep = ~shrink
    sim[keep, 2] = np.where(take2[keep, None], x2[keep], xr[keep])
    fsim[keep, 2] = np.where(take2[keep], f2[keep], fxr[keep])
    if shrink.any():
        for j in (1, 2):
            sim[shrink, j] = sim[shrink, 0] + SIGMA * (sim[shrink, j] - sim[shrink, 0])
            fsim[shrink, j] = nll(sim[shrink, j], y[shrink], k[shrink])
        calls[rows[shrink]] += 2
    return _sorted(sim, fsim)


def _sorted(sim: Floats, fsim: Floats) -> tuple[Floats, Floats]:
    """Each row's vertices, best first (scipy's argsort of the values)."""
    import numpy as np

    order = np.argsort(fsim, axis=1)
    return np.take_along_axis(sim, order[:, :, None], axis=1), np.take_along_axis(
        fsim, order, axis=1
    )

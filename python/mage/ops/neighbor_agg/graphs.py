"""Seeded CSR graphs for neighbor_agg: uniform, power-law, R-MAT (Graph500 parameters) and hub.

Every generator returns ``(rowptr, col)`` as CPU int64 tensors, with ``n + 1`` row offsets:
output row i aggregates ``x[col[rowptr[i]:rowptr[i + 1]]]``. Edges are directed (a row
gathers from its columns); self-loops and repeated edges are kept, so a repeated edge counts
twice in the sum and twice in the degree. Columns are sorted within each row (canonical CSR).

Randomness comes from ``numpy.random.default_rng(seed)`` (PCG64); every step is vectorized
over nodes or edges, and the only Python loops run over R-MAT's ``scale`` levels or a
scalar fixed point. The same seed gives the same graph with the same numpy.

Zero-degree rows, in every graph: the first row, the last row and ``max(1, n // 1024)``
interior rows drawn with the seed are empty. Uniform and R-MAT graphs drop those rows' edges;
the power-law graph gives them weight zero before its degrees are scaled, so it still has
its target edge count. Empty rows at both ends and in the middle catch kernels that assume
every row has work, or that treat only the last row specially.

- ``uniform(n, degree)``: every non-empty row has exactly ``degree`` columns, drawn uniformly
  with replacement from ``[0, n_src)``. Edges: ``degree · (n − empty rows)``.
- ``powerlaw(n, edges)``: node weights drawn from a Pareto distribution with density ∝ w^−2.1
  (exponent 2.1, as measured for many web and social graphs), truncated at an upper bound H,
  then scaled so the degrees sum to exactly ``edges``. H is chosen so that the largest possible
  degree equals ``max_degree``, which defaults to the structural cutoff √edges (4,096 for
  16 M edges): above it two hubs would expect to share more than one edge, so an uncorrelated
  graph without repeated edges could not hold them. Truncating the distribution (rather than
  clamping degrees) leaves no pile-up at the cap: at 1 M nodes and 16 M edges about 350 hubs
  have more than 2,048 neighbours, the largest close to 4,096, while the median row has five.
  Fractional degrees are rounded by largest remainder; columns are uniform over ``[0, n_src)``.
- ``rmat(scale, edge_factor)``: ``edge_factor · 2^scale`` edges on ``2^scale`` nodes. Each edge
  descends ``scale`` levels of the adjacency matrix, choosing a quadrant with probabilities
  a = 0.57, b = 0.19, c = 0.19, d = 0.05 (Graph500); the probabilities are applied to 16-bit
  uniform draws (thresholds rounded to 1/65536) without Graph500's optional noise. Vertex
  labels are then permuted with the seed, as Graph500 does, so hubs are not all near node 0.
  R-MAT leaves many nodes isolated on its own; the forced empty rows remove a few more edges.
- ``hub(n, edges, share)``: one seeded interior row holds ``round(share · edges)`` columns (10 %
  by default), the other edges go to the remaining non-empty rows uniformly at random (Poisson
  degrees). The hub is the scheduling stress: a row whose single owner would finish long after
  the rest of the grid, which only splitting it across programs can balance.

``degree_stats`` summarizes a graph's row degrees (max, mean, coefficient of variation, Gini),
the skew measures every neighbor_agg result is shown beside.
"""

from __future__ import annotations

import math

import numpy as np
import torch

from mage.errors import InputError

GRAPH500 = (0.57, 0.19, 0.19)  # a, b, c; d = 1 − a − b − c = 0.05
POWERLAW_EXPONENT = 2.1


def uniform(n: int, degree: int, seed: int, n_src: int | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    n_src = n if n_src is None else n_src
    _require_sizes(n, n_src)
    rng = np.random.default_rng(seed)
    empty = _empty_rows(n, rng)
    rows_with_edges = n - int(empty.sum())
    col = rng.integers(0, n_src, size=(rows_with_edges, degree), dtype=np.int64)
    col.sort(axis=1)
    counts = np.where(empty, 0, degree)
    return _tensors(_rowptr(counts), col.reshape(-1))


def powerlaw(
    n: int,
    edges: int,
    seed: int,
    exponent: float = POWERLAW_EXPONENT,
    max_degree: int | None = None,
    n_src: int | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    n_src = n if n_src is None else n_src
    _require_sizes(n, n_src)
    cap = math.isqrt(edges) if max_degree is None else max_degree
    rng = np.random.default_rng(seed)
    u = rng.random(n)
    empty = _empty_rows(n, rng)
    if edges > cap * (n - int(empty.sum())):
        raise InputError(f"powerlaw: {edges} edges do not fit in {n} rows of at most {cap} neighbours")
    degree = _truncated_pareto_degrees(u, ~empty, edges, cap, exponent - 1.0)
    rows = np.repeat(np.arange(n, dtype=np.int64), degree)
    col = rng.integers(0, n_src, size=edges, dtype=np.int64)
    return _csr(rows, col, n, n_src)


def rmat(
    scale: int, edge_factor: int, seed: int, abc: tuple[float, float, float] = GRAPH500
) -> tuple[torch.Tensor, torch.Tensor]:
    n = 1 << scale
    _require_sizes(n, n)
    edges = edge_factor * n
    rng = np.random.default_rng(seed)
    a, b, c = abc
    t1, t2, t3 = (round(p * 65536) for p in (a, a + b, a + b + c))
    dtype = np.int32 if scale < 31 else np.int64
    src = np.zeros(edges, dtype=dtype)
    dst = np.zeros(edges, dtype=dtype)
    for _level in range(scale):
        u = rng.integers(0, 65536, size=edges, dtype=np.uint16)
        lower = u >= t2  # quadrants c and d: the source bit is 1
        right = (u >= t1) ^ lower ^ (u >= t3)  # quadrants b and d: the destination bit is 1
        src <<= 1
        src |= lower
        dst <<= 1
        dst |= right
    perm = rng.permutation(n).astype(dtype)
    src, dst = perm[src], perm[dst]
    empty = _empty_rows(n, rng)
    keep = ~empty[src]
    return _csr(src[keep].astype(np.int64), dst[keep].astype(np.int64), n, n)


def hub(n: int, edges: int, seed: int, share: float = 0.1, n_src: int | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    n_src = n if n_src is None else n_src
    _require_sizes(n, n_src)
    if not 0.0 < share < 1.0:
        raise InputError(f"hub: the hub's share of the edges must lie in (0, 1), got {share}")
    rng = np.random.default_rng(seed)
    empty = _empty_rows(n, rng)
    others = np.flatnonzero(~empty)
    center = others[rng.integers(0, len(others))]
    others = others[others != center]
    hub_edges = round(share * edges)
    if len(others) == 0 and hub_edges < edges:
        raise InputError(f"hub: {n} rows leave no row besides the hub for {edges - hub_edges} edges")
    rows = np.concatenate([np.full(hub_edges, center, dtype=np.int64),
                           others[rng.integers(0, max(1, len(others)), size=edges - hub_edges)]])
    col = rng.integers(0, n_src, size=edges, dtype=np.int64)
    return _csr(rows, col, n, n_src)


def degree_stats(rowptr: torch.Tensor) -> dict:
    """Row-degree skew of a CSR graph: rows, edges, empty rows, max, mean, coefficient of variation
    (population std / mean) and Gini (0 when every row has one degree, → 1 when one row has all)."""
    degree = np.diff(rowptr.cpu().numpy()).astype(np.float64)
    rows, edges = len(degree), float(degree.sum())
    mean = edges / rows if rows else 0.0
    ranked = np.sort(degree)
    gini = (2.0 * float(np.dot(np.arange(1, rows + 1), ranked)) / (rows * edges) - (rows + 1) / rows) if edges else 0.0
    return {
        "rows": rows,
        "edges": int(edges),
        "empty_rows": int((degree == 0).sum()),
        "max_degree": int(ranked[-1]) if rows else 0,
        "mean_degree": mean,
        "cv": float(degree.std() / mean) if mean else 0.0,
        "gini": gini,
    }


def _require_sizes(n: int, n_src: int) -> None:
    if n < 4:
        raise InputError(f"a generated graph needs at least 4 rows (first, last and interior empty rows), got {n}")
    if n_src < 1:
        raise InputError(f"a generated graph needs at least 1 source row, got n_src={n_src}")


def _empty_rows(n: int, rng: np.random.Generator) -> np.ndarray:
    """Boolean mask of the rows forced to degree zero: first, last and a few seeded interior rows."""
    empty = np.zeros(n, dtype=bool)
    empty[[0, n - 1]] = True
    empty[1 + rng.choice(n - 2, size=max(1, n // 1024), replace=False)] = True
    return empty


def _truncated_pareto_degrees(u: np.ndarray, active: np.ndarray, total: int, cap: int, alpha: float) -> np.ndarray:
    """Integer degrees summing to ``total``, at most ``cap``, Pareto-distributed over ``active`` rows.

    Weights w = (1 − u·(1 − H^−alpha))^(−1/alpha) follow a Pareto law with P(W > w) ∝ w^−alpha
    truncated to [1, H]; degrees are s·w with s = total / Σw. The bound H solving s·H = cap is
    the fixed point of H ← cap·Σw(H) / total, which converges in a few steps (Σw saturates in
    H). Fractions go to the rows with the largest remainders, never to an empty row.
    """
    h = float(cap)
    for _step in range(100):
        weight = np.where(active, (1.0 - u * (1.0 - h**-alpha)) ** (-1.0 / alpha), 0.0)
        scale = total / weight.sum()
        if abs(cap / scale - h) <= 1e-9 * h:
            break
        h = cap / scale
    real = np.minimum(weight * scale, cap)
    degree = np.floor(real)
    remainder = real - degree
    short = min(int(round(total - degree.sum())), int((remainder > 0).sum()))
    if short > 0:
        degree[np.argpartition(-remainder, short - 1)[:short]] += 1
    return degree.astype(np.int64)


def _csr(rows: np.ndarray, col: np.ndarray, n: int, n_src: int) -> tuple[torch.Tensor, torch.Tensor]:
    """CSR from an edge list: one sort of the (row, col) key puts rows in order, columns within."""
    key = rows * n_src + col
    key.sort()
    rows, col = np.divmod(key, n_src)
    return _tensors(_rowptr(np.bincount(rows, minlength=n)), col)


def _rowptr(counts: np.ndarray) -> np.ndarray:
    rowptr = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=rowptr[1:])
    return rowptr


def _tensors(rowptr: np.ndarray, col: np.ndarray) -> tuple[torch.Tensor, torch.Tensor]:
    return torch.from_numpy(np.ascontiguousarray(rowptr, dtype=np.int64)), torch.from_numpy(
        np.ascontiguousarray(col, dtype=np.int64)
    )

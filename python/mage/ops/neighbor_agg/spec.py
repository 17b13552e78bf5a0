"""Neighbor aggregation over a CSR graph (the message-passing step of a graph network).

    rows of out: n = rowptr.numel() − 1;    x: n_src × F;    deg[i] = rowptr[i+1] − rowptr[i]
    sum:   out[i, f] = Σ_{e = rowptr[i]}^{rowptr[i+1] − 1} x[col[e], f]
    mean:  out[i, f] = sum[i, f] / deg[i]      (0 for a row with deg[i] = 0)

rowptr and col share one index dtype, int32 or int64; col indexes the rows of x, so n_src may
differ from n. Graphs come from graphs.py (uniform, power-law, R-MAT); each case's graph is
drawn once from the case's own seed and reused for every input seed, while x is fresh per
seed: a timing compares implementations on one fixed, documented graph, and accuracy checks
still see new values each time. Graphs are cached per process (a few of them, as the large
one takes about a second to build).

Heavy-tailed draw: x is Student-t, so a hub row sums thousands of values among which a few
dominate; an implementation that accumulates in a different order or precision shows its
rounding there, while zero-degree rows test the mean's division guard.

Compulsory bytes count each input once (x, rowptr, col) and the output once. The gather reads
x's rows deg-many times on average, but a cache may serve the repeats, so they are not
compulsory.
"""

from __future__ import annotations

import functools

import torch

from mage import registry
from mage.errors import InputError
from mage.ops.neighbor_agg import graphs
from mage.spec import (NONFINITE, Case, OpSpec, draw, drawn_index, generator, require_dtype, require_ndim, require_same_device,
                        require_tensor)

INDEX_DTYPES = {"int32": torch.int32, "int64": torch.int64}
# The float64 reference gathers edges in chunks so its temporary stays near 256 MiB.
REFERENCE_CHUNK_ELEMENTS = 1 << 25


@functools.lru_cache(maxsize=4)
def _graph(kind: str, nodes: int, size: int, seed: int, shape: float | None) -> tuple[torch.Tensor, torch.Tensor]:
    """CPU int64 (rowptr, col); ``size`` is the degree (uniform), edge count (powerlaw, hub) or edge factor
    (rmat); ``shape`` the power law's exponent or the hub's share of the edges (None: the generator's default)."""
    shaped = {} if shape is None else {GRAPH_SHAPE[kind]: shape}
    if kind == "uniform":
        return graphs.uniform(nodes, size, seed)
    if kind == "powerlaw":
        return graphs.powerlaw(nodes, size, seed, **shaped)
    if kind == "rmat":
        return graphs.rmat(nodes.bit_length() - 1, size, seed)
    if kind == "hub":
        return graphs.hub(nodes, size, seed, **shaped)
    raise InputError(f"unknown graph kind {kind!r}; known: uniform, powerlaw, rmat, hub")


@functools.lru_cache(maxsize=16)
def _graph_stats(*key) -> dict:
    return graphs.degree_stats(_graph(*key)[0])


def _graph_key(case: Case) -> tuple:
    p = case.params
    return p["graph"], p["nodes"], p[GRAPH_SIZE[p["graph"]]], case.seed, p.get(GRAPH_SHAPE.get(p["graph"], ""))


GRAPH_SIZE = {"uniform": "degree", "powerlaw": "edges", "rmat": "edge_factor", "hub": "edges"}
GRAPH_SHAPE = {"powerlaw": "exponent", "hub": "share"}
# The schedule study: each graph kind on 65,536 rows and 2^20 edges (mean degree 16, as the seed graph),
# from even degrees to one row holding a tenth of the edges, each at F 32, 128 and 512 (an x row of
# 128 B to 2 KiB; x itself 8 to 128 MiB, from inside the H200's L2 to twice its size).
SCHEDULE_GRAPHS = {
    "uniform": {"graph": "uniform", "nodes": 1 << 16, "degree": 16},
    "powerlaw2.1": {"graph": "powerlaw", "nodes": 1 << 16, "edges": 1 << 20, "exponent": 2.1},
    "powerlaw1.8": {"graph": "powerlaw", "nodes": 1 << 16, "edges": 1 << 20, "exponent": 1.8},
    "rmat": {"graph": "rmat", "nodes": 1 << 16, "scale": 16, "edge_factor": 16},
    "hub": {"graph": "hub", "nodes": 1 << 16, "edges": 1 << 20, "share": 0.1},
}
SCHEDULE_FEATURES = (32, 128, 512)
# The schedule study's targets hold for int32 and int64 indices: the graphs they name, at every width, also with int64
# (the same graph and x as the int32 case; named GRAPH-64k-F…-i64, so the study's figure, by graph and width, keeps
# int32).
SCHEDULE_INT64 = ("uniform", "rmat", "hub")


class NeighborAggSpec(OpSpec):
    name = "neighbor_agg"
    variants = ("sum", "mean")
    # The merge-path schedules' knobs chosen per graph shape: coop (merge's balanced work split, each piece's
    # rows and edges staged in shared memory) was within 4 % of the fastest schedule on both large power-law cases,
    # in sum and mean, but its piece size and feature slice lose up to 1.3× elsewhere.
    champions = {"native": "tuned"}
    # For the tests: small graphs of each kind, with both index dtypes and odd feature counts.
    test_params = (
        {"graph": "uniform", "nodes": 64, "degree": 4, "features": 8, "index": "int32"},
        {"graph": "powerlaw", "nodes": 1024, "edges": 8192, "features": 16, "index": "int64"},
        {"graph": "rmat", "nodes": 512, "scale": 9, "edge_factor": 8, "features": 7, "index": "int32"},
        {"graph": "hub", "nodes": 256, "edges": 4096, "share": 0.1, "features": 12, "index": "int64"},
    )

    def cases(self) -> list[Case]:
        def case(name: str, suite: str, graph: dict, features: int, index: str, seed: int) -> Case:
            return Case(self.name, name, suite, {**graph, "features": features, "index": index}, seed=seed)

        uniform = {"graph": "uniform", "nodes": 4096, "degree": 16}
        powerlaw = {"graph": "powerlaw", "nodes": 1 << 20, "edges": 16 << 20}
        return [
            # Both seed cases share graph and x (same seed): they differ only in index dtype.
            case("uniform-4096-d16-F64", "seed", uniform, 64, "int64", seed=4096 * 31 + 16),
            case("uniform-4096-d16-F64-i32", "seed", uniform, 64, "int32", seed=4096 * 31 + 16),
            # Both large cases share graph and x (same seed): they differ only in index dtype.
            case("powerlaw-1M-16M-F128", "large", powerlaw, 128, "int64", seed=(1 << 20) * 31 + 16),
            case("powerlaw-1M-16M-F128-i32", "large", powerlaw, 128, "int32", seed=(1 << 20) * 31 + 16),
            case(
                "rmat-s16-F64", "sweep", {"graph": "rmat", "nodes": 1 << 16, "scale": 16, "edge_factor": 16}, 64, "int64",
                seed=16 * 31 + 16,
            ),
            case(
                "powerlaw-262k-F128-i32", "sweep", {"graph": "powerlaw", "nodes": 1 << 18, "edges": 16 << 18}, 128, "int32",
                seed=(1 << 18) * 31 + 16,
            ),
        ] + [
            # One seed per graph, shared by its three feature widths: they run on the same graph.
            case(f"{label}-64k-F{features}", "schedule", graph, features, "int32", seed=(1 << 16) * 31 + number)
            for number, (label, graph) in enumerate(SCHEDULE_GRAPHS.items())
            for features in SCHEDULE_FEATURES
        ] + [
            case(f"{label}-64k-F{features}-i64", "schedule", graph, features, "int64", seed=(1 << 16) * 31 + number)
            for number, (label, graph) in enumerate(SCHEDULE_GRAPHS.items())
            if label in SCHEDULE_INT64
            for features in SCHEDULE_FEATURES
        ]

    def graph(self, case: Case) -> tuple[torch.Tensor, torch.Tensor]:
        """The case's CSR graph as CPU int64 tensors, shared by every input seed (cached)."""
        return _graph(*_graph_key(case))

    def case_stats(self, case: Case) -> dict:
        """The graph's degree statistics (graphs.degree_stats), computed once per graph and stored with the case."""
        return _graph_stats(*_graph_key(case))

    def make_inputs(self, case, seed, device, distribution="normal"):
        rowptr, col = self.graph(case)
        index = INDEX_DTYPES[case.params["index"]]
        g = generator(seed, device)
        x = draw((case.params["nodes"], case.params["features"]), g, distribution)
        if distribution == NONFINITE:  # a neighbor whose features are all infinite
            x[drawn_index(x.shape[0], g)] = torch.inf
        # copy=True: the cached graph must never be handed out, since an implementation could write it.
        return rowptr.to(device, index, copy=True), col.to(device, index, copy=True), x.to(device)

    def validate(self, rowptr, col, x) -> None:
        for name, t in (("rowptr", rowptr), ("col", col), ("x", x)):
            require_tensor(name, t)
        require_ndim("rowptr", rowptr, 1, "n + 1 row offsets")
        require_ndim("col", col, 1, "one source row per edge")
        require_ndim("x", x, 2, "n_src × F")
        require_dtype("rowptr", rowptr, torch.int32, torch.int64)
        require_dtype("col", col, torch.int32, torch.int64)
        if rowptr.dtype != col.dtype:
            raise InputError(
                f"rowptr and col must share one index dtype, got rowptr {_dtype(rowptr)} and col {_dtype(col)}"
            )
        require_dtype("x", x, torch.float32)
        require_same_device(rowptr=rowptr, col=col, x=x)
        if rowptr.numel() < 1:
            raise InputError("rowptr must have at least 1 element (n + 1 offsets for n rows), got 0")

    def validate_values(self, rowptr, col, x) -> None:
        """The CSR structure itself: reads the indices, so it synchronizes with the device."""
        first = rowptr[0].item()
        if first != 0:
            raise InputError(f"rowptr[0] must be 0, got {first}")
        step = rowptr.diff()
        drop = _first_true(step < 0)
        if drop is not None:
            raise InputError(
                f"rowptr must be non-decreasing: rowptr[{drop + 1}] = {rowptr[drop + 1].item()} "
                f"< rowptr[{drop}] = {rowptr[drop].item()}"
            )
        last = rowptr[-1].item()
        if last != col.numel():
            raise InputError(f"rowptr[-1] must equal col's length (the edge count {col.numel()}), got {last}")
        bad = _first_true((col < 0) | (col >= x.shape[0]))
        if bad is not None:
            raise InputError(
                f"col[{bad}] = {col[bad].item()} is out of range: x has {x.shape[0]} rows, "
                f"so every col must lie in [0, {x.shape[0]})"
            )

    def reference(self, inputs, variant):
        rowptr, col, x = inputs
        n = rowptr.numel() - 1
        degree = rowptr.diff()
        rows = torch.repeat_interleave(torch.arange(n, device=x.device), degree, output_size=col.numel())
        out = torch.zeros(n, x.shape[1], dtype=x.dtype, device=x.device)
        chunk = max(1, REFERENCE_CHUNK_ELEMENTS // max(1, x.shape[1]))
        for start in range(0, col.numel(), chunk):
            out.index_add_(0, rows[start : start + chunk], x[col[start : start + chunk]])
        if variant == "mean":
            out = out / degree.clamp(min=1).unsqueeze(1).to(out.dtype)
        return out

    def output_like(self, inputs, variant):
        # The reference loops over edge chunks, which a symbolic edge count cannot drive.
        rowptr, _, x = inputs
        return x.new_empty((rowptr.shape[0] - 1, x.shape[1]))

    def edges(self, case: Case) -> int:
        return self.graph(case)[1].numel()

    def flops(self, case, variant):
        # One add per gathered element; the mean adds one division per output element.
        nodes, features = case.params["nodes"], case.params["features"]
        return float(self.edges(case) * features + (nodes * features if variant == "mean" else 0))

    def bytes(self, case, variant):
        nodes, features = case.params["nodes"], case.params["features"]
        index_bytes = INDEX_DTYPES[case.params["index"]].itemsize
        x_and_out = 4 * (nodes * features + nodes * features)
        return float(x_and_out + index_bytes * (nodes + 1 + self.edges(case)))

    def bad_inputs(self) -> list:
        """For the tests: (make inputs, the message validate refuses them with, as a regular expression)."""
        f32, meta = torch.randn, lambda *shape: torch.empty(*shape, device="meta")
        i64 = lambda *values: torch.tensor(values, dtype=torch.int64)  # noqa: E731
        return [
            (lambda: (i64(0, 3, 1, 4), i64(0, 1, 2, 3), f32(5, 2)), r"non-decreasing: rowptr\[2\] = 1 < rowptr\[1\] = 3"),
            (lambda: (i64(0, 2, 3), i64(0, 1, 2, 3), f32(5, 2)), r"rowptr\[-1\] must equal col's length .*4.*got 3"),
            (lambda: (i64(0, 2, 5), i64(0, 1, 2, 3), f32(5, 2)), r"rowptr\[-1\] must equal col's length .*got 5"),
            (lambda: (i64(1, 2, 4), i64(0, 1, 2, 3), f32(5, 2)), r"rowptr\[0\] must be 0, got 1"),
            (lambda: (i64(), i64(), f32(5, 2)), r"rowptr must have at least 1 element"),
            (lambda: (i64(0, 2, 4), i64(0, 1, 2, 5), f32(5, 2)), r"col\[3\] = 5 is out of range: x has 5 rows"),
            (lambda: (i64(0, 2, 4), i64(-1, 1, 2, 3), f32(5, 2)), r"col\[0\] = -1 is out of range"),
            (lambda: (i64(0, 2, 4).int(), i64(0, 1, 2, 3), f32(5, 2)),
             r"rowptr and col must share one index dtype, got rowptr int32 and col int64"),
            (lambda: (i64(0, 2, 4).float(), i64(0, 1, 2, 3), f32(5, 2)), r"rowptr must have dtype int32 or int64, got float32"),
            (lambda: (i64(0, 2, 4), i64(0, 1, 2, 3).to(torch.int16), f32(5, 2)), r"col must have dtype int32 or int64, got int16"),
            (lambda: (i64(0, 2, 4), i64(0, 1, 2, 3), f32(5, 2).double()), r"x must have dtype float32, got float64"),
            (lambda: (i64(0, 2, 4), i64(0, 1, 2, 3), f32(5)), r"x must be 2-D"),
            (lambda: (i64(0, 2, 4).reshape(1, 3), i64(0, 1, 2, 3), f32(5, 2)), r"rowptr must be 1-D"),
            (lambda: (i64(0, 2, 4), i64(0, 1, 2, 3), meta(5, 2)), r"inputs must be on one device: .*x on meta"),
        ]


def _dtype(t: torch.Tensor) -> str:
    return str(t.dtype).removeprefix("torch.")


def _first_true(mask: torch.Tensor) -> int | None:
    """Position of the first True in a 1-D mask, or None; one host sync."""
    if mask.numel() == 0:
        return None
    positions = torch.where(mask, torch.arange(mask.numel(), device=mask.device), mask.numel())
    first = positions.min().item()
    return first if first < mask.numel() else None


SPEC = NeighborAggSpec()
registry.register_op(SPEC)

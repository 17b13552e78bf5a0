"""The answer: which implementation is fastest, at which boundary, and by how much against eager and
against the best library or peer.

For each op, case, variant and precision, three boundaries are answered side by side, never combined:
kernel time, call span on the single path and call span on the graph path. Each answer names the
fastest implementation, its ratio to eager (the baseline at the precision its contract compares with),
to the fastest library implementation, named (torch.compile, cuSPARSE, the peers Liger-Kernel, PyG and
QuACK: identity.LIBRARY_FAMILIES), to the fastest peer where that is another (identity.PEER_FAMILIES: the
library a user would pick instead), and to Mage's own fastest kernel where a library or eager is the fastest (how
far Mage is behind, named), and the implementations within the noise of it (mage.compare's point resolution: a
difference below it is not a ranking).

``from_rows`` answers from the rows of one run (what ``mage run`` ends with); ``latest`` reads a whole
store and keeps, per device model, the latest passing measurement of each implementation on each case,
path and cache (``mage best``). A case measured with a cold L2 is answered from its cold rows, else
from its warm ones.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mage import compare, identity
from mage.registry import BASELINE_PRECISION

# boundary -> (path, stored column)
BOUNDARIES = {"kernel": ("single", "kernel_us"), "single span": ("single", "span_mean_us"),
              "graph span": ("graph", "span_mean_us")}
# What counts as the same time: mage.compare's resolution for a single number (kernel time), and the 2 %/5 %
# it uses for a span read as a point value.
RESOLUTION = {"kernel_us": compare.RESOLUTION["kernel"], "span_mean_us": (compare.MIN_EFFECT, 0.05)}


@dataclass
class Measured:
    impl: str
    value: float
    run_id: int | None = None
    started_at: str | None = None
    # A library or baseline that failed its contract is timed on finite inputs all the same (users run it): the
    # answer may name it, never without saying so.
    failed_contract: bool = False

    @property
    def family(self) -> str:
        return identity.family_of(self.impl)


# What an answer sets its fastest beside (Answer's fields of those names), in the order its JSON gives them.
SET_BESIDE = ("eager", "library", "peer", "own")


@dataclass
class Answer:
    """The fastest at one boundary of one (device, op, case, variant, precision), with what it is set beside."""

    device: str
    op: str
    case: str
    variant: str
    precision: str
    cache: str
    boundary: str
    fastest: Measured
    within_noise: list[Measured] = field(default_factory=list)  # others no slower beyond the resolution
    eager: Measured | None = None
    library: Measured | None = None  # the fastest library implementation (a peer's too)
    peer: Measured | None = None  # the fastest peer library's (identity.PEER_FAMILIES), whether or not it is that
    own: Measured | None = None  # the fastest of Mage's own kernels (no baseline, no library), whether or not it leads

    def ratio_to(self, other: Measured | None) -> float | None:
        """How many times the fastest's time ``other``'s is (None where nothing of that kind ran)."""
        return other.value / self.fastest.value if other else None

    @property
    def vs_eager(self) -> float | None:
        return self.ratio_to(self.eager)

    @property
    def vs_library(self) -> float | None:
        return self.ratio_to(self.library)

    @property
    def vs_peer(self) -> float | None:
        return self.ratio_to(self.peer)

    @property
    def vs_own(self) -> float | None:
        return self.ratio_to(self.own)

    def same_as(self, other: Measured | None) -> bool:
        """Whether ``other`` is within the noise of the fastest (so a ratio to it says ≈, not faster)."""
        if other is None:
            return False
        verdict, _ = compare.point_verdict(self.fastest.value, other.value,
                                           RESOLUTION[BOUNDARIES[self.boundary][1]])
        return verdict != "slower"

    def as_dict(self) -> dict:
        out = {"device": self.device, "op": self.op, "case": self.case, "variant": self.variant,
               "precision": self.precision, "cache": self.cache, "boundary": self.boundary,
               "fastest": self.fastest.impl, "fastest_failed_contract": self.fastest.failed_contract,
               "us": self.fastest.value, "run": self.fastest.run_id,
               "date": self.fastest.started_at, "within_noise": [m.impl for m in self.within_noise]}
        for name in SET_BESIDE:  # each as NAME, NAME_us and vs_NAME
            other = getattr(self, name)
            out |= {name: other.impl if other else None, f"{name}_us": other.value if other else None,
                    f"vs_{name}": self.ratio_to(other)}
        return out


def _parts(impl: str) -> tuple[str, str]:
    """(variant, precision) of an implementation's name."""
    _, variant, precision = impl.split("/")
    return variant, precision


def answers(rows: list[dict], device: str) -> list[Answer]:
    """The answers from passing ``rows`` (op, case, impl, path, cache and the boundaries' columns, with
    run_id and started_at where known) measured on one device model."""
    rows = [r for r in rows if r["status"] == "pass" and r["impl"].count("/") == 2]
    cold = {(r["op"], r["case"]) for r in rows if r["cache"] == "cold"}
    rows = [r for r in rows if r["cache"] == ("cold" if (r["op"], r["case"]) in cold else "warm")]
    out = []
    groups = sorted({(r["op"], r["case"], *_parts(r["impl"])) for r in rows
                     if identity.family_of(r["impl"]) != "eager"})  # eager alone answers nothing
    for op, case, variant, precision in groups:
        eager_precision = BASELINE_PRECISION.get(precision, precision)
        for boundary, (path, column) in BOUNDARIES.items():
            def measured(r) -> Measured:
                return Measured(r["impl"], r[column], r.get("run_id"), r.get("started_at"),
                                failed_contract=r.get("contract") == "fail")

            here = [r for r in rows if (r["op"], r["case"], r["path"]) == (op, case, path) and r[column] is not None]
            ranked = sorted((measured(r) for r in here if _parts(r["impl"]) == (variant, precision)),
                            key=lambda m: m.value)
            if not ranked:
                continue
            eager = [measured(r) for r in here if _parts(r["impl"]) == (variant, eager_precision)
                     and identity.family_of(r["impl"]) == "eager"]
            library = [m for m in ranked if m.family in identity.LIBRARY_FAMILIES]
            peer = [m for m in library if m.family in identity.PEER_FAMILIES]
            own = [m for m in ranked if m.family not in (*identity.LIBRARY_FAMILIES, "eager")]
            answer = Answer(device, op, case, variant, precision, here[0]["cache"], boundary, ranked[0],
                            eager=eager[0] if eager else None, library=library[0] if library else None,
                            peer=peer[0] if peer else None, own=own[0] if own else None)
            answer.within_noise = [m for m in ranked[1:] if answer.same_as(m)]
            out.append(answer)
    return out


def from_rows(rows: list[dict], device: str, run_id: int | None = None) -> list[Answer]:
    """The answers of one run's rows."""
    return answers([r | {"run_id": run_id} for r in rows], device)


def newest_rows(store, op: str | None = None, case: str | None = None) -> dict[str, list[dict]]:
    """Per device model, the latest passing row of each (op, case, implementation, path, cache) in ``store``,
    the runs read in the order they started, each row with its run_id and started_at."""
    from mage.history import device_model

    newest: dict[tuple, dict] = {}
    for run in sorted(store.runs(), key=lambda run: (run["started_at"], run["id"])):
        device = device_model(run["env"])
        for row in store.rows(run["id"]):
            if row["status"] != "pass" or op and row["op"] != op or case and row["case"] != case:
                continue
            newest[(device, row["op"], row["case"], row["impl"], row["path"], row["cache"])] = row | {
                "run_id": run["id"], "started_at": run["started_at"]}
    by_device: dict[str, list[dict]] = {}
    for key, row in newest.items():
        by_device.setdefault(key[0], []).append(row)
    return by_device


def latest(store, op: str | None = None, case: str | None = None, precision: str | None = None) -> list[Answer]:
    """The answers of a whole store (newest_rows), per device model."""
    out = []
    for device, rows in sorted(newest_rows(store, op, case).items()):
        out += answers(rows, device)
    return [a for a in out if precision is None or a.precision == precision]

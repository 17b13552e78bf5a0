"""Why seed-scale single spans grew with input refresh and noise-based stopping
(the run-19 document, results/h200/studies/method-checks/run-19-seed.json.gz, against run 6 of results/h200/mage.db).

One implementation and its baseline on one seed case, timed together by mage.measure.span four ways: with and without input
refresh before each sample, and in blocks of 10 samples (min_samples 30 over 3 rounds, as the run-19 document) or of
300 (the whole sample in one block, as runs before). Prints the span median and mean of each, so the
difference is measured rather than guessed. Run on the GPU from the repository root:
    PYTHONPATH=python python3 scripts/span_refresh_probe.py [OP] [IMPL]
"""

import dataclasses
import json
import sys

import torch

from mage import check, registry
from mage.measure import span
from mage.measure.device import Timer
from mage.measure.method import Method


def main(op: str = "bias_gelu", name: str = "native/erf/ieee") -> None:
    spec = registry.get_op(op)
    impl = next(i for i in registry.implementations(op) if i.name == name)
    baseline = registry.baseline_of(impl)
    case = next(c for c in spec.cases() if c.suite == "seed")
    inputs = spec.make_inputs(case, case.seed, "cuda")
    refresh = check.InputRefresh(spec, case, inputs, "cuda", 7, 3, [impl.variant])
    timer = Timer("cuda")
    out = {}
    for block in (10, 300):
        for refreshed in (False, True):
            method = dataclasses.replace(Method(), min_samples=3 * block, span_samples=3 * block, noise_target=1e-9)
            contenders = [span.Contender(i.name, lambda i=i: i.fn(*inputs)) for i in (impl, baseline)]
            for contender in contenders:
                for _ in range(20):
                    contender.call()
            stats, failures = span.measure(contenders, "single", timer, method, refresh=refresh if refreshed else None)
            out[f"block {block}, refresh {refreshed}"] = {
                key: {"median_us": s.median_us, "mean_us": s.mean_us, "samples": len(s.samples)}
                for key, s in stats.items()} | {"failures": failures}
    torch.cuda.synchronize()
    print(json.dumps({"op": op, "impl": name, "case": case.name} | out, indent=1))


if __name__ == "__main__":
    main(*sys.argv[1:])

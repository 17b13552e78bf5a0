"""The error of tf32x3 products under a model of the tensor cores' fp32 accumulator, on the CPU (numpy).

    python3 scripts/tf32_accumulation_model.py

Model: a and b split into big = tf32(x) and small = tf32(x − big) (rounded to nearest, as the split kernels do);
each k = 8 group of products summed exactly and added to the fp32 accumulator with the result truncated toward
zero (the tensor cores' accumulation); where a design restarts its accumulator every `chunk` columns of K, the
chunk's sum is added to a second fp32 accumulator rounded to nearest. Within a chunk the order is big·small,
small·big, big·big. Chunk 32 is the 3-launch tf32x3 kernel (K steps of 32; stored errors 3.2e-7 at K 8192 and
5.9e-7 at K 32768, the sweep's deep cases on an H200); `one accumulator` is a tf32 GEMM over K' = 3K with no flush, its segments
concatenated (small terms first) or interleaved every 32 columns of K. The errors are
‖out − a·b‖ / ‖a·b‖ on 48 × K × 48 standard normal inputs, with fp32 sequential round-to-nearest beside them.
python/mage/ops/matmul/triton_k3.py cites these numbers for its chunk of 128.
"""

import numpy as np

M = N = 48


def tf32(x):
    bits = x.astype(np.float32).view(np.int32)
    return ((bits + 0x1000) & -8192).view(np.float32)


def truncated(x):
    """float64 to float32, toward zero."""
    f = x.astype(np.float32)
    return np.where(np.abs(f.astype(np.float64)) > np.abs(x), np.nextafter(f, np.float32(0)), f)


def product(pairs, chunk):
    """Σ of a·b over (a, b) pairs of segments, chunk columns of K at a time (every pair's chunk in turn)."""
    total = np.zeros((M, N), np.float32)
    k = pairs[0][0].shape[1]
    for start in range(0, k, chunk):
        acc = np.zeros((M, N), np.float32)
        for a, b in pairs:
            for g in range(start, start + chunk, 8):
                group = a[:, g:g + 8].astype(np.float64) @ b[g:g + 8].astype(np.float64)
                acc = truncated(acc.astype(np.float64) + group)
        total = total + acc
    return total


def main() -> None:
    rng = np.random.default_rng(2)
    for k in (8192, 32768):
        a = rng.standard_normal((M, k)).astype(np.float32)
        b = rng.standard_normal((k, N)).astype(np.float32)
        ref = a.astype(np.float64) @ b.astype(np.float64)
        error = lambda out: np.linalg.norm(out - ref) / np.linalg.norm(ref)
        a_big, b_big = tf32(a), tf32(b)
        a_small, b_small = tf32(a - a_big), tf32(b - b_big)
        pairs = [(a_big, b_small), (a_small, b_big), (a_big, b_big)]
        sequential = np.zeros((M, N), np.float32)
        for j in range(k):
            sequential = (sequential.astype(np.float64) + np.outer(a[:, j], b[j])).astype(np.float32)
        interleaved = [(np.concatenate([x[:, j:j + 32] for j in range(0, k, 32) for x, _ in pairs], axis=1),
                        np.concatenate([y[j:j + 32] for j in range(0, k, 32) for _, y in pairs], axis=0))]
        found = {"fp32 sequential": error(sequential), "one accumulator, concatenated": error(product(pairs, k)),
                 "interleaved": error(product(interleaved, 3 * k))}
        found |= {f"chunk {chunk}": error(product(pairs, chunk)) for chunk in (32, 128, 256)}
        print(f"K {k}: " + ", ".join(f"{name} {value:.2g}" for name, value in found.items()), flush=True)


if __name__ == "__main__":
    main()

//! The generated CUDA C++ as the files Mage compiles with NVRTC and launches on torch's stream.
//!
//! CubeCL 0.10's runtime allocates its own memory and streams and cannot take torch's (see
//! FINDINGS.md), so Mage uses CubeCL as the compiler of these Rust kernels only: the CUDA C++ it
//! emits is committed in each op's `generated/` folder, with a manifest, and launched by Mage's native host like any CUDA C++
//! kernel. One file per kernel specialisation: scalar or float4 (the vector size is a comptime
//! parameter), and for layernorm each cube size (also comptime).

use crate::geometry::VECTOR_SIZES;
use crate::{cuda_source, Error};

/// The architecture the sources are generated for (Hopper: the team's H200).
pub const ARCH: u32 = 90;
/// Layernorm cube sizes Mage launches: every power of two `geometry::layernorm_block` can pick.
pub const LAYERNORM_BLOCKS: [u32; 4] = [32, 64, 128, 256];

/// The first lines of every generated file, naming the Rust `source` it was generated from.
fn header(source: &str) -> String {
    format!(
        "// Generated from {source} by CubeCL 0.10.0 for sm_90: do not edit.\n\
// Regenerate with `cargo run --release --bin generate-cuda` in cubecl/ (cargo test checks it).\n\
// CubeCL's `#include <cuda_runtime.h>` is left out: NVRTC provides everything the kernel uses,\n\
// and the header would need a CUDA toolkit's include directory on the machine that compiles it.\n"
    )
}

/// The Rust file of an op's `#[cube]` kernel (`entrypoint`: matmul has two files).
fn kernel_source(op: &str, entrypoint: &str) -> &'static str {
    match op {
        "matmul" if entrypoint.starts_with("matmul_tf32") => "cubecl/src/matmul_tf32.rs",
        "matmul" => "cubecl/src/matmul.rs",
        "triangle" => "cubecl/src/triangle.rs",
        "neighbor_agg" => "cubecl/src/neighbor_agg.rs",
        "softmax" => "cubecl/src/softmax.rs",
        _ => "cubecl/src/kernels.rs",
    }
}

/// The ops with generated kernels, in the order their manifests are listed.
pub const OPS: [&str; 6] = [
    "bias_gelu",
    "layernorm",
    "matmul",
    "triangle",
    "neighbor_agg",
    "softmax",
];

const RUNTIME_INCLUDE: &str = "#include <cuda_runtime.h>\n";
/// CubeCL includes `<mma.h>` for one function only, the cast to tf32, even with inline-PTX MMAs
/// (`cubecl-cpp-0.10.0/src/cuda/mma/ptx_wmma_compiler.rs:31`); NVRTC has no such header. It is
/// replaced by that function, as the instruction mma.h's `__float_to_tf32` is (cvt.rna.tf32.f32).
const MMA_INCLUDE: &str = "#include <mma.h>\n";
const TF32_CAST: &str = "namespace nvcuda { namespace wmma {\n\
__device__ __forceinline__ float __float_to_tf32(float in) {\n\
    unsigned out;\n\
    asm(\"cvt.rna.tf32.f32 %0, %1;\" : \"=r\"(out) : \"f\"(in));\n\
    return __uint_as_float(out);\n\
}\n\
} }\n";

/// A generated file: its path under `python/mage/ops/` and its contents.
pub struct File {
    pub path: String,
    pub contents: String,
}

/// The folder of an op's generated files (under `python/mage/ops/<op>/`), beside the manifest
/// that says how each was made: the generator, the kernel, its parameters.
pub const GENERATED_DIR: &str = "generated";
pub const MANIFEST: &str = "manifest.json";

/// One generated kernel source and what the manifest says of it.
struct Generated {
    op: &'static str,
    file: String,
    entrypoint: String,
    vector: usize,
    cube: u32,
    shared: usize,
    contents: String,
}

fn generated(
    op: &'static str,
    file: String,
    vector: usize,
    source: cuda_source::CudaKernelSource,
) -> Result<Generated, Error> {
    let body = source.source.strip_prefix(RUNTIME_INCLUDE).ok_or_else(|| {
        Error::Compile("CubeCL's source no longer starts with the cuda_runtime include".into())
    })?;
    let body = body.replacen(MMA_INCLUDE, TF32_CAST, 1);
    let contents = format!(
        "{}{}",
        header(kernel_source(op, &source.entrypoint)),
        sorted_declarations(&body)
    );
    Ok(Generated {
        op,
        file,
        entrypoint: source.entrypoint,
        vector,
        cube: source.block,
        shared: source.shared_mem_bytes,
        contents,
    })
}

/// The manifest of `op`'s generated files, as JSON: each file's kernel, floats a load, units a
/// cube and bytes of dynamic shared memory (read by mage.backends.cubecl and tests/test_cubecl.py).
fn manifest(op: &str, kernels: &[Generated]) -> File {
    let entries: Vec<String> = kernels
        .iter()
        .filter(|k| k.op == op)
        .map(|k| {
            format!(
                "    {{\"file\": \"{}\", \"kernel\": \"{}\", \"vector\": {}, \"cube\": {}, \"shared\": {}}}",
                k.file, k.entrypoint, k.vector, k.cube, k.shared
            )
        })
        .collect();
    let mut sources: Vec<&str> = Vec::new();
    for k in kernels.iter().filter(|k| k.op == op) {
        let source = kernel_source(op, &k.entrypoint);
        if !sources.contains(&source) {
            sources.push(source);
        }
    }
    File {
        path: format!("{op}/{GENERATED_DIR}/{MANIFEST}"),
        contents: format!(
            "{{\n  \"generator\": \"cargo run --release --bin generate-cuda (in cubecl/)\",\n  \
             \"source\": \"{}\",\n  \"cubecl\": \"0.10.0\",\n  \"arch\": \"sm_{ARCH}\",\n  \
             \"files\": [\n{}\n  ]\n}}\n",
            sources.join(", "),
            entries.join(",\n")
        ),
    }
}

/// CubeCL declares a kernel's mutable locals (`float l_mut_8;`) in hash-set order, which changes
/// from one process to the next; each run of such lines is sorted so a file is reproducible.
fn sorted_declarations(source: &str) -> String {
    let is_declaration = |line: &str| {
        let words: Vec<&str> = line.trim_end_matches(';').split(' ').collect();
        line.ends_with(';') && words.len() == 2 && words[1].starts_with("l_mut_")
    };
    let mut out = Vec::new();
    let mut run: Vec<&str> = Vec::new();
    for line in source.lines() {
        if is_declaration(line) {
            run.push(line);
            continue;
        }
        run.sort_unstable();
        out.append(&mut run);
        out.push(line);
    }
    run.sort_unstable();
    out.append(&mut run);
    out.join("\n") + "\n"
}

/// Every file Mage launches, in a stable order: for each vector size (scalar, then float4),
/// bias_gelu's `generated/cubecl<suffix>.cu` and layernorm's `generated/cubecl_b<block><suffix>.cu`;
/// matmul's `generated/cubecl_t<tile>.cu` and `generated/cubecl_tf32.cu`; triangle's `generated/cubecl_<variant>_t<tile>.cu`;
/// for each vector size, neighbor_agg's `generated/cubecl_<sum|mean>_<i32|i64><suffix>.cu`;
/// softmax's `generated/cubecl.cu`; then each op's `generated/manifest.json`.
pub fn files() -> Result<Vec<File>, Error> {
    let mut kernels = Vec::new();
    for vector in VECTOR_SIZES {
        let suffix = cuda_source::vector_suffix(vector);
        kernels.push(generated(
            "bias_gelu",
            format!("cubecl{suffix}.cu"),
            vector,
            cuda_source::bias_gelu_cuda(vector, ARCH)?,
        )?);
        for block in LAYERNORM_BLOCKS {
            kernels.push(generated(
                "layernorm",
                format!("cubecl_b{block}{suffix}.cu"),
                vector,
                cuda_source::layernorm_cuda(block, vector, ARCH)?,
            )?);
        }
    }
    for tile in crate::matmul::TILES {
        kernels.push(generated(
            "matmul",
            format!("cubecl_t{tile}.cu"),
            1,
            cuda_source::matmul_cuda(tile, ARCH)?,
        )?);
    }
    kernels.push(generated(
        "matmul",
        "cubecl_tf32.cu".into(),
        1,
        cuda_source::matmul_tf32_cuda(ARCH)?,
    )?);
    for outgoing in [true, false] {
        let variant = if outgoing { "outgoing" } else { "incoming" };
        for tile in crate::triangle::TILES {
            kernels.push(generated(
                "triangle",
                format!("cubecl_{variant}_t{tile}.cu"),
                1,
                cuda_source::triangle_cuda(tile, outgoing, ARCH)?,
            )?);
        }
    }
    for vector in VECTOR_SIZES {
        let suffix = cuda_source::vector_suffix(vector);
        for mean in [false, true] {
            for (wide, index) in [(false, "i32"), (true, "i64")] {
                kernels.push(generated(
                    "neighbor_agg",
                    format!(
                        "cubecl_{}_{index}{suffix}.cu",
                        cuda_source::reduction_name(mean)
                    ),
                    vector,
                    cuda_source::neighbor_agg_cuda(wide, mean, vector, ARCH)?,
                )?);
            }
        }
    }
    kernels.push(generated(
        "softmax",
        "cubecl.cu".into(),
        1,
        cuda_source::softmax_cuda(ARCH)?,
    )?);
    let mut files: Vec<File> = kernels
        .iter()
        .map(|k| File {
            path: format!("{}/{GENERATED_DIR}/{}", k.op, k.file),
            contents: k.contents.clone(),
        })
        .collect();
    for op in OPS {
        files.push(manifest(op, &kernels));
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mutable_locals_are_declared_in_a_stable_order() {
        let shuffled =
            "{\nfloat l_mut_8;\nuint32 l_mut_12;\nfloat l_mut_10;\nconst float l_0 = 1;\n}\n";
        let sorted =
            "{\nfloat l_mut_10;\nfloat l_mut_8;\nuint32 l_mut_12;\nconst float l_0 = 1;\n}\n";
        assert_eq!(sorted_declarations(shuffled), sorted);
    }

    #[test]
    fn every_block_layernorm_can_pick_has_a_file() {
        for cols in 1..5000 {
            let block = crate::geometry::layernorm_block(cols, 1024).unwrap();
            assert!(
                LAYERNORM_BLOCKS.contains(&block),
                "cols {cols}: block {block}"
            );
        }
    }
}

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

const HEADER: &str =
    "// Generated from cubecl/src/kernels.rs by CubeCL 0.10.0 for sm_90: do not edit.\n\
// Regenerate with `cargo run --release --bin generate-cuda` in cubecl/ (cargo test checks it).\n\
// CubeCL's `#include <cuda_runtime.h>` is left out: NVRTC provides everything the kernel uses,\n\
// and the header would need a CUDA toolkit's include directory on the machine that compiles it.\n";

const RUNTIME_INCLUDE: &str = "#include <cuda_runtime.h>\n";

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
    Ok(Generated {
        op,
        file,
        entrypoint: source.entrypoint,
        vector,
        cube: source.block,
        contents: format!("{HEADER}{}", sorted_declarations(body)),
    })
}

/// The manifest of `op`'s generated files, as JSON (read by tests/test_cubecl.py).
fn manifest(op: &str, kernels: &[Generated]) -> File {
    let entries: Vec<String> = kernels
        .iter()
        .filter(|k| k.op == op)
        .map(|k| {
            format!(
                "    {{\"file\": \"{}\", \"kernel\": \"{}\", \"vector\": {}, \"cube\": {}}}",
                k.file, k.entrypoint, k.vector, k.cube
            )
        })
        .collect();
    File {
        path: format!("{op}/{GENERATED_DIR}/{MANIFEST}"),
        contents: format!(
            "{{\n  \"generator\": \"cargo run --release --bin generate-cuda (in cubecl/)\",\n  \
             \"source\": \"cubecl/src/kernels.rs\",\n  \"cubecl\": \"0.10.0\",\n  \"arch\": \"sm_{ARCH}\",\n  \
             \"files\": [\n{}\n  ]\n}}\n",
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
/// then each op's `generated/manifest.json`.
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
    let mut files: Vec<File> = kernels
        .iter()
        .map(|k| File {
            path: format!("{}/{GENERATED_DIR}/{}", k.op, k.file),
            contents: k.contents.clone(),
        })
        .collect();
    for op in ["bias_gelu", "layernorm"] {
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

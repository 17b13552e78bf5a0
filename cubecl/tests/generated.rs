//! The committed CUDA C++ under python/mage/ops/<op>/generated, and its manifests, are what CubeCL
//! generates from src/kernels.rs now.

use std::path::Path;

#[test]
fn committed_sources_are_what_cubecl_generates() {
    let ops = Path::new(env!("CARGO_MANIFEST_DIR")).join("../python/mage/ops");
    let files = mage_cubecl::generated::files().unwrap();
    let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "bias_gelu/generated/cubecl.cu",
            "layernorm/generated/cubecl_b32.cu",
            "layernorm/generated/cubecl_b64.cu",
            "layernorm/generated/cubecl_b128.cu",
            "layernorm/generated/cubecl_b256.cu",
            "bias_gelu/generated/cubecl_x4.cu",
            "layernorm/generated/cubecl_b32_x4.cu",
            "layernorm/generated/cubecl_b64_x4.cu",
            "layernorm/generated/cubecl_b128_x4.cu",
            "layernorm/generated/cubecl_b256_x4.cu",
            "matmul/generated/cubecl_t128.cu",
            "matmul/generated/cubecl_t64.cu",
            "matmul/generated/cubecl_tf32.cu",
            "triangle/generated/cubecl_outgoing_t64.cu",
            "triangle/generated/cubecl_outgoing_t32.cu",
            "triangle/generated/cubecl_incoming_t64.cu",
            "triangle/generated/cubecl_incoming_t32.cu",
            "neighbor_agg/generated/cubecl_sum_i32.cu",
            "neighbor_agg/generated/cubecl_sum_i64.cu",
            "neighbor_agg/generated/cubecl_mean_i32.cu",
            "neighbor_agg/generated/cubecl_mean_i64.cu",
            "neighbor_agg/generated/cubecl_sum_i32_x4.cu",
            "neighbor_agg/generated/cubecl_sum_i64_x4.cu",
            "neighbor_agg/generated/cubecl_mean_i32_x4.cu",
            "neighbor_agg/generated/cubecl_mean_i64_x4.cu",
            "softmax/generated/cubecl.cu",
            "bias_gelu/generated/manifest.json",
            "layernorm/generated/manifest.json",
            "matmul/generated/manifest.json",
            "triangle/generated/manifest.json",
            "neighbor_agg/generated/manifest.json",
            "softmax/generated/manifest.json",
        ]
    );
    for file in files {
        let committed = std::fs::read_to_string(ops.join(&file.path)).unwrap_or_default();
        assert!(
            committed == file.contents,
            "python/mage/ops/{} is stale: run `cargo run --release --bin generate-cuda` in cubecl/",
            file.path
        );
        if !file.path.ends_with(".cu") {
            continue; // a manifest
        }
        // Mage passes the scalars and zeroes the static metadata (buffer lengths): the kernels
        // must not read it.
        assert_eq!(
            file.contents.matches("static_meta").count(),
            1,
            "{} reads static_meta",
            file.path
        );
        // The float4 kernels take 16-byte aligned 4-float structs (what NVRTC turns into
        // ld.global.nc.v4.f32 / st.global.v4.f32); the scalar ones plain floats.
        let vector = file.path.ends_with("_x4.cu");
        assert_eq!(
            file.contents.contains("struct __align__(16) float_4 {"),
            vector,
            "{}",
            file.path
        );
        let buffer = if vector {
            "const float_4* __restrict__ buffer_"
        } else {
            "const float* __restrict__ buffer_"
        };
        assert!(file.contents.contains(buffer), "{}: no {buffer}", file.path);
    }
}

//! The committed CUDA C++ under python/mage/ops is what CubeCL generates from src/kernels.rs now.

use std::path::Path;

#[test]
fn committed_sources_are_what_cubecl_generates() {
    let ops = Path::new(env!("CARGO_MANIFEST_DIR")).join("../python/mage/ops");
    let files = mage_cubecl::generated::files().unwrap();
    assert_eq!(files.len(), 5);
    for file in files {
        let committed = std::fs::read_to_string(ops.join(&file.path)).unwrap_or_default();
        assert!(
            committed == file.contents,
            "python/mage/ops/{} is stale: run `cargo run --release --bin generate-cuda` in cubecl/",
            file.path
        );
        // Mage passes the scalars and zeroes the static metadata (buffer lengths): the kernels
        // must not read it.
        assert_eq!(
            file.contents.matches("static_meta").count(),
            1,
            "{} reads static_meta",
            file.path
        );
    }
}

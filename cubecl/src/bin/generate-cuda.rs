//! Writes the CUDA C++ CubeCL generates for Mage's kernels into `python/mage/ops/`.

use std::path::Path;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let ops = Path::new(env!("CARGO_MANIFEST_DIR")).join("../python/mage/ops");
    for file in mage_cubecl::generated::files()? {
        let path = ops.join(&file.path);
        std::fs::write(&path, &file.contents)?;
        println!("wrote {}", path.display());
    }
    Ok(())
}

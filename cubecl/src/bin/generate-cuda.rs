//! Writes the CUDA C++ CubeCL generates for Mage's kernels, and their manifests, into
//! `python/mage/ops/<op>/generated/`.

use std::path::Path;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let ops = Path::new(env!("CARGO_MANIFEST_DIR")).join("../python/mage/ops");
    for file in mage_cubecl::generated::files()? {
        let path = ops.join(&file.path);
        if let Some(folder) = path.parent() {
            std::fs::create_dir_all(folder)?;
        }
        std::fs::write(&path, &file.contents)?;
        println!("wrote {}", path.display());
    }
    Ok(())
}

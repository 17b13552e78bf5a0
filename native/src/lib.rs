//! Mage's native extension. For now it proves the build path (maturin, PyO3, abi3) and
//! reports what was built; the CUDA launcher will live here.

use pyo3::prelude::*;

/// Crate version and the profile it was built with, recorded with every run.
fn build_id() -> String {
    let profile = if cfg!(debug_assertions) { "debug" } else { "release" };
    format!("mage-native {} ({profile})", env!("CARGO_PKG_VERSION"))
}

#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

#[pyfunction(name = "build_id")]
fn py_build_id() -> String {
    build_id()
}

#[pymodule]
fn _native(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(version, module)?)?;
    module.add_function(wrap_pyfunction!(py_build_id, module)?)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn build_id_names_the_crate_version() {
        assert!(build_id().starts_with(&format!("mage-native {}", env!("CARGO_PKG_VERSION"))));
    }
}

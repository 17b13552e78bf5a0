//! Mage's native extension: NVRTC compilation with a disk cache, and kernel launches on torch's
//! stream in torch's primary context. The Python functions here stay thin; the work is in
//! `compile` (NVRTC and the caches), `driver` (contexts, modules, launches), `args` (kernel
//! parameter packing) and `libs` (finding libnvrtc and libcuda).
//!
//! Errors become `mage._native.CudaError` (a RuntimeError) or its subclass `CompileError`, with
//! the CUDA error name in the message, or ValueError for arguments that never reach CUDA. Every
//! entry point also turns an unexpected Rust panic into CudaError instead of unwinding into
//! Python.

pub mod args;
pub mod compile;
pub mod driver;
pub mod error;
pub mod libs;

use std::panic::{catch_unwind, AssertUnwindSafe};

use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyFloat, PyTuple};

use crate::args::{Kind, Packed, Value};
use crate::error::Error;

create_exception!(
    mage._native,
    CudaError,
    PyRuntimeError,
    "A CUDA driver or library call failed; the message names the CUDA error."
);
create_exception!(
    mage._native,
    CompileError,
    CudaError,
    "NVRTC could not compile a kernel source; the message holds its log."
);

fn to_py(error: Error) -> PyErr {
    match error {
        Error::Invalid(text) => PyValueError::new_err(text),
        Error::Nvrtc { .. } => CompileError::new_err(error.to_string()),
        other => CudaError::new_err(other.to_string()),
    }
}

/// Run `f`, mapping its error to a Python exception and a panic to CudaError.
fn guarded<T>(f: impl FnOnce() -> error::Result<T>) -> PyResult<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(result) => result.map_err(to_py),
        Err(payload) => {
            let text = payload
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| payload.downcast_ref::<&str>().copied())
                .unwrap_or("unknown panic");
            Err(CudaError::new_err(format!("internal error in mage._native: {text}")))
        }
    }
}

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

/// NVRTC's (major, minor) version; loads libnvrtc.
#[pyfunction]
fn nvrtc_version() -> PyResult<(i32, i32)> {
    guarded(compile::nvrtc_version)
}

/// The options every kernel is compiled with besides its target.
#[pyfunction]
fn default_options() -> Vec<&'static str> {
    compile::DEFAULT_OPTIONS.to_vec()
}

/// The directory of the on-disk cubin cache.
#[pyfunction]
fn cache_dir() -> String {
    compile::cache_dir().display().to_string()
}

/// The cache key (hex sha256) of `source` compiled for `sm_<arch>` with `options`.
#[pyfunction]
#[pyo3(signature = (source, arch, options=None))]
fn cache_key(source: &str, arch: u32, options: Option<Vec<String>>) -> PyResult<String> {
    guarded(|| {
        let request = compile::Request::new(source, "mage.cu", arch, options)?;
        Ok(request.key(compile::nvrtc_version()?))
    })
}

/// Compile `source` for `sm_<arch>` to a cubin (cached in memory and on disk). Needs only
/// libnvrtc, no GPU.
#[pyfunction]
#[pyo3(signature = (source, arch, options=None, name="mage.cu"))]
fn compile_to_cubin<'py>(
    py: Python<'py>,
    source: &str,
    arch: u32,
    options: Option<Vec<String>>,
    name: &str,
) -> PyResult<Bound<'py, PyBytes>> {
    let request = guarded(|| compile::Request::new(source, name, arch, options))?;
    let (_, cubin) = py.detach(|| guarded(|| compile::compile(&request)))?;
    Ok(PyBytes::new(py, &cubin))
}

/// Compute capability of CUDA device `device` as major*10+minor.
#[pyfunction]
fn device_arch(device: i32) -> PyResult<u32> {
    guarded(|| driver::device_arch(device))
}

/// A kernel loaded in the primary context of its device, ready to launch.
#[pyclass(frozen, module = "mage._native")]
struct Kernel {
    function: driver::Function,
    context: driver::Context,
    kinds: Vec<Kind>,
    #[pyo3(get)]
    name: String,
    #[pyo3(get)]
    signature: String,
    #[pyo3(get)]
    device: i32,
    #[pyo3(get)]
    arch: u32,
    #[pyo3(get)]
    cache_key: String,
}

fn extract_value(arg: &Bound<'_, PyAny>, kind: Kind, index: usize) -> PyResult<Value> {
    if kind == Kind::Struct {
        return match arg.cast::<PyBytes>() {
            Ok(bytes) => Ok(Value::Bytes(bytes.as_bytes().to_vec())),
            Err(_) => Err(PyValueError::new_err(format!(
                "argument {index} (b) must be bytes (the struct's), got {}",
                arg.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "?".into())
            ))),
        };
    }
    if kind == Kind::F32 && arg.is_instance_of::<PyFloat>() {
        return Ok(Value::Float(arg.extract::<f64>()?));
    }
    // i64 first: the fast conversion; u64 for the rare pointer above i64::MAX.
    if let Ok(v) = arg.extract::<i64>() {
        return Ok(Value::Int(i128::from(v)));
    }
    match arg.extract::<u64>() {
        Ok(v) => Ok(Value::Int(i128::from(v))),
        Err(_) => Err(PyValueError::new_err(format!(
            "argument {index} ({}) must be an int{} in range, got {}",
            kind.letter(),
            if kind == Kind::F32 { " or float" } else { "" },
            arg.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "?".into())
        ))),
    }
}

#[pymethods]
impl Kernel {
    /// Enqueue the kernel on the raw CUDA stream handle `stream` (torch's
    /// `torch.cuda.current_stream().cuda_stream`): no copy, no synchronization.
    ///
    /// `args` follow the signature: device pointers (ints from `Tensor.data_ptr()`), int32,
    /// int64 and float32 scalars, and structs passed by value as their bytes. `cooperative`: through
    /// cuLaunchCooperativeKernel, for a kernel whose CTAs wait on each other.
    #[pyo3(signature = (grid, block, shared_bytes, stream, *args, cooperative = false))]
    fn launch(
        &self,
        grid: (u32, u32, u32),
        block: (u32, u32, u32),
        shared_bytes: u32,
        stream: u64,
        args: &Bound<'_, PyTuple>,
        cooperative: bool,
    ) -> PyResult<()> {
        if args.len() != self.kinds.len() {
            return Err(PyValueError::new_err(format!(
                "{} takes {} arguments (signature {:?}), got {}",
                self.name,
                self.kinds.len(),
                self.signature,
                args.len()
            )));
        }
        let mut values: [Value; args::MAX_ARGS] = std::array::from_fn(|_| Value::Int(0));
        for (index, (arg, kind)) in args.iter().zip(&self.kinds).enumerate() {
            values[index] = extract_value(&arg, *kind, index)?;
        }
        let geometry = driver::Geometry { grid, block, shared_bytes, cooperative };
        guarded(|| {
            let mut packed = Packed::new(&self.kinds, &values[..self.kinds.len()])
                .map_err(|e| Error::Invalid(format!("{}: {e}", self.name)))?;
            // SAFETY: the kernel was loaded with the signature its launcher declares for it, and
            // `packed` was checked against that signature; the launcher passes pointers of live
            // torch tensors it validated (device, dtype, shape, layout) and sized the grid from,
            // and torch's current stream of their device. The GPU cannot check more than that.
            unsafe { driver::launch(self.function, self.context, geometry, stream, &mut packed) }
                .map_err(|e| e.with_detail(format!("kernel {} grid {grid:?} block {block:?}", self.name)))
        })
    }

    /// How many clusters of `cluster` CTAs of this kernel (its cluster size compiled in) fit on
    /// its device at once with `block` threads and `shared_bytes` of dynamic shared memory a CTA.
    fn max_active_clusters(&self, cluster: u32, block: (u32, u32, u32), shared_bytes: u32) -> PyResult<i32> {
        guarded(|| {
            driver::max_active_clusters(self.function, self.context, cluster, block, shared_bytes)
                .map_err(|e| e.with_detail(format!("kernel {} cluster {cluster} block {block:?}", self.name)))
        })
    }

    fn __repr__(&self) -> String {
        format!("Kernel({:?}, signature={:?}, device={}, sm_{})", self.name, self.signature, self.device, self.arch)
    }
}

/// Compile `source` for device `device` (cached), load it in the device's primary context
/// (once per process) and return its kernel `name`, whose parameters are `signature`.
#[pyfunction]
#[pyo3(signature = (source, name, signature, device, options=None))]
fn load_kernel(
    py: Python<'_>,
    source: &str,
    name: &str,
    signature: &str,
    device: i32,
    options: Option<Vec<String>>,
) -> PyResult<Kernel> {
    let kinds = guarded(|| args::parse_signature(signature))?;
    let arch = guarded(|| driver::device_arch(device))?;
    let request = guarded(|| compile::Request::new(source, &format!("{name}.cu"), arch, options))?;
    let (key, cubin) = py.detach(|| guarded(|| compile::compile(&request)))?;
    guarded(|| {
        let (module, context) = driver::module(&key, &cubin, device)?;
        let function = driver::function(module, name)?;
        driver::allow_compiled_cluster_size(function, context)?;
        Ok(Kernel {
            function,
            context,
            kinds,
            name: name.to_string(),
            signature: signature.to_string(),
            device,
            arch,
            cache_key: key,
        })
    })
}

#[pymodule]
fn _native(module: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = module.py();
    module.add("CudaError", py.get_type::<CudaError>())?;
    module.add("CompileError", py.get_type::<CompileError>())?;
    module.add_class::<Kernel>()?;
    module.add_function(wrap_pyfunction!(version, module)?)?;
    module.add_function(wrap_pyfunction!(py_build_id, module)?)?;
    module.add_function(wrap_pyfunction!(nvrtc_version, module)?)?;
    module.add_function(wrap_pyfunction!(default_options, module)?)?;
    module.add_function(wrap_pyfunction!(cache_dir, module)?)?;
    module.add_function(wrap_pyfunction!(cache_key, module)?)?;
    module.add_function(wrap_pyfunction!(compile_to_cubin, module)?)?;
    module.add_function(wrap_pyfunction!(device_arch, module)?)?;
    module.add_function(wrap_pyfunction!(load_kernel, module)?)?;
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

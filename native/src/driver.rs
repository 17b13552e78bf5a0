//! The driver side: torch's primary context, modules loaded from cubins, and launches.
//!
//! Mage never creates a context. Kernels load into the primary context of their device, which
//! is the one torch uses, and launch on the raw stream handle torch reports, so a launch is
//! ordered with torch's own work, never synchronizes, and is captured when that stream is
//! capturing a CUDA graph.

use std::collections::HashMap;
use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::sync::{Mutex, OnceLock};

use cudarc::driver::sys::{self, CUcontext, CUdevice_attribute, CUfunction, CUmodule, CUresult, CUstream};

use crate::args::Packed;
use crate::error::{Error, Result};
use crate::libs;

fn check(call: &'static str, code: CUresult) -> Result<()> {
    if code == CUresult::CUDA_SUCCESS {
        Ok(())
    } else {
        Err(Error::driver(call, code))
    }
}

/// The driver's description of an error, when libcuda is loaded.
pub fn error_string(code: CUresult) -> Option<String> {
    if !libs::driver_ready() {
        return None;
    }
    // The pointer is returned out of the closure: a `move` closure writing through `&mut text`
    // would fill its own copy and leave this one null.
    // SAFETY: libcuda is loaded; the out-pointer receives a static string or stays null.
    let text = std::panic::catch_unwind(|| unsafe {
        let mut text: *const c_char = std::ptr::null();
        let ok = sys::cuGetErrorString(code, &mut text) == CUresult::CUDA_SUCCESS;
        if ok {
            text as usize
        } else {
            0
        }
    })
    .unwrap_or(0) as *const c_char;
    if text.is_null() {
        return None;
    }
    // SAFETY: cuGetErrorString returned a NUL-terminated static string.
    Some(unsafe { CStr::from_ptr(text) }.to_string_lossy().into_owned())
}

static INITIALIZED: OnceLock<()> = OnceLock::new();

/// Load libcuda and call cuInit once (idempotent; torch has usually done it already).
pub fn init() -> Result<()> {
    if INITIALIZED.get().is_some() {
        return Ok(());
    }
    libs::ensure_driver()?;
    // SAFETY: cuInit has no preconditions.
    check("cuInit", unsafe { sys::cuInit(0) })?;
    let _ = INITIALIZED.set(());
    Ok(())
}

/// Compute capability of `ordinal` as major*10+minor (90 on Hopper).
pub fn device_arch(ordinal: i32) -> Result<u32> {
    init()?;
    let mut device: sys::CUdevice = 0;
    // SAFETY: valid out-pointer; the driver checks the ordinal.
    check("cuDeviceGet", unsafe { sys::cuDeviceGet(&mut device, ordinal) })
        .map_err(|e| e.with_detail(format!("device {ordinal}")))?;
    let attribute = |attrib: CUdevice_attribute| -> Result<i32> {
        let mut value: c_int = 0;
        // SAFETY: valid out-pointer and device handle.
        check("cuDeviceGetAttribute", unsafe { sys::cuDeviceGetAttribute(&mut value, attrib, device) })?;
        Ok(value)
    };
    let major = attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?;
    let minor = attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?;
    Ok((major * 10 + minor) as u32)
}

/// A primary context, retained by Mage and never released. Only `primary_context` makes one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Context(CUcontext);

/// A module loaded in a primary context, never unloaded. Only `module` makes one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Module(CUmodule);

/// A kernel of a loaded module. Only `function` makes one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Function(CUfunction);

// SAFETY: these are driver handles, valid in every thread of the process; the driver API is
// thread-safe, and none of them is ever destroyed (contexts stay retained, modules loaded).
unsafe impl Send for Context {}
unsafe impl Sync for Context {}
unsafe impl Send for Module {}
unsafe impl Sync for Module {}
unsafe impl Send for Function {}
unsafe impl Sync for Function {}

static PRIMARY: OnceLock<Mutex<HashMap<i32, Context>>> = OnceLock::new();

/// The primary context of `ordinal` (the one torch uses), retained once and never released:
/// modules loaded in it live as long as the process.
pub fn primary_context(ordinal: i32) -> Result<Context> {
    init()?;
    let map = PRIMARY.get_or_init(|| Mutex::new(HashMap::new()));
    let mut map = map.lock().map_err(|_| Error::Invalid("context table poisoned".into()))?;
    if let Some(context) = map.get(&ordinal) {
        return Ok(*context);
    }
    let mut device: sys::CUdevice = 0;
    // SAFETY: valid out-pointer; the driver checks the ordinal.
    check("cuDeviceGet", unsafe { sys::cuDeviceGet(&mut device, ordinal) })
        .map_err(|e| e.with_detail(format!("device {ordinal}")))?;
    let mut context: CUcontext = std::ptr::null_mut();
    // SAFETY: valid out-pointer and device; the retain is deliberately never released.
    check("cuDevicePrimaryCtxRetain", unsafe { sys::cuDevicePrimaryCtxRetain(&mut context, device) })?;
    map.insert(ordinal, Context(context));
    Ok(Context(context))
}

/// Run `f` with `context` current on this thread.
///
/// If it already is (the usual case: torch made it current), nothing changes. If no context is
/// current, `context` is made current and left so, as torch itself would. If another context is
/// current, `context` is pushed for the call and popped after it.
pub fn with_context<T>(context: Context, f: impl FnOnce() -> Result<T>) -> Result<T> {
    let mut current: CUcontext = std::ptr::null_mut();
    // SAFETY: valid out-pointer.
    check("cuCtxGetCurrent", unsafe { sys::cuCtxGetCurrent(&mut current) })?;
    if current == context.0 {
        return f();
    }
    if current.is_null() {
        // SAFETY: `context` is a retained primary context (only primary_context makes one).
        check("cuCtxSetCurrent", unsafe { sys::cuCtxSetCurrent(context.0) })?;
        return f();
    }
    // SAFETY: as above; it is popped below on every path.
    check("cuCtxPushCurrent", unsafe { sys::cuCtxPushCurrent_v2(context.0) })?;
    let result = f();
    let mut popped: CUcontext = std::ptr::null_mut();
    // SAFETY: pops the context pushed above.
    let pop = check("cuCtxPopCurrent", unsafe { sys::cuCtxPopCurrent_v2(&mut popped) });
    let value = result?;
    pop.map(|_| value)
}

static MODULES: OnceLock<Mutex<HashMap<(String, i32), Module>>> = OnceLock::new();

/// The module of `cubin` (cache key `key`) in the primary context of `ordinal`, loaded once per
/// process: the in-memory module cache, keyed like the cubin cache plus the device.
pub fn module(key: &str, cubin: &[u8], ordinal: i32) -> Result<(Module, Context)> {
    let context = primary_context(ordinal)?;
    let map = MODULES.get_or_init(|| Mutex::new(HashMap::new()));
    let mut map = map.lock().map_err(|_| Error::Invalid("module table poisoned".into()))?;
    if let Some(module) = map.get(&(key.to_string(), ordinal)) {
        return Ok((*module, context));
    }
    let loaded = with_context(context, || {
        let mut module: CUmodule = std::ptr::null_mut();
        // SAFETY: `cubin` is a complete ELF image from NVRTC, alive for the call; the driver
        // copies what it needs.
        check("cuModuleLoadData", unsafe { sys::cuModuleLoadData(&mut module, cubin.as_ptr() as *const c_void) })?;
        Ok(Module(module))
    })?;
    map.insert((key.to_string(), ordinal), loaded);
    Ok((loaded, context))
}

/// The kernel `name` of a loaded module.
pub fn function(module: Module, name: &str) -> Result<Function> {
    let c_name = CString::new(name).map_err(|_| Error::Invalid("kernel names must not contain NUL bytes".into()))?;
    let mut function: CUfunction = std::ptr::null_mut();
    // SAFETY: `module` was loaded by `module()` and is never unloaded; NUL-terminated name.
    check("cuModuleGetFunction", unsafe { sys::cuModuleGetFunction(&mut function, module.0, c_name.as_ptr()) })
        .map_err(|e| e.with_detail(format!("no kernel named {name:?} (is it extern \"C\"?)")))?;
    Ok(Function(function))
}

/// The most CTAs a cluster may have on every device; sm_90 holds up to 16 once a kernel allows it.
const PORTABLE_CLUSTER_SIZE: c_int = 8;

/// Lets `function` launch with the cluster size compiled into it (`__cluster_dims__`) where that is
/// past the portable 8: without the opt-in the driver refuses such a launch. `context` is the
/// function's own.
pub fn allow_compiled_cluster_size(function: Function, context: Context) -> Result<()> {
    with_context(context, || {
        let mut width: c_int = 0;
        // SAFETY: `function` is a live kernel of a module loaded in `context`; valid out-pointer.
        check("cuFuncGetAttribute", unsafe {
            sys::cuFuncGetAttribute(
                &mut width,
                sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH,
                function.0,
            )
        })?;
        if width <= PORTABLE_CLUSTER_SIZE {
            return Ok(());
        }
        // SAFETY: as above; the attribute takes 0 or 1.
        check("cuFuncSetAttribute", unsafe {
            sys::cuFuncSetAttribute(
                function.0,
                sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED,
                1,
            )
        })
    })
}

/// A kernel gets 48 KB of dynamic shared memory unless it opts in to more, per function.
const DEFAULT_DYNAMIC_SHARED_BYTES: u32 = 48 * 1024;
/// The opt-in ceiling on sm_90 (232,448 bytes); the driver refuses more at launch anyway, but
/// this names the problem before it gets there.
const MAX_DYNAMIC_SHARED_BYTES: u32 = 227 * 1024;

/// Launch geometry, checked before it reaches the driver.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Geometry {
    pub grid: (u32, u32, u32),
    pub block: (u32, u32, u32),
    pub shared_bytes: u32,
    /// Launched with cuLaunchCooperativeKernel: the driver makes every CTA resident at once or refuses.
    pub cooperative: bool,
}

impl Geometry {
    pub fn validate(&self) -> Result<()> {
        let (gx, gy, gz) = self.grid;
        let (bx, by, bz) = self.block;
        if gx == 0 || gy == 0 || gz == 0 || bx == 0 || by == 0 || bz == 0 {
            return Err(Error::Invalid(format!(
                "grid {:?} and block {:?} must be at least 1 in every dimension (skip empty work before launching)",
                self.grid, self.block
            )));
        }
        if gy > 65535 || gz > 65535 {
            return Err(Error::Invalid(format!("grid {:?}: y and z are limited to 65535", self.grid)));
        }
        if u64::from(bx) * u64::from(by) * u64::from(bz) > 1024 {
            return Err(Error::Invalid(format!("block {:?} has more than 1024 threads", self.block)));
        }
        if self.shared_bytes > MAX_DYNAMIC_SHARED_BYTES {
            return Err(Error::Invalid(format!(
                "{} bytes of dynamic shared memory: a block may have at most {MAX_DYNAMIC_SHARED_BYTES} (227 KB on sm_90)",
                self.shared_bytes
            )));
        }
        Ok(())
    }
}

/// Lets `function` take `shared_bytes` of dynamic shared memory where that is more than the
/// default 48 KB. `context` must be current and `shared_bytes` checked by `Geometry::validate`.
fn opt_in_shared_bytes(function: Function, shared_bytes: u32) -> Result<()> {
    if shared_bytes <= DEFAULT_DYNAMIC_SHARED_BYTES {
        return Ok(());
    }
    // SAFETY: `function` is a live kernel of a module loaded in the current context; the
    // attribute takes a byte count the geometry check bounded above.
    let code = unsafe {
        sys::cuFuncSetAttribute(
            function.0,
            sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            shared_bytes as c_int,
        )
    };
    check("cuFuncSetAttribute", code)
}

/// How many clusters of `cluster` CTAs of `function` (whose cluster size is compiled in) the
/// device holds at once with `block` threads and `shared_bytes` of dynamic shared memory a CTA:
/// the driver's count (cuOccupancyMaxActiveClusters), which knows how the device's GPCs are cut.
pub fn max_active_clusters(
    function: Function,
    context: Context,
    cluster: u32,
    block: (u32, u32, u32),
    shared_bytes: u32,
) -> Result<i32> {
    let geometry = Geometry { grid: (cluster, 1, 1), block, shared_bytes, cooperative: false };
    geometry.validate()?;
    with_context(context, || {
        opt_in_shared_bytes(function, shared_bytes)?;
        let config = sys::CUlaunchConfig {
            gridDimX: cluster,
            gridDimY: 1,
            gridDimZ: 1,
            blockDimX: block.0,
            blockDimY: block.1,
            blockDimZ: block.2,
            sharedMemBytes: shared_bytes,
            hStream: std::ptr::null_mut(),
            attrs: std::ptr::null_mut(),
            numAttrs: 0,
        };
        let mut clusters: c_int = 0;
        // SAFETY: `function` is a live kernel of a module loaded in `context` (current here);
        // `config` names no attributes and lives through the call, which only reads it.
        let code = unsafe { sys::cuOccupancyMaxActiveClusters(&mut clusters, function.0, &config) };
        check("cuOccupancyMaxActiveClusters", code)?;
        Ok(clusters)
    })
}

/// Enqueue `function` on `stream` with `args`; returns as soon as the launch is queued.
///
/// # Safety
/// `args` must match the kernel's parameters (count, and kind of each), every pointer in them
/// must address device memory the kernel may read or write over the extents it will touch, and
/// `stream` must be 0 or a live stream of `context`'s device. The GPU trusts all of it.
pub unsafe fn launch(
    function: Function,
    context: Context,
    geometry: Geometry,
    stream: u64,
    args: &mut Packed,
) -> Result<()> {
    geometry.validate()?;
    let mut pointers = args.pointers();
    with_context(context, || {
        opt_in_shared_bytes(function, geometry.shared_bytes)?;
        let (gx, gy, gz) = geometry.grid;
        let (bx, by, bz) = geometry.block;
        let stream = stream as usize as CUstream;
        let shared = geometry.shared_bytes;
        let params = pointers.as_mut_ptr();
        // SAFETY: `function` comes from a module loaded in `context` (current here) and is
        // never unloaded; `pointers` addresses one slot per kernel parameter, encoded as the
        // signature the kernel was registered with says, and both outlive the call (the
        // driver copies the values at launch); `stream` is the raw handle torch gave for a
        // stream of this context (0 is the legacy default stream). A cooperative launch also
        // has the driver check that the whole grid fits at once.
        let (call, code) = unsafe {
            if geometry.cooperative {
                let code = sys::cuLaunchCooperativeKernel(function.0, gx, gy, gz, bx, by, bz, shared, stream, params);
                ("cuLaunchCooperativeKernel", code)
            } else {
                let code = sys::cuLaunchKernel(
                    function.0,
                    gx,
                    gy,
                    gz,
                    bx,
                    by,
                    bz,
                    shared,
                    stream,
                    params,
                    std::ptr::null_mut(),
                );
                ("cuLaunchKernel", code)
            }
        };
        check(call, code)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn geometry_is_checked_before_the_driver_sees_it() {
        let ok = Geometry { grid: (1, 1, 1), block: (256, 1, 1), shared_bytes: 0, cooperative: false };
        assert!(ok.validate().is_ok());
        assert!(Geometry { grid: (0, 1, 1), ..ok }.validate().is_err());
        assert!(Geometry { block: (1025, 1, 1), ..ok }.validate().is_err());
        assert!(Geometry { block: (32, 32, 2), ..ok }.validate().is_err());
        assert!(Geometry { grid: (1, 65536, 1), ..ok }.validate().is_err());
        assert!(Geometry { shared_bytes: 200 * 1024, ..ok }.validate().is_ok());
        assert!(Geometry { shared_bytes: 228 * 1024, ..ok }.validate().is_err());
    }
}

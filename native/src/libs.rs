//! Finding libnvrtc and libcuda at run time.
//!
//! cudarc opens both with `dlopen` by bare name on first use (`libnvrtc.so`, …,
//! `libnvrtc.so.13`; `libcuda.so`, …, `libcuda.so.1`) and panics if none opens. Mage never lets
//! it get that far: before any call into a library, `ensure_*` checks that cudarc's lookup will
//! succeed, and if not, opens the library itself by absolute path from the places below and
//! keeps it open. The dynamic loader then resolves cudarc's bare-name lookup to the library
//! already in the process (glibc matches a requested name against loaded objects' sonames).
//!
//! Searched, in order, after the bare-name lookup (LD_LIBRARY_PATH, the ld.so cache, and any
//! library already loaded, e.g. by Python from a pip wheel):
//! - libnvrtc: `$MAGE_NVRTC_LIB` (a file), then `libnvrtc.so.13` / `libnvrtc.so` in each
//!   directory of `$MAGE_CUDA_LIB_DIRS` (colon-separated), `$CUDA_HOME`, `$CUDA_PATH`,
//!   `$CUDA_ROOT` (their `lib64`, `lib`), `/usr/local/cuda/lib64`, `/usr/local/cuda-13.0/lib64`,
//!   `/usr/local/cuda/targets/<arch>-linux/lib`.
//! - libcuda: `$MAGE_CUDA_DRIVER_LIB` (a file), then `libcuda.so.1` in `$MAGE_CUDA_LIB_DIRS`,
//!   the distributions' library directories, `/usr/local/nvidia/lib64` and `/usr/lib/wsl/lib`.
//!   Never a toolkit's `stubs` directory: a stub driver loads but cannot run anything.
//!
//! A libnvrtc opened by path has its `libnvrtc-builtins.so.*` sibling opened first, since
//! NVRTC looks that one up by bare name when it compiles.
//!
//! A failed search is not remembered, so a library preloaded later (by Python) is still found.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use crate::error::{Error, Result};

/// Libraries Mage opened by path; kept open for the life of the process.
static OPENED: Mutex<Vec<libloading::Library>> = Mutex::new(Vec::new());
static NVRTC_READY: AtomicBool = AtomicBool::new(false);
static DRIVER_READY: AtomicBool = AtomicBool::new(false);

const NVRTC_FILES: &[&str] = &["libnvrtc.so.13", "libnvrtc.so"];
const DRIVER_FILES: &[&str] = &["libcuda.so.1", "libcuda.so"];

fn env_dirs(var: &str) -> Vec<PathBuf> {
    std::env::var_os(var)
        .map(|value| std::env::split_paths(&value).filter(|p| !p.as_os_str().is_empty()).collect())
        .unwrap_or_default()
}

fn toolkit_roots() -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> = ["CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"]
        .iter()
        .filter_map(|var| std::env::var_os(var).map(PathBuf::from))
        .collect();
    roots.push(PathBuf::from("/usr/local/cuda"));
    roots.push(PathBuf::from("/usr/local/cuda-13.0"));
    roots
}

/// Files that may be libnvrtc, in the order they are tried.
pub fn nvrtc_candidates() -> Vec<PathBuf> {
    let mut dirs = env_dirs("MAGE_CUDA_LIB_DIRS");
    for root in toolkit_roots() {
        dirs.push(root.join("lib64"));
        dirs.push(root.join("lib"));
        dirs.push(root.join(format!("targets/{}-linux/lib", std::env::consts::ARCH)));
    }
    let mut files: Vec<PathBuf> = std::env::var_os("MAGE_NVRTC_LIB").map(PathBuf::from).into_iter().collect();
    files.extend(dirs.iter().flat_map(|d| NVRTC_FILES.iter().map(move |f| d.join(f))));
    files
}

/// Files that may be libcuda (the driver's library), in the order they are tried.
pub fn driver_candidates() -> Vec<PathBuf> {
    let mut dirs = env_dirs("MAGE_CUDA_LIB_DIRS");
    let arch = std::env::consts::ARCH;
    dirs.extend(
        [
            format!("/usr/lib/{arch}-linux-gnu"),
            "/usr/lib64".to_string(),
            "/usr/lib".to_string(),
            "/usr/local/nvidia/lib64".to_string(),
            "/usr/local/nvidia/lib".to_string(),
            "/usr/lib/wsl/lib".to_string(),
        ]
        .into_iter()
        .map(PathBuf::from),
    );
    let mut files: Vec<PathBuf> = std::env::var_os("MAGE_CUDA_DRIVER_LIB").map(PathBuf::from).into_iter().collect();
    files.extend(dirs.iter().flat_map(|d| DRIVER_FILES.iter().map(move |f| d.join(f))));
    files
}

fn open_path(path: &Path) -> bool {
    // SAFETY: opening a shared library runs its initializers; these are NVIDIA's CUDA
    // libraries, which are designed to be loaded this way (as cudarc itself does).
    match unsafe { libloading::Library::new(path) } {
        Ok(library) => {
            if let Ok(mut opened) = OPENED.lock() {
                opened.push(library);
            }
            true
        }
        Err(_) => false,
    }
}

/// libnvrtc opens `libnvrtc-builtins.so.<major>.<minor>` by bare name when it compiles; a
/// libnvrtc opened by path (a pip wheel's) has no RUNPATH to find it, so its sibling is opened
/// first (the `.alt` variants are not the ones it asks for).
fn open_siblings(library: &Path) {
    let Some(dir) = library.parent() else { return };
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut builtins: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let name = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            name.starts_with("libnvrtc-builtins.so.")
        })
        .collect();
    builtins.sort();
    for path in builtins {
        open_path(&path);
    }
}

fn open_first(candidates: &[PathBuf], found: impl Fn() -> bool, with_siblings: bool) -> bool {
    for path in candidates.iter().filter(|p| p.is_file()) {
        if with_siblings {
            open_siblings(path);
        }
        if open_path(path) && found() {
            return true;
        }
    }
    false
}

fn ensure(
    ready: &AtomicBool,
    present: fn() -> bool,
    candidates: fn() -> Vec<PathBuf>,
    with_siblings: bool,
    what: &str,
    hint: &str,
) -> Result<()> {
    if ready.load(Ordering::Acquire) {
        return Ok(());
    }
    let found = present() || open_first(&candidates(), present, with_siblings);
    if !found {
        let searched: Vec<String> = candidates().iter().map(|p| p.display().to_string()).collect();
        return Err(Error::Library(format!(
            "{what} could not be loaded: not found by the dynamic loader (LD_LIBRARY_PATH, ld.so cache, \
             libraries already loaded) nor at {}. {hint}",
            searched.join(", ")
        )));
    }
    ready.store(true, Ordering::Release);
    Ok(())
}

fn nvrtc_present() -> bool {
    // SAFETY: only tries to dlopen the candidate names and closes them again.
    std::panic::catch_unwind(|| unsafe { cudarc::nvrtc::sys::is_culib_present() }).unwrap_or(false)
}

fn driver_present() -> bool {
    // SAFETY: as above.
    std::panic::catch_unwind(|| unsafe { cudarc::driver::sys::is_culib_present() }).unwrap_or(false)
}

/// Make sure cudarc's NVRTC lookup will find libnvrtc.
pub fn ensure_nvrtc() -> Result<()> {
    ensure(
        &NVRTC_READY,
        nvrtc_present,
        nvrtc_candidates,
        true,
        "libnvrtc (CUDA 13 NVRTC)",
        "Install the nvidia-cuda-nvrtc wheel (Mage preloads it), or set MAGE_NVRTC_LIB to the library file.",
    )
}

/// Make sure cudarc's driver lookup will find libcuda.
pub fn ensure_driver() -> Result<()> {
    ensure(
        &DRIVER_READY,
        driver_present,
        driver_candidates,
        false,
        "libcuda (the NVIDIA driver's CUDA library)",
        "The NVIDIA driver must be installed; set MAGE_CUDA_DRIVER_LIB to libcuda.so.1 if it is elsewhere.",
    )
}

/// Whether libcuda has been found (used to decide whether driver error strings can be asked for).
pub fn driver_ready() -> bool {
    DRIVER_READY.load(Ordering::Acquire)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates_start_with_the_explicit_file_and_never_use_stubs() {
        std::env::set_var("MAGE_NVRTC_LIB", "/opt/x/libnvrtc.so.13");
        let nvrtc = nvrtc_candidates();
        std::env::remove_var("MAGE_NVRTC_LIB");
        assert_eq!(nvrtc[0], PathBuf::from("/opt/x/libnvrtc.so.13"));
        assert!(nvrtc.contains(&PathBuf::from("/usr/local/cuda/lib64/libnvrtc.so.13")));
        let driver = driver_candidates();
        assert!(driver.iter().all(|p| !p.to_string_lossy().contains("stubs")));
        assert!(driver.iter().any(|p| p.ends_with("libcuda.so.1")));
    }
}

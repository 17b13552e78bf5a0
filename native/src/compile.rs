//! NVRTC compilation to cubin, cached in memory and on disk.
//!
//! A cubin is identified by the sha256 of, in order, each length-prefixed (u64 little-endian):
//! a format tag (`CACHE_FORMAT`), NVRTC's version ("13.0"), the target ("sm_90"), every NVRTC
//! option, and the source text. The file `<cache dir>/<hex digest>.cubin` holds it, where the
//! cache dir is `$MAGE_CACHE_DIR/nvrtc`, else `$XDG_CACHE_HOME/mage/nvrtc`, else
//! `~/.cache/mage/nvrtc`. Writes go to a temporary file that is then renamed, so concurrent
//! processes never read half a cubin; a file that is not an ELF image is recompiled. The disk
//! cache is best effort: if it cannot be written, compilation still succeeds.

use std::collections::HashMap;
use std::ffi::{c_char, c_int, CString};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

use cudarc::nvrtc::sys::{self, nvrtcProgram, nvrtcResult};
use sha2::{Digest, Sha256};

use crate::error::{Error, Result};
use crate::libs;

/// Bumped whenever what goes into a cache entry changes meaning.
const CACHE_FORMAT: &str = "mage-nvrtc-cubin-v1";

/// Options every kernel is compiled with (besides the target). No fast math: it would replace
/// erff, division and square root by approximations that break the fp32 contracts.
pub const DEFAULT_OPTIONS: &[&str] = &["-std=c++17"];

/// One compilation: the source, its target and its options.
#[derive(Debug, Clone)]
pub struct Request {
    pub source: String,
    pub name: String,
    pub arch: u32,
    pub options: Vec<String>,
}

impl Request {
    pub fn new(source: &str, name: &str, arch: u32, options: Option<Vec<String>>) -> Result<Self> {
        if !(30..=1000).contains(&arch) {
            return Err(Error::Invalid(format!(
                "arch must be a compute capability as major*10+minor (e.g. 90 for sm_90), got {arch}"
            )));
        }
        let options = options.unwrap_or_else(|| DEFAULT_OPTIONS.iter().map(|s| s.to_string()).collect());
        if let Some(bad) = options.iter().find(|o| o.starts_with("-arch") || o.starts_with("--gpu-architecture")) {
            return Err(Error::Invalid(format!("the target comes from arch, not from an option: {bad:?}")));
        }
        if source.contains('\0') || name.contains('\0') || options.iter().any(|o| o.contains('\0')) {
            return Err(Error::Invalid("source, name and options must not contain NUL bytes".into()));
        }
        Ok(Request { source: source.to_string(), name: name.to_string(), arch, options })
    }

    pub fn target(&self) -> String {
        format!("sm_{}", self.arch)
    }

    /// Every option NVRTC receives, the target first.
    pub fn all_options(&self) -> Vec<String> {
        let mut all = vec![format!("--gpu-architecture={}", self.target())];
        all.extend(self.options.iter().cloned());
        all
    }

    /// The cache key (hex sha256) for this request compiled by NVRTC `version`.
    pub fn key(&self, version: (i32, i32)) -> String {
        let mut hasher = Sha256::new();
        let mut field = |bytes: &[u8]| {
            hasher.update((bytes.len() as u64).to_le_bytes());
            hasher.update(bytes);
        };
        field(CACHE_FORMAT.as_bytes());
        field(format!("{}.{}", version.0, version.1).as_bytes());
        field(self.target().as_bytes());
        for option in &self.options {
            field(option.as_bytes());
        }
        field(self.source.as_bytes());
        hasher.finalize().iter().map(|b| format!("{b:02x}")).collect()
    }
}

/// Where cubins are cached on disk.
pub fn cache_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("MAGE_CACHE_DIR").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir).join("nvrtc");
    }
    if let Some(dir) = std::env::var_os("XDG_CACHE_HOME").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir).join("mage").join("nvrtc");
    }
    let home = std::env::var_os("HOME").map(PathBuf::from).unwrap_or_else(std::env::temp_dir);
    home.join(".cache").join("mage").join("nvrtc")
}

fn nvrtc_check(call: &'static str, code: nvrtcResult) -> Result<()> {
    if code == nvrtcResult::NVRTC_SUCCESS {
        Ok(())
    } else {
        Err(Error::Nvrtc { call, code, log: String::new() })
    }
}

/// NVRTC's version, e.g. (13, 0).
pub fn nvrtc_version() -> Result<(i32, i32)> {
    libs::ensure_nvrtc()?;
    static VERSION: OnceLock<(i32, i32)> = OnceLock::new();
    if let Some(v) = VERSION.get() {
        return Ok(*v);
    }
    let (mut major, mut minor): (c_int, c_int) = (0, 0);
    // SAFETY: two valid out-pointers; libnvrtc is loaded (ensure_nvrtc).
    nvrtc_check("nvrtcVersion", unsafe { sys::nvrtcVersion(&mut major, &mut minor) })?;
    Ok(*VERSION.get_or_init(|| (major, minor)))
}

/// Destroys the program when dropped, on every path out of `compile_with_nvrtc`.
struct Program(nvrtcProgram);

impl Drop for Program {
    fn drop(&mut self) {
        // SAFETY: the handle came from nvrtcCreateProgram and is destroyed exactly once.
        unsafe {
            sys::nvrtcDestroyProgram(&mut self.0);
        }
    }
}

fn program_log(program: &Program) -> String {
    let mut size: usize = 0;
    // SAFETY: valid program and out-pointer.
    if unsafe { sys::nvrtcGetProgramLogSize(program.0, &mut size) } != nvrtcResult::NVRTC_SUCCESS || size == 0 {
        return String::new();
    }
    let mut log = vec![0u8; size];
    // SAFETY: `log` holds `size` bytes, the size NVRTC reported.
    if unsafe { sys::nvrtcGetProgramLog(program.0, log.as_mut_ptr() as *mut c_char) } != nvrtcResult::NVRTC_SUCCESS {
        return String::new();
    }
    String::from_utf8_lossy(&log).trim_end_matches('\0').to_string()
}

/// Compile with NVRTC, bypassing every cache.
pub fn compile_with_nvrtc(request: &Request) -> Result<Vec<u8>> {
    libs::ensure_nvrtc()?;
    let invalid = |_| Error::Invalid("source, name and options must not contain NUL bytes".into());
    let source = CString::new(request.source.as_str()).map_err(invalid)?;
    let name = CString::new(request.name.as_str()).map_err(invalid)?;
    let options: Vec<CString> =
        request.all_options().into_iter().map(CString::new).collect::<std::result::Result<_, _>>().map_err(invalid)?;
    let option_ptrs: Vec<*const c_char> = options.iter().map(|o| o.as_ptr()).collect();

    let mut handle: nvrtcProgram = std::ptr::null_mut();
    // SAFETY: NUL-terminated strings that outlive the program; no headers.
    let created = unsafe {
        sys::nvrtcCreateProgram(&mut handle, source.as_ptr(), name.as_ptr(), 0, std::ptr::null(), std::ptr::null())
    };
    nvrtc_check("nvrtcCreateProgram", created)?;
    let program = Program(handle);
    // SAFETY: valid program; `option_ptrs` points at `options`, alive for the call.
    let compiled = unsafe { sys::nvrtcCompileProgram(program.0, option_ptrs.len() as c_int, option_ptrs.as_ptr()) };
    if compiled != nvrtcResult::NVRTC_SUCCESS {
        return Err(Error::Nvrtc { call: "nvrtcCompileProgram", code: compiled, log: program_log(&program) });
    }
    let mut size: usize = 0;
    // SAFETY: valid, compiled program; out-pointer.
    nvrtc_check("nvrtcGetCUBINSize", unsafe { sys::nvrtcGetCUBINSize(program.0, &mut size) })?;
    let mut cubin = vec![0u8; size];
    // SAFETY: `cubin` holds the `size` bytes NVRTC reported.
    nvrtc_check("nvrtcGetCUBIN", unsafe { sys::nvrtcGetCUBIN(program.0, cubin.as_mut_ptr() as *mut c_char) })?;
    if !is_elf(&cubin) {
        return Err(Error::Invalid(format!(
            "NVRTC returned no cubin for {} (is the target a real sm_XX?)",
            request.target()
        )));
    }
    Ok(cubin)
}

fn is_elf(bytes: &[u8]) -> bool {
    bytes.len() > 4 && &bytes[..4] == b"\x7fELF"
}

fn read_cached(path: &PathBuf) -> Option<Vec<u8>> {
    std::fs::read(path).ok().filter(|bytes| is_elf(bytes))
}

fn write_cached(path: &PathBuf, cubin: &[u8]) {
    let Some(dir) = path.parent() else { return };
    if std::fs::create_dir_all(dir).is_err() {
        return;
    }
    let temporary = path.with_extension(format!("cubin.tmp.{}", std::process::id()));
    if std::fs::write(&temporary, cubin).is_ok() && std::fs::rename(&temporary, path).is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
}

static MEMORY: OnceLock<Mutex<HashMap<String, Arc<Vec<u8>>>>> = OnceLock::new();

/// The cubin for `request`: from memory, else from the disk cache, else from NVRTC (then cached
/// in both). Returns the cache key with it.
pub fn compile(request: &Request) -> Result<(String, Arc<Vec<u8>>)> {
    let key = request.key(nvrtc_version()?);
    let memory = MEMORY.get_or_init(|| Mutex::new(HashMap::new()));
    if let Some(cubin) = memory.lock().ok().and_then(|m| m.get(&key).cloned()) {
        return Ok((key, cubin));
    }
    let path = cache_dir().join(format!("{key}.cubin"));
    let cubin = match read_cached(&path) {
        Some(bytes) => bytes,
        None => {
            let bytes = compile_with_nvrtc(request)?;
            write_cached(&path, &bytes);
            bytes
        }
    };
    let cubin = Arc::new(cubin);
    if let Ok(mut m) = memory.lock() {
        m.insert(key.clone(), cubin.clone());
    }
    Ok((key, cubin))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(source: &str, arch: u32, options: Option<Vec<String>>) -> Request {
        Request::new(source, "t.cu", arch, options).expect("valid request")
    }

    #[test]
    fn keys_are_deterministic_and_cover_every_input() {
        let base = request("extern \"C\" __global__ void k() {}", 90, None);
        let key = base.key((13, 0));
        assert_eq!(key.len(), 64);
        assert_eq!(key, request("extern \"C\" __global__ void k() {}", 90, None).key((13, 0)));
        assert_ne!(key, request("extern \"C\" __global__ void k() { }", 90, None).key((13, 0)));
        assert_ne!(key, request("extern \"C\" __global__ void k() {}", 80, None).key((13, 0)));
        assert_ne!(key, request("extern \"C\" __global__ void k() {}", 90, Some(vec!["-G".into()])).key((13, 0)));
        assert_ne!(key, base.key((13, 1)));
        // Length prefixes: moving bytes between fields changes the key.
        let a = request("x", 90, Some(vec!["-Da".into(), "b".into()]));
        let b = request("x", 90, Some(vec!["-Dab".into()]));
        assert_ne!(a.key((13, 0)), b.key((13, 0)));
    }

    #[test]
    fn the_target_is_not_an_option() {
        assert!(Request::new("x", "t.cu", 90, Some(vec!["-arch=sm_80".into()])).is_err());
        assert!(Request::new("x", "t.cu", 9, None).is_err());
        assert!(Request::new("x\0y", "t.cu", 90, None).is_err());
        assert_eq!(request("x", 90, None).all_options(), vec!["--gpu-architecture=sm_90", "-std=c++17"]);
    }

    #[test]
    fn cache_dir_follows_mage_cache_dir() {
        std::env::set_var("MAGE_CACHE_DIR", "/tmp/mage-cache-test");
        let dir = cache_dir();
        std::env::remove_var("MAGE_CACHE_DIR");
        assert_eq!(dir, PathBuf::from("/tmp/mage-cache-test/nvrtc"));
    }

    /// Compiles for sm_90 when libnvrtc can be found (CI sets MAGE_NVRTC_LIB); skipped otherwise.
    #[test]
    fn compiles_a_kernel_to_a_cubin_and_reports_errors_with_the_log() {
        if libs::ensure_nvrtc().is_err() {
            eprintln!("skipped: libnvrtc not found");
            return;
        }
        let ok = request("extern \"C\" __global__ void k(float* p) { p[threadIdx.x] = erff(1.0f); }", 90, None);
        let cubin = compile_with_nvrtc(&ok).expect("compiles");
        assert!(is_elf(&cubin));
        let bad = request("extern \"C\" __global__ void k(float* p) { p[0] = undefined_name; }", 90, None);
        match compile_with_nvrtc(&bad) {
            Err(e @ Error::Nvrtc { .. }) => {
                assert_eq!(e.name(), "NVRTC_ERROR_COMPILATION");
                assert!(e.to_string().contains("undefined_name"), "{e}");
            }
            other => panic!("expected a compilation error, got {other:?}"),
        }
    }
}

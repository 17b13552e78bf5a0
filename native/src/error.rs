//! Errors of the native layer. Every CUDA failure keeps the name of the call that failed and
//! the CUDA error name (`CUDA_ERROR_INVALID_VALUE`, `NVRTC_ERROR_COMPILATION`), which the
//! Python exceptions carry in their message.

use std::fmt;

use cudarc::driver::sys::CUresult;
use cudarc::nvrtc::sys::nvrtcResult;

#[derive(Debug, Clone, PartialEq)]
pub enum Error {
    /// A driver API call returned an error.
    Driver { call: &'static str, code: CUresult, detail: String },
    /// An NVRTC call returned an error; for a failed compilation, `log` is NVRTC's log.
    Nvrtc { call: &'static str, code: nvrtcResult, log: String },
    /// libcuda or libnvrtc could not be loaded.
    Library(String),
    /// An argument from the caller is invalid (never reaches CUDA).
    Invalid(String),
}

pub type Result<T> = std::result::Result<T, Error>;

/// The CUDA name of a driver error code, e.g. `CUDA_ERROR_INVALID_VALUE`.
///
/// The enum variants of the bindings are named exactly like the C enumerators, so this needs
/// no driver: it is what `cuGetErrorName` returns, without loading libcuda.
pub fn driver_error_name(code: CUresult) -> String {
    format!("{code:?}")
}

/// The NVRTC name of an NVRTC result code, e.g. `NVRTC_ERROR_COMPILATION`.
pub fn nvrtc_error_name(code: nvrtcResult) -> String {
    format!("{code:?}")
}

impl Error {
    pub fn driver(call: &'static str, code: CUresult) -> Self {
        Error::Driver { call, code, detail: String::new() }
    }

    /// The CUDA error name, or a stable upper-case tag for errors that are not CUDA's.
    pub fn name(&self) -> String {
        match self {
            Error::Driver { code, .. } => driver_error_name(*code),
            Error::Nvrtc { code, .. } => nvrtc_error_name(*code),
            Error::Library(_) => "LIBRARY_NOT_FOUND".to_string(),
            Error::Invalid(_) => "INVALID_ARGUMENT".to_string(),
        }
    }

    /// Adds what was being done (a kernel name, a device) to a driver error's message.
    pub fn with_detail(self, text: impl Into<String>) -> Self {
        match self {
            Error::Driver { call, code, .. } => Error::Driver { call, code, detail: text.into() },
            other => other,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Driver { call, code, detail } => {
                write!(f, "{call} failed with {}", driver_error_name(*code))?;
                if let Some(text) = crate::driver::error_string(*code) {
                    write!(f, " ({text})")?;
                }
                if !detail.is_empty() {
                    write!(f, ": {detail}")?;
                }
                Ok(())
            }
            Error::Nvrtc { call, code, log } => {
                write!(f, "{call} failed with {}", nvrtc_error_name(*code))?;
                if !log.trim().is_empty() {
                    write!(f, "\n{}", log.trim_end())?;
                }
                Ok(())
            }
            Error::Library(text) | Error::Invalid(text) => f.write_str(text),
        }
    }
}

impl std::error::Error for Error {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn driver_error_names_are_the_c_enumerators() {
        assert_eq!(driver_error_name(CUresult::CUDA_ERROR_INVALID_VALUE), "CUDA_ERROR_INVALID_VALUE");
        assert_eq!(driver_error_name(CUresult::CUDA_ERROR_LAUNCH_FAILED), "CUDA_ERROR_LAUNCH_FAILED");
        assert_eq!(driver_error_name(CUresult::CUDA_ERROR_NO_DEVICE), "CUDA_ERROR_NO_DEVICE");
        assert_eq!(nvrtc_error_name(nvrtcResult::NVRTC_ERROR_COMPILATION), "NVRTC_ERROR_COMPILATION");
    }

    #[test]
    fn messages_name_the_call_and_the_error() {
        let error = Error::Nvrtc {
            call: "nvrtcCompileProgram",
            code: nvrtcResult::NVRTC_ERROR_COMPILATION,
            log: "k.cu(1): error: identifier \"y\" is undefined\n".into(),
        };
        let text = error.to_string();
        assert!(text.starts_with("nvrtcCompileProgram failed with NVRTC_ERROR_COMPILATION\n"), "{text}");
        assert!(text.contains("identifier \"y\" is undefined"));
        assert_eq!(error.name(), "NVRTC_ERROR_COMPILATION");
        assert_eq!(Error::Library("x".into()).name(), "LIBRARY_NOT_FOUND");
    }
}

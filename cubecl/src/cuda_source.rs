//! The CUDA C++ that CubeCL generates for the kernels, produced on the CPU (no driver, no GPU).
//!
//! The `#[cube(launch_unchecked)]` macro's kernel struct needs a live `ComputeClient` (its
//! `define()` reads `client.properties()`), so it cannot be built without a device. This module
//! does what that `define()` does by hand, with public CubeCL API: a `KernelBuilder` with
//! `CudaRuntime::target_properties()`, the arguments expanded in declaration order with
//! `LaunchArg::expand`, the kernel body from the macro-generated `expand` function, then
//! `CudaCompiler` (= `cubecl_cpp::CppCompiler<CudaDialect<CudaWmmaCompiler>>`), the same
//! compiler cubecl-cuda runs before handing the text to NVRTC.

use cubecl::prelude::*;
use cubecl_core::prelude::ArrayCompilationArg;
use cubecl_cpp::shared::{CompilationOptions, CppSupportedFeatures};
use cubecl_cuda::{CudaCompiler, CudaRuntime};
use cubecl_runtime::compiler::Compiler;
use cubecl_runtime::kernel::KernelDefinition;

use crate::{kernels, Error};

/// The compilation options cubecl-cuda 0.10.0 derives for a device of compute capability
/// `arch` (e.g. 90 for H100/H200), mirrored from `cubecl-cuda/src/runtime.rs`
/// (`DeviceService::init`): fast_math (only used where a kernel opts in), grid_constants
/// (sm_70+), fast_tanh (sm_75+ with CUDA >= 12.8 bindings), clusters + elect_sync (sm_90+).
pub fn compilation_options(arch: u32) -> CompilationOptions {
    CompilationOptions {
        warp_size: 32,
        supports_features: CppSupportedFeatures {
            fast_math: true,
            grid_constants: arch >= 70,
            fast_tanh: arch >= 75,
            clusters: arch >= 90,
            elect_sync: arch >= 90,
        },
    }
}

fn builder() -> KernelBuilder {
    let mut builder = KernelBuilder::default();
    builder.runtime_properties(CudaRuntime::target_properties());
    AddressType::U32.register(&mut builder.scope);
    builder
}

fn settings(name: &str, block: u32) -> KernelSettings {
    KernelSettings::default()
        .cube_dim(CubeDim::new_1d(block))
        .address_type(AddressType::U32)
        .kernel_name(name)
}

const ARRAY: ArrayCompilationArg = ArrayCompilationArg { inplace: None };

/// IR of `bias_gelu_kernel` with `block` units per cube.
pub fn bias_gelu_definition(block: u32) -> KernelDefinition {
    let mut b = builder();
    let x = <Array<f32> as LaunchArg>::expand(&ARRAY, &mut b);
    let bias = <Array<f32> as LaunchArg>::expand(&ARRAY, &mut b);
    let out = <Array<f32> as LaunchArg>::expand_output(&ARRAY, &mut b);
    let rows = <u32 as LaunchArg>::expand(&(), &mut b);
    let cols = <u32 as LaunchArg>::expand(&(), &mut b);
    kernels::bias_gelu_kernel::expand(&mut b.scope, x, bias, out, rows, cols);
    b.build(settings("bias_gelu_kernel", block))
}

/// IR of `layernorm_kernel` with `block` (power of two) units per cube.
pub fn layernorm_definition(block: u32) -> KernelDefinition {
    let mut b = builder();
    let x = <Array<f32> as LaunchArg>::expand(&ARRAY, &mut b);
    let weight = <Array<f32> as LaunchArg>::expand(&ARRAY, &mut b);
    let bias = <Array<f32> as LaunchArg>::expand(&ARRAY, &mut b);
    let out = <Array<f32> as LaunchArg>::expand_output(&ARRAY, &mut b);
    let rows = <u32 as LaunchArg>::expand(&(), &mut b);
    let cols = <u32 as LaunchArg>::expand(&(), &mut b);
    let eps = <f32 as LaunchArg>::expand(&(), &mut b);
    kernels::layernorm_kernel::expand(&mut b.scope, x, weight, bias, out, rows, cols, eps, block);
    b.build(settings("layernorm_kernel", block))
}

/// A kernel as CUDA C++ plus what a launcher needs besides the source.
#[derive(Debug, Clone)]
pub struct CudaKernelSource {
    /// `extern "C"` entry point name.
    pub entrypoint: String,
    /// Full translation unit (starts with `#include <cuda_runtime.h>`).
    pub source: String,
    /// Dynamic shared memory to pass at launch (CubeCL puts all shared arrays in one
    /// `extern __shared__` buffer).
    pub shared_mem_bytes: usize,
    /// Units per cube the source was specialised for (`__launch_bounds__`).
    pub block: u32,
}

/// Compiles a definition to CUDA C++ for compute capability `arch`.
pub fn to_cuda(def: KernelDefinition, arch: u32) -> Result<CudaKernelSource, Error> {
    let entrypoint = def.options.kernel_name.clone();
    let block = def.cube_dim.x * def.cube_dim.y * def.cube_dim.z;
    let mut compiler = CudaCompiler::default();
    let repr = compiler
        .compile(
            def,
            &compilation_options(arch),
            ExecutionMode::Unchecked,
            AddressType::U32.unsigned_type(),
        )
        .map_err(|e| Error::Compile(format!("{e:?}")))?;
    Ok(CudaKernelSource {
        entrypoint,
        source: repr.to_string(),
        shared_mem_bytes: repr.shared_memory_size(),
        block,
    })
}

/// CUDA C++ for bias_gelu (256 units per cube, as launched).
pub fn bias_gelu_cuda(arch: u32) -> Result<CudaKernelSource, Error> {
    to_cuda(
        bias_gelu_definition(crate::geometry::ELEMENTWISE_BLOCK),
        arch,
    )
}

/// CUDA C++ for layernorm with `block` units per cube (block is a comptime parameter, so
/// each block size is its own kernel).
pub fn layernorm_cuda(block: u32, arch: u32) -> Result<CudaKernelSource, Error> {
    if !block.is_power_of_two() || !(32..=crate::geometry::LAYERNORM_MAX_BLOCK).contains(&block) {
        return Err(Error::Invalid(format!(
            "block {block} is not a power of two in 32..={}",
            crate::geometry::LAYERNORM_MAX_BLOCK
        )));
    }
    to_cuda(layernorm_definition(block), arch)
}

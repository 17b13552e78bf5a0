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

// The kernels' `N: Size` (floats a vector) as a value known when the kernel is built, as the
// launch macro registers it.
define_size!(VectorSize);

/// An f32 array of `VectorSize` lanes (`Array<Vector<f32, N>>` in the kernel).
type Floats = Array<Vector<f32, VectorSize>>;

/// What a kernel with `vector` floats a load adds to its entry point and file names: `_x4` for
/// float4, nothing for scalar.
pub fn vector_suffix(vector: usize) -> String {
    match vector {
        1 => String::new(),
        _ => format!("_x{vector}"),
    }
}

/// IR of `bias_gelu_kernel` with `block` units per cube and `vector` floats a load.
pub fn bias_gelu_definition(block: u32, vector: usize) -> KernelDefinition {
    let mut b = builder();
    b.scope.register_size::<VectorSize>(vector);
    let x = <Floats as LaunchArg>::expand(&ARRAY, &mut b);
    let bias = <Floats as LaunchArg>::expand(&ARRAY, &mut b);
    let out = <Floats as LaunchArg>::expand_output(&ARRAY, &mut b);
    let rows = <u32 as LaunchArg>::expand(&(), &mut b);
    let cols = <u32 as LaunchArg>::expand(&(), &mut b);
    kernels::bias_gelu_kernel::expand::<VectorSize>(&mut b.scope, vector, x, bias, out, rows, cols);
    b.build(settings(
        &format!("bias_gelu_kernel{}", vector_suffix(vector)),
        block,
    ))
}

/// IR of `layernorm_kernel` with `block` (power of two) units per cube and `vector` floats a load.
pub fn layernorm_definition(block: u32, vector: usize) -> KernelDefinition {
    let mut b = builder();
    b.scope.register_size::<VectorSize>(vector);
    let x = <Floats as LaunchArg>::expand(&ARRAY, &mut b);
    let weight = <Floats as LaunchArg>::expand(&ARRAY, &mut b);
    let bias = <Floats as LaunchArg>::expand(&ARRAY, &mut b);
    let out = <Floats as LaunchArg>::expand_output(&ARRAY, &mut b);
    let rows = <u32 as LaunchArg>::expand(&(), &mut b);
    let cols = <u32 as LaunchArg>::expand(&(), &mut b);
    let eps = <f32 as LaunchArg>::expand(&(), &mut b);
    kernels::layernorm_kernel::expand::<VectorSize>(
        &mut b.scope,
        vector,
        x,
        weight,
        bias,
        out,
        rows,
        cols,
        eps,
        block,
    );
    b.build(settings(
        &format!("layernorm_kernel{}", vector_suffix(vector)),
        block,
    ))
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

/// CUDA C++ for bias_gelu (256 units per cube, as launched) with `vector` floats a load.
pub fn bias_gelu_cuda(vector: usize, arch: u32) -> Result<CudaKernelSource, Error> {
    check_vector(vector)?;
    to_cuda(
        bias_gelu_definition(crate::geometry::ELEMENTWISE_BLOCK, vector),
        arch,
    )
}

/// CUDA C++ for layernorm with `block` units per cube and `vector` floats a load (both are
/// comptime parameters, so each pair is its own kernel).
pub fn layernorm_cuda(block: u32, vector: usize, arch: u32) -> Result<CudaKernelSource, Error> {
    check_vector(vector)?;
    if !block.is_power_of_two() || !(32..=crate::geometry::LAYERNORM_MAX_BLOCK).contains(&block) {
        return Err(Error::Invalid(format!(
            "block {block} is not a power of two in 32..={}",
            crate::geometry::LAYERNORM_MAX_BLOCK
        )));
    }
    to_cuda(layernorm_definition(block, vector), arch)
}

fn check_vector(vector: usize) -> Result<(), Error> {
    if crate::geometry::VECTOR_SIZES.contains(&vector) {
        return Ok(());
    }
    Err(Error::Invalid(format!(
        "vector size {vector} is not one of {:?}",
        crate::geometry::VECTOR_SIZES
    )))
}

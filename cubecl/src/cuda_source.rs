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
use cubecl_cpp::cuda::mma::{CudaWmmaCompiler, PtxWmmaCompiler};
use cubecl_cpp::{ComputeKernel, Dialect};
use cubecl_cpp::cuda::CudaDialect;
use cubecl_cpp::shared::{CompilationOptions, CppCompiler, CppSupportedFeatures};
use cubecl_cuda::CudaRuntime;
use cubecl_runtime::compiler::Compiler;
use cubecl_runtime::kernel::KernelDefinition;

use crate::{kernels, matmul, matmul_tf32, neighbor_agg, softmax, triangle, Error};

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
    to_cuda_with::<CudaWmmaCompiler>(def, arch)
}

/// [`to_cuda`] with the MMA lowering `W` (cubecl-cuda's `CudaCompiler` is `W` = CudaWmmaCompiler).
fn to_cuda_with<W>(def: KernelDefinition, arch: u32) -> Result<CudaKernelSource, Error>
where
    CppCompiler<CudaDialect<W>>: Compiler<
            Representation = ComputeKernel<CudaDialect<W>>,
            CompilationOptions = CompilationOptions,
        > + Default,
    CudaDialect<W>: Dialect,
{
    let entrypoint = def.options.kernel_name.clone();
    let block = def.cube_dim.x * def.cube_dim.y * def.cube_dim.z;
    let mut compiler = CppCompiler::<CudaDialect<W>>::default();
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

/// IR of `matmul_kernel` for `tile × tile` blocks of c (256 units a cube).
pub fn matmul_definition(tile: u32) -> KernelDefinition {
    let mut b = builder();
    let x = <Array<f32> as LaunchArg>::expand(&ARRAY, &mut b);
    let y = <Array<f32> as LaunchArg>::expand(&ARRAY, &mut b);
    let out = <Array<f32> as LaunchArg>::expand_output(&ARRAY, &mut b);
    let m = <u32 as LaunchArg>::expand(&(), &mut b);
    let n = <u32 as LaunchArg>::expand(&(), &mut b);
    let k = <u32 as LaunchArg>::expand(&(), &mut b);
    matmul::matmul_kernel::expand(&mut b.scope, x, y, out, m, n, k, tile);
    b.build(settings(&format!("matmul_kernel_t{tile}"), matmul::THREADS))
}

/// IR of `matmul_tf32_kernel` (128 × 128 tiles of c, 256 units a cube, wmma m16n16k8).
pub fn matmul_tf32_definition() -> KernelDefinition {
    let mut b = builder();
    let x = <Array<f32> as LaunchArg>::expand(&ARRAY, &mut b);
    let y = <Array<f32> as LaunchArg>::expand(&ARRAY, &mut b);
    let out = <Array<f32> as LaunchArg>::expand_output(&ARRAY, &mut b);
    let m = <u32 as LaunchArg>::expand(&(), &mut b);
    let n = <u32 as LaunchArg>::expand(&(), &mut b);
    let k = <u32 as LaunchArg>::expand(&(), &mut b);
    matmul_tf32::matmul_tf32_kernel::expand(&mut b.scope, x, y, out, m, n, k);
    b.build(settings("matmul_tf32_kernel", matmul_tf32::THREADS))
}

/// IR of `triangle_kernel` (outgoing or incoming) for `tile × tile` blocks of (i, j).
pub fn triangle_definition(tile: u32, outgoing: bool) -> KernelDefinition {
    let mut b = builder();
    let x = <Array<f32> as LaunchArg>::expand(&ARRAY, &mut b);
    let y = <Array<f32> as LaunchArg>::expand(&ARRAY, &mut b);
    let out = <Array<f32> as LaunchArg>::expand_output(&ARRAY, &mut b);
    let n = <u32 as LaunchArg>::expand(&(), &mut b);
    let channels = <u32 as LaunchArg>::expand(&(), &mut b);
    triangle::triangle_kernel::expand(&mut b.scope, x, y, out, n, channels, tile, outgoing);
    let variant = if outgoing { "outgoing" } else { "incoming" };
    b.build(settings(
        &format!("triangle_{variant}_kernel_t{tile}"),
        triangle::threads(tile),
    ))
}

/// The variant name of neighbor_agg's `mean` flag.
pub fn reduction_name(mean: bool) -> &'static str {
    if mean {
        "mean"
    } else {
        "sum"
    }
}

/// IR of `neighbor_agg_kernel` with `I` indices (i32 or i64), sum or mean, `vector` floats a load.
pub fn neighbor_agg_definition<I: Int>(index: &str, mean: bool, vector: usize) -> KernelDefinition {
    let mut b = builder();
    b.scope.register_size::<VectorSize>(vector);
    let rowptr = <Array<I> as LaunchArg>::expand(&ARRAY, &mut b);
    let col = <Array<I> as LaunchArg>::expand(&ARRAY, &mut b);
    let x = <Floats as LaunchArg>::expand(&ARRAY, &mut b);
    let out = <Floats as LaunchArg>::expand_output(&ARRAY, &mut b);
    let nodes = <u32 as LaunchArg>::expand(&(), &mut b);
    let features = <u32 as LaunchArg>::expand(&(), &mut b);
    let group = <u32 as LaunchArg>::expand(&(), &mut b);
    let long_row = <u32 as LaunchArg>::expand(&(), &mut b);
    neighbor_agg::neighbor_agg_kernel::expand::<I, VectorSize>(
        &mut b.scope,
        vector,
        rowptr,
        col,
        x,
        out,
        nodes,
        features,
        group,
        long_row,
        mean,
    );
    b.build(settings(
        &format!(
            "neighbor_agg_{}_{index}_kernel{}",
            reduction_name(mean),
            vector_suffix(vector)
        ),
        neighbor_agg::THREADS,
    ))
}

/// IR of `softmax_kernel` (a cube of 256 units per row).
pub fn softmax_definition() -> KernelDefinition {
    let mut b = builder();
    let x = <Array<f32> as LaunchArg>::expand(&ARRAY, &mut b);
    let out = <Array<f32> as LaunchArg>::expand_output(&ARRAY, &mut b);
    let rows = <u32 as LaunchArg>::expand(&(), &mut b);
    let cols = <u32 as LaunchArg>::expand(&(), &mut b);
    softmax::softmax_kernel::expand(&mut b.scope, x, out, rows, cols, softmax::THREADS);
    b.build(settings("softmax_kernel", softmax::THREADS))
}

/// CUDA C++ for matmul with `tile × tile` blocks (one of [`matmul::TILES`]).
pub fn matmul_cuda(tile: u32, arch: u32) -> Result<CudaKernelSource, Error> {
    if !matmul::TILES.contains(&tile) {
        return Err(Error::Invalid(format!(
            "matmul tile {tile} is not one of {:?}",
            matmul::TILES
        )));
    }
    to_cuda(matmul_definition(tile), arch)
}

/// CUDA C++ for the tf32 tensor-core matmul, with the `ptx-wmma` feature's MMA lowering (cmma as
/// inline PTX: `wmma.load`, `wmma.mma.sync`): the default one calls nvcuda::wmma and so needs
/// `<mma.h>`, a CUDA toolkit header NVRTC does not carry (this machine's venv has no include/crt).
/// Chosen for this kernel only; the feature would switch every kernel.
pub fn matmul_tf32_cuda(arch: u32) -> Result<CudaKernelSource, Error> {
    to_cuda_with::<PtxWmmaCompiler>(matmul_tf32_definition(), arch)
}

/// CUDA C++ for triangle with `tile × tile` blocks (one of [`triangle::TILES`]).
pub fn triangle_cuda(tile: u32, outgoing: bool, arch: u32) -> Result<CudaKernelSource, Error> {
    if !triangle::TILES.contains(&tile) {
        return Err(Error::Invalid(format!(
            "triangle tile {tile} is not one of {:?}",
            triangle::TILES
        )));
    }
    to_cuda(triangle_definition(tile, outgoing), arch)
}

/// CUDA C++ for neighbor_agg with int32 (`wide` false) or int64 indices.
pub fn neighbor_agg_cuda(
    wide: bool,
    mean: bool,
    vector: usize,
    arch: u32,
) -> Result<CudaKernelSource, Error> {
    check_vector(vector)?;
    let definition = if wide {
        neighbor_agg_definition::<i64>("i64", mean, vector)
    } else {
        neighbor_agg_definition::<i32>("i32", mean, vector)
    };
    to_cuda(definition, arch)
}

/// CUDA C++ for softmax.
pub fn softmax_cuda(arch: u32) -> Result<CudaKernelSource, Error> {
    to_cuda(softmax_definition(), arch)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_memory_is_what_the_launchers_reserve() {
        for tile in matmul::TILES {
            assert_eq!(
                matmul_cuda(tile, 90).unwrap().shared_mem_bytes,
                matmul::shared_bytes(tile)
            );
        }
        assert_eq!(
            matmul_tf32_cuda(90).unwrap().shared_mem_bytes,
            matmul_tf32::shared_bytes()
        );
        for tile in triangle::TILES {
            let source = triangle_cuda(tile, true, 90).unwrap();
            assert_eq!(source.shared_mem_bytes, triangle::shared_bytes(tile));
        }
        assert_eq!(
            softmax_cuda(90).unwrap().shared_mem_bytes,
            4 * softmax::THREADS as usize
        );
        // Phase 2's partial sums: a vector of floats a unit.
        for vector in crate::geometry::VECTOR_SIZES {
            let source = neighbor_agg_cuda(true, true, vector, 90).unwrap();
            assert_eq!(
                source.shared_mem_bytes,
                4 * vector * neighbor_agg::THREADS as usize
            );
        }
    }
}

//! Runtime-generic launchers: validate, compute geometry, launch. They only enqueue work on
//! the client's stream; call `client.sync()` / read back to wait.

use cubecl::prelude::*;
use cubecl::server::Handle;

use crate::{check_bias_gelu, check_layernorm, geometry, kernels, Error};

fn elems(h: &Handle) -> usize {
    (h.size_in_used() / 4) as usize
}

/// Units per cube actually used by [`bias_gelu`] on this client.
pub fn bias_gelu_block<R: Runtime>(client: &ComputeClient<R>) -> u32 {
    geometry::ELEMENTWISE_BLOCK.min(client.properties().hardware.max_units_per_cube)
}

/// out[r, c] = gelu(x[r, c] + bias[c]); `x`, `out`: rows*cols f32, `bias`: cols f32. Launches
/// the float4 kernel when `cols` is a multiple of 4, the scalar one otherwise.
pub fn bias_gelu<R: Runtime>(
    client: &ComputeClient<R>,
    x: &Handle,
    bias: &Handle,
    out: &Handle,
    rows: usize,
    cols: usize,
) -> Result<(), Error> {
    let n = check_bias_gelu(rows, cols, elems(x), elems(bias), elems(out))?;
    let block = bias_gelu_block(client);
    let vector = geometry::vector_size(cols);
    let g = geometry::columns_by_rows(
        rows,
        cols / vector,
        block,
        client.properties().hardware.max_cube_count,
    )?;
    // SAFETY: lengths checked above; the kernel guards its vector column < cols / vector and
    // row < rows.
    unsafe {
        kernels::bias_gelu_kernel::launch_unchecked::<R>(
            client,
            CubeCount::Static(g.cubes_x, g.cubes_y, 1),
            CubeDim::new_1d(g.block),
            vector,
            ArrayArg::from_raw_parts(x.clone(), n),
            ArrayArg::from_raw_parts(bias.clone(), cols),
            ArrayArg::from_raw_parts(out.clone(), n),
            rows as u32,
            cols as u32,
        );
    }
    Ok(())
}

/// Units per cube used by [`layernorm`] for rows of `cols` elements on this client.
pub fn layernorm_block<R: Runtime>(client: &ComputeClient<R>, cols: usize) -> Result<u32, Error> {
    geometry::layernorm_block(cols, client.properties().hardware.max_units_per_cube)
}

/// Per-row layernorm; `x`, `out`: rows*cols f32, `weight`, `bias`: cols f32. Launches the float4
/// kernel when `cols` is a multiple of 4, the scalar one otherwise.
#[allow(clippy::too_many_arguments)]
pub fn layernorm<R: Runtime>(
    client: &ComputeClient<R>,
    x: &Handle,
    weight: &Handle,
    bias: &Handle,
    out: &Handle,
    rows: usize,
    cols: usize,
    eps: f32,
) -> Result<(), Error> {
    let n = check_layernorm(
        rows,
        cols,
        elems(x),
        elems(weight),
        elems(bias),
        elems(out),
        eps,
    )?;
    let block = layernorm_block(client, cols)?;
    let g = geometry::per_row(rows, block, client.properties().hardware.max_cube_count)?;
    // SAFETY: lengths checked above; the kernel reads row min(cube, 0 if past the end) and only
    // writes rows < rows, columns < cols.
    unsafe {
        kernels::layernorm_kernel::launch_unchecked::<R>(
            client,
            CubeCount::Static(g.cubes_x, g.cubes_y, 1),
            CubeDim::new_1d(g.block),
            geometry::vector_size(cols),
            ArrayArg::from_raw_parts(x.clone(), n),
            ArrayArg::from_raw_parts(weight.clone(), cols),
            ArrayArg::from_raw_parts(bias.clone(), cols),
            ArrayArg::from_raw_parts(out.clone(), n),
            rows as u32,
            cols as u32,
            eps,
            g.block,
        );
    }
    Ok(())
}

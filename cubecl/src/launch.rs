//! Runtime-generic launchers: validate, compute geometry, launch. They only enqueue work on
//! the client's stream; call `client.sync()` / read back to wait.

use cubecl::prelude::*;
use cubecl::server::Handle;

use crate::{
    check_2d, check_bias_gelu, check_layernorm, check_len, geometry, kernels, matmul, neighbor_agg,
    softmax, triangle, Error,
};

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

fn cube_dim(units: u32) -> CubeDim {
    CubeDim::new_1d(units)
}

/// Refuses a kernel whose cube needs more shared memory than the device has (a launch would
/// fail without saying so on some backends: lavapipe leaves the output unwritten).
fn check_shared<R: Runtime>(
    client: &ComputeClient<R>,
    kernel: &str,
    bytes: usize,
) -> Result<(), Error> {
    let max = client.properties().hardware.max_shared_memory_size;
    if bytes > max {
        return Err(Error::Invalid(format!(
            "{kernel} needs {bytes} bytes of shared memory a cube, the device has {max}"
        )));
    }
    Ok(())
}

/// c = a · b; `a`: m×k, `b`: k×n, `c`: m×n f32, with `tile × tile` blocks of c (one of
/// `matmul::TILES`).
#[allow(clippy::too_many_arguments)]
pub fn matmul<R: Runtime>(
    client: &ComputeClient<R>,
    a: &Handle,
    b: &Handle,
    c: &Handle,
    m: usize,
    n: usize,
    k: usize,
    tile: u32,
) -> Result<(), Error> {
    let (a_len, b_len) = (check_2d(m, k)?, check_2d(k, n)?);
    let c_len = check_2d(m, n)?;
    check_len("a", elems(a), a_len)?;
    check_len("b", elems(b), b_len)?;
    check_len("c", elems(c), c_len)?;
    if !matmul::TILES.contains(&tile) {
        return Err(Error::Invalid(format!(
            "tile {tile} is not one of {:?}",
            matmul::TILES
        )));
    }
    check_shared(
        client,
        &format!("matmul tile {tile}"),
        matmul::shared_bytes(tile),
    )?;
    let cubes = (
        n.div_ceil(tile as usize) as u32,
        m.div_ceil(tile as usize) as u32,
    );
    // SAFETY: lengths checked above; the kernel guards every load and store against m, n, k.
    unsafe {
        matmul::matmul_kernel::launch_unchecked::<R>(
            client,
            CubeCount::Static(cubes.0, cubes.1, 1),
            cube_dim(matmul::THREADS),
            ArrayArg::from_raw_parts(a.clone(), a_len),
            ArrayArg::from_raw_parts(b.clone(), b_len),
            ArrayArg::from_raw_parts(c.clone(), c_len),
            m as u32,
            n as u32,
            k as u32,
            tile,
        );
    }
    Ok(())
}

/// Triangle contraction of `a`, `b` (batch × n × n × channels f32) into `out`, outgoing or
/// incoming, with `tile × tile` blocks of (i, j) (one of `triangle::TILES`).
#[allow(clippy::too_many_arguments)]
pub fn triangle<R: Runtime>(
    client: &ComputeClient<R>,
    a: &Handle,
    b: &Handle,
    out: &Handle,
    batch: usize,
    n: usize,
    channels: usize,
    outgoing: bool,
    tile: u32,
) -> Result<(), Error> {
    let len = check_2d(batch * n, n * channels)?;
    check_len("a", elems(a), len)?;
    check_len("b", elems(b), len)?;
    check_len("out", elems(out), len)?;
    if !triangle::TILES.contains(&tile) {
        return Err(Error::Invalid(format!(
            "tile {tile} is not one of {:?}",
            triangle::TILES
        )));
    }
    check_shared(
        client,
        &format!("triangle tile {tile}"),
        triangle::shared_bytes(tile),
    )?;
    let tiles = n.div_ceil(tile as usize);
    let groups = channels.div_ceil(triangle::CHANNELS as usize);
    // SAFETY: lengths checked above; the kernel guards every load and store against n and channels.
    unsafe {
        triangle::triangle_kernel::launch_unchecked::<R>(
            client,
            CubeCount::Static((tiles * tiles) as u32, groups as u32, batch as u32),
            cube_dim(triangle::threads(tile)),
            ArrayArg::from_raw_parts(a.clone(), len),
            ArrayArg::from_raw_parts(b.clone(), len),
            ArrayArg::from_raw_parts(out.clone(), len),
            n as u32,
            channels as u32,
            tile,
            outgoing,
        );
    }
    Ok(())
}

/// Units a neighbor_agg group for rows of `vectors` loads: the next power of two at or above
/// it, at most 32 (native.py's T).
pub fn neighbor_agg_group(vectors: usize) -> u32 {
    vectors.max(1).next_power_of_two().min(32) as u32
}

/// Sum (or mean) over the CSR graph (`rowptr`: nodes + 1, `col`: edges, both of `I`) of `x`'s
/// rows (sources × features f32) into `out` (nodes × features); rows of more than `long_row`
/// edges are summed by a whole cube (`neighbor_agg::NO_LONG_ROWS`: none). The indices are
/// trusted (Mage validates the graph before the first launch).
#[allow(clippy::too_many_arguments)]
pub fn neighbor_agg<R: Runtime, I: Int + CubeElement>(
    client: &ComputeClient<R>,
    rowptr: &Handle,
    col: &Handle,
    x: &Handle,
    out: &Handle,
    nodes: usize,
    edges: usize,
    sources: usize,
    features: usize,
    long_row: u32,
    mean: bool,
) -> Result<(), Error> {
    let x_len = check_2d(sources, features)?;
    let out_len = check_2d(nodes, features)?;
    let index = core::mem::size_of::<I>() as u64;
    for (name, handle, want) in [("rowptr", rowptr, nodes + 1), ("col", col, edges)] {
        let got = (handle.size_in_used() / index) as usize;
        check_len(name, got, want)?;
    }
    check_len("x", elems(x), x_len)?;
    check_len("out", elems(out), out_len)?;
    let vector = geometry::vector_size(features);
    let group = neighbor_agg_group(features / vector);
    let cubes = nodes.div_ceil((neighbor_agg::THREADS / group) as usize) as u64;
    let max = client.properties().hardware.max_cube_count;
    let (cubes_x, cubes_y) = geometry::grid_2d(cubes, max.0, max.1)?;
    // SAFETY: lengths checked above; rows past `nodes` write nothing; the graph's indices are in
    // range (the caller's contract).
    unsafe {
        neighbor_agg::neighbor_agg_kernel::launch_unchecked::<I, R>(
            client,
            CubeCount::Static(cubes_x, cubes_y, 1),
            cube_dim(neighbor_agg::THREADS),
            vector,
            ArrayArg::from_raw_parts(rowptr.clone(), nodes + 1),
            ArrayArg::from_raw_parts(col.clone(), edges),
            ArrayArg::from_raw_parts(x.clone(), x_len),
            ArrayArg::from_raw_parts(out.clone(), out_len),
            nodes as u32,
            features as u32,
            group,
            long_row,
            mean,
        );
    }
    Ok(())
}

/// Row-wise softmax; `x`, `out`: rows × cols f32.
pub fn softmax<R: Runtime>(
    client: &ComputeClient<R>,
    x: &Handle,
    out: &Handle,
    rows: usize,
    cols: usize,
) -> Result<(), Error> {
    let len = check_2d(rows, cols)?;
    check_len("x", elems(x), len)?;
    check_len("out", elems(out), len)?;
    let g = geometry::per_row(
        rows,
        softmax::THREADS,
        client.properties().hardware.max_cube_count,
    )?;
    // SAFETY: lengths checked above; cubes past the last row read row 0 and write nothing.
    unsafe {
        softmax::softmax_kernel::launch_unchecked::<R>(
            client,
            CubeCount::Static(g.cubes_x, g.cubes_y, 1),
            cube_dim(g.block),
            ArrayArg::from_raw_parts(x.clone(), len),
            ArrayArg::from_raw_parts(out.clone(), len),
            rows as u32,
            cols as u32,
            g.block,
        );
    }
    Ok(())
}

//! Launch geometry: cube (workgroup) sizes and 2-D cube counts. Pure functions, no GPU.

use crate::Error;

/// Units per cube for the elementwise `bias_gelu` kernel.
pub const ELEMENTWISE_BLOCK: u32 = 256;

/// Floats a vector kernel moves per load and store (float4: 16 bytes).
pub const VECTOR: usize = 4;

/// The vector sizes the kernels are built for: the float4 kernels and the scalar fallback.
pub const VECTOR_SIZES: [usize; 2] = [1, VECTOR];

/// Floats a load for rows of `cols`: [`VECTOR`] when a row is whole vectors, else 1 (the scalar
/// kernels). The buffers must also start on a `VECTOR * 4`-byte boundary: CubeCL's allocations
/// do (its memory alignment, checked in the lavapipe test); a torch tensor's `data_ptr()` need
/// not, which Mage's Python launchers check.
pub fn vector_size(cols: usize) -> usize {
    if cols.is_multiple_of(VECTOR) {
        VECTOR
    } else {
        1
    }
}

/// A cube count `(x, y)` and a 1-D cube dim.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Geometry {
    pub cubes_x: u32,
    pub cubes_y: u32,
    pub block: u32,
}

impl Geometry {
    pub fn total_cubes(&self) -> u64 {
        self.cubes_x as u64 * self.cubes_y as u64
    }
}

/// Spreads `cubes` cubes over a 2-D grid with at most `max_x` per row and `max_y` rows:
/// `x = min(cubes, max_x)`, `y = ceil(cubes / x)`. The kernels compute the linear cube index
/// as `y * count_x + x` and discard indices `>= cubes`.
pub fn grid_2d(cubes: u64, max_x: u32, max_y: u32) -> Result<(u32, u32), Error> {
    if cubes == 0 {
        return Err(Error::Invalid("empty launch".into()));
    }
    if max_x == 0 || max_y == 0 {
        return Err(Error::Invalid("max cube count is zero".into()));
    }
    let x = cubes.min(max_x as u64);
    let y = cubes.div_ceil(x);
    if y > max_y as u64 {
        return Err(Error::Invalid(format!(
            "{cubes} cubes do not fit a {max_x} x {max_y} grid"
        )));
    }
    Ok((x as u32, y as u32))
}

/// Rows a bias_gelu unit walks on average: the cube count along y is rows / ROWS_PER_UNIT (at most
/// the grid's y limit), and each unit strides over the rows by that count.
pub const ROWS_PER_UNIT: u64 = 4;

/// bias_gelu: one unit a column (`block` columns a cube along x; a column here is one vector of
/// columns for the vector kernel), the rows spread over y.
pub fn columns_by_rows(
    rows: usize,
    cols: usize,
    block: u32,
    max_count: (u32, u32, u32),
) -> Result<Geometry, Error> {
    if block == 0 || rows == 0 || cols == 0 {
        return Err(Error::Invalid(format!(
            "empty launch: {rows}x{cols}, block {block}"
        )));
    }
    let x = (cols as u64).div_ceil(block as u64);
    if x > max_count.0 as u64 {
        return Err(Error::Invalid(format!(
            "{cols} columns need {x} cubes along x, more than {}",
            max_count.0
        )));
    }
    let y = (rows as u64)
        .div_ceil(ROWS_PER_UNIT)
        .min(max_count.1 as u64);
    Ok(Geometry {
        cubes_x: x as u32,
        cubes_y: y as u32,
        block,
    })
}

/// Largest power of two `<= v` (v >= 1).
fn prev_pow2(v: u32) -> u32 {
    1u32 << (31 - v.leading_zeros())
}

/// The most units a layernorm cube uses: wider rows give each unit more columns, which costs no
/// barrier, where a wider cube adds planes to every reduction.
pub const LAYERNORM_MAX_BLOCK: u32 = 256;

/// Units per cube for layernorm rows of `cols` floats: the next power of two >= the vectors a row
/// holds (`cols / vector_size(cols)`: one load each), at least 32 (one warp), at most
/// `min(LAYERNORM_MAX_BLOCK, max_units)` rounded down to a power of two (a whole number of
/// planes).
pub fn layernorm_block(cols: usize, max_units: u32) -> Result<u32, Error> {
    if max_units < 1 {
        return Err(Error::Invalid("max units per cube is zero".into()));
    }
    let cap = prev_pow2(max_units.min(LAYERNORM_MAX_BLOCK));
    let vectors = cols / vector_size(cols);
    let want = (vectors.max(1) as u64).next_power_of_two().max(32);
    Ok((want.min(cap as u64)) as u32)
}

/// One cube per row.
pub fn per_row(rows: usize, block: u32, max_count: (u32, u32, u32)) -> Result<Geometry, Error> {
    let (x, y) = grid_2d(rows as u64, max_count.0, max_count.1)?;
    Ok(Geometry {
        cubes_x: x,
        cubes_y: y,
        block,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const CUDA_MAX: (u32, u32, u32) = (i32::MAX as u32, u16::MAX as u32, u16::MAX as u32);
    const WGPU_MAX: (u32, u32, u32) = (u16::MAX as u32, u16::MAX as u32, u16::MAX as u32);

    #[test]
    fn columns_by_rows_covers_every_column_and_caps_the_rows() {
        for (rows, cols) in [
            (1usize, 1usize),
            (3, 255),
            (1024, 1024),
            (16384, 16384),
            (5, 257),
        ] {
            let g = columns_by_rows(rows, cols, 256, CUDA_MAX).unwrap();
            assert!(g.cubes_x as usize * 256 >= cols && (g.cubes_x as usize - 1) * 256 < cols);
            assert_eq!(g.cubes_y as u64, (rows as u64).div_ceil(ROWS_PER_UNIT));
        }
        let g = columns_by_rows(1 << 20, 3, 256, WGPU_MAX).unwrap();
        assert_eq!((g.cubes_x, g.cubes_y), (1, 65535)); // units stride over the rows past the cap
        assert!(columns_by_rows(2, 65536 * 256 + 1, 256, WGPU_MAX).is_err());
        assert!(columns_by_rows(0, 3, 256, WGPU_MAX).is_err());
    }

    #[test]
    fn vectors_only_where_rows_are_whole_vectors() {
        assert_eq!(vector_size(4), 4);
        assert_eq!(vector_size(4096), 4);
        assert_eq!(vector_size(1), 1);
        assert_eq!(vector_size(4099), 1);
        assert_eq!(vector_size(6), 1);
    }

    #[test]
    fn grid_rejects_empty_and_oversized() {
        assert!(grid_2d(0, 10, 10).is_err());
        assert!(grid_2d(101, 10, 10).is_err());
        assert_eq!(grid_2d(100, 10, 10).unwrap(), (10, 10));
        assert_eq!(grid_2d(7, 10, 10).unwrap(), (7, 1));
    }

    #[test]
    fn layernorm_block_sizes() {
        assert_eq!(layernorm_block(1, 1024).unwrap(), 32);
        assert_eq!(layernorm_block(33, 1024).unwrap(), 64);
        assert_eq!(layernorm_block(129, 1024).unwrap(), 256);
        assert_eq!(layernorm_block(128, 1024).unwrap(), 32); // 32 float4s
        assert_eq!(layernorm_block(132, 1024).unwrap(), 64);
        assert_eq!(layernorm_block(200, 1024).unwrap(), 64);
        assert_eq!(layernorm_block(4096, 1024).unwrap(), 256);
        assert_eq!(layernorm_block(4096, 128).unwrap(), 128);
        assert_eq!(layernorm_block(1000, 200).unwrap(), 128);
        for cols in 1..3000 {
            let b = layernorm_block(cols, 1024).unwrap();
            assert!(b.is_power_of_two() && (32..=LAYERNORM_MAX_BLOCK).contains(&b));
        }
    }

    #[test]
    fn per_row_one_cube_per_row() {
        let g = per_row(70_000, 256, WGPU_MAX).unwrap();
        assert_eq!((g.cubes_x, g.cubes_y), (65535, 2));
        let g = per_row(3, 64, CUDA_MAX).unwrap();
        assert_eq!((g.cubes_x, g.cubes_y, g.block), (3, 1, 64));
    }
}

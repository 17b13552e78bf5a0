//! Launch geometry: cube (workgroup) sizes and 2-D cube counts. Pure functions, no GPU.

use crate::Error;

/// Units per cube for the elementwise `bias_gelu` kernel.
pub const ELEMENTWISE_BLOCK: u32 = 256;

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

/// One unit per element, `block` units per cube.
pub fn elementwise(n: usize, block: u32, max_count: (u32, u32, u32)) -> Result<Geometry, Error> {
    if block == 0 {
        return Err(Error::Invalid("block must be > 0".into()));
    }
    let cubes = (n as u64).div_ceil(block as u64);
    let (x, y) = grid_2d(cubes, max_count.0, max_count.1)?;
    Ok(Geometry {
        cubes_x: x,
        cubes_y: y,
        block,
    })
}

/// Largest power of two `<= v` (v >= 1).
fn prev_pow2(v: u32) -> u32 {
    1u32 << (31 - v.leading_zeros())
}

/// Units per cube for layernorm: the next power of two >= cols, at least 32 (one warp), at
/// most `min(1024, max_units)` rounded down to a power of two (the tree reduction needs one).
pub fn layernorm_block(cols: usize, max_units: u32) -> Result<u32, Error> {
    if max_units < 1 {
        return Err(Error::Invalid("max units per cube is zero".into()));
    }
    let cap = prev_pow2(max_units.min(1024));
    let want = (cols.max(1) as u64).next_power_of_two().max(32);
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
    fn elementwise_covers_every_element_exactly_once() {
        for n in [1usize, 255, 256, 257, 1000, 4096 * 3 + 1] {
            let g = elementwise(n, 256, CUDA_MAX).unwrap();
            assert_eq!(g.cubes_y, 1);
            assert!(g.total_cubes() * 256 >= n as u64);
            assert!((g.total_cubes() - 1) * 256 < n as u64);
        }
    }

    #[test]
    fn elementwise_wraps_into_y_when_x_is_full() {
        let n = 65535usize * 256 + 1; // one element more than a full wgpu x row
        let g = elementwise(n, 256, WGPU_MAX).unwrap();
        assert_eq!((g.cubes_x, g.cubes_y), (65535, 2));
        assert!(g.total_cubes() * 256 >= n as u64);
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
        assert_eq!(layernorm_block(768, 1024).unwrap(), 1024);
        assert_eq!(layernorm_block(4096, 1024).unwrap(), 1024);
        assert_eq!(layernorm_block(4096, 256).unwrap(), 256);
        assert_eq!(layernorm_block(1000, 300).unwrap(), 256);
        for cols in 1..3000 {
            let b = layernorm_block(cols, 1024).unwrap();
            assert!(b.is_power_of_two() && (32..=1024).contains(&b));
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

//! Kernel arguments: a signature string with one letter per parameter, and the packing of
//! values into the array of pointers `cuLaunchKernel` reads.
//!
//! Letters: `p` a device pointer (u64), `i` int32, `l` int64, `f` float32, `b` a struct passed by
//! value, given as its bytes (CubeCL's generated kernels take their scalars that way).

use std::ffi::c_void;

use crate::error::{Error, Result};

/// The most parameters a kernel may take (every Mage kernel takes far fewer).
pub const MAX_ARGS: usize = 24;
/// The largest struct a `b` parameter may pass, and how many a kernel may take.
pub const MAX_STRUCT_BYTES: usize = 256;
pub const MAX_STRUCTS: usize = 2;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Pointer,
    I32,
    I64,
    F32,
    Struct,
}

impl Kind {
    pub fn letter(self) -> char {
        match self {
            Kind::Pointer => 'p',
            Kind::I32 => 'i',
            Kind::I64 => 'l',
            Kind::F32 => 'f',
            Kind::Struct => 'b',
        }
    }
}

/// A value from the caller, before it is checked against its parameter's kind.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Int(i128),
    Float(f64),
    Bytes(Vec<u8>),
}

pub fn parse_signature(signature: &str) -> Result<Vec<Kind>> {
    let kinds = signature
        .chars()
        .map(|c| match c {
            'p' => Ok(Kind::Pointer),
            'i' => Ok(Kind::I32),
            'l' => Ok(Kind::I64),
            'f' => Ok(Kind::F32),
            'b' => Ok(Kind::Struct),
            other => Err(Error::Invalid(format!(
                "kernel signature {signature:?} has {other:?}; use p (pointer), i (int32), l (int64), f (float32), \
                 b (a struct by value, as bytes)"
            ))),
        })
        .collect::<Result<Vec<_>>>()?;
    if kinds.len() > MAX_ARGS {
        return Err(Error::Invalid(format!("kernel signature {signature:?} has more than {MAX_ARGS} parameters")));
    }
    if kinds.iter().filter(|k| **k == Kind::Struct).count() > MAX_STRUCTS {
        return Err(Error::Invalid(format!("kernel signature {signature:?} has more than {MAX_STRUCTS} structs")));
    }
    Ok(kinds)
}

/// Argument storage for one launch: every scalar in its own 8-byte slot, every struct in its own
/// 16-byte aligned buffer, and a pointer to each.
pub struct Packed {
    slots: [u64; MAX_ARGS],
    structs: [Aligned; MAX_STRUCTS],
    struct_of: [Option<usize>; MAX_ARGS],
    len: usize,
}

#[derive(Clone, Copy)]
#[repr(C, align(16))]
struct Aligned([u8; MAX_STRUCT_BYTES]);

impl Packed {
    pub fn new(kinds: &[Kind], values: &[Value]) -> Result<Self> {
        if kinds.len() != values.len() {
            return Err(Error::Invalid(format!("the kernel takes {} arguments, got {}", kinds.len(), values.len())));
        }
        let mut packed = Packed {
            slots: [0u64; MAX_ARGS],
            structs: [Aligned([0u8; MAX_STRUCT_BYTES]); MAX_STRUCTS],
            struct_of: [None; MAX_ARGS],
            len: kinds.len(),
        };
        let mut structs = 0;
        for (index, (kind, value)) in kinds.iter().zip(values).enumerate() {
            match (kind, value) {
                (Kind::Struct, Value::Bytes(bytes)) => {
                    if bytes.is_empty() || bytes.len() > MAX_STRUCT_BYTES || structs == MAX_STRUCTS {
                        return Err(Error::Invalid(format!(
                            "argument {index} (b) must be 1 to {MAX_STRUCT_BYTES} bytes (at most {MAX_STRUCTS} structs), got {}",
                            bytes.len()
                        )));
                    }
                    packed.structs[structs].0[..bytes.len()].copy_from_slice(bytes);
                    packed.struct_of[index] = Some(structs);
                    structs += 1;
                }
                _ => packed.slots[index] = encode(index, *kind, value)?,
            }
        }
        Ok(packed)
    }

    /// The array of parameter pointers; valid while `self` is neither moved nor dropped.
    pub fn pointers(&mut self) -> [*mut c_void; MAX_ARGS] {
        let mut pointers = [std::ptr::null_mut(); MAX_ARGS];
        for (index, pointer) in pointers.iter_mut().take(self.len).enumerate() {
            *pointer = match self.struct_of[index] {
                Some(which) => self.structs[which].0.as_mut_ptr() as *mut c_void,
                None => &mut self.slots[index] as *mut u64 as *mut c_void,
            };
        }
        pointers
    }

    /// The bytes of slot `index` (little-endian values start at the slot's first byte).
    pub fn slot(&self, index: usize) -> u64 {
        self.slots[index]
    }
}

fn encode(index: usize, kind: Kind, value: &Value) -> Result<u64> {
    let out_of_range = |what: &str| {
        Error::Invalid(format!("argument {index} ({}) is out of range for {what}: {value:?}", kind.letter()))
    };
    // Narrower values sit at the start of their slot, as the driver reads them (little-endian).
    match (kind, value) {
        (Kind::Pointer, Value::Int(v)) => u64::try_from(*v).map_err(|_| out_of_range("a device pointer")),
        (Kind::I64, Value::Int(v)) => i64::try_from(*v).map(|v| v as u64).map_err(|_| out_of_range("int64")),
        (Kind::I32, Value::Int(v)) => i32::try_from(*v).map(|v| u64::from(v as u32)).map_err(|_| out_of_range("int32")),
        (Kind::F32, Value::Float(v)) => Ok(u64::from((*v as f32).to_bits())),
        (Kind::F32, Value::Int(v)) => Ok(u64::from((*v as f32).to_bits())),
        (_, Value::Float(_)) => {
            Err(Error::Invalid(format!("argument {index} ({}) must be an integer, got a float", kind.letter())))
        }
        (Kind::Struct, _) => Err(Error::Invalid(format!("argument {index} (b) must be bytes (the struct's)"))),
        (_, Value::Bytes(_)) => {
            Err(Error::Invalid(format!("argument {index} ({}) must be a number, got bytes", kind.letter())))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_parse_and_refuse_unknown_letters() {
        assert_eq!(parse_signature("ppif").unwrap(), vec![Kind::Pointer, Kind::Pointer, Kind::I32, Kind::F32]);
        assert_eq!(parse_signature("").unwrap(), vec![]);
        assert!(parse_signature("pq").is_err());
        assert!(parse_signature(&"p".repeat(MAX_ARGS + 1)).is_err());
    }

    #[test]
    fn values_land_in_their_slots_as_the_driver_reads_them() {
        let kinds = parse_signature("pilf").unwrap();
        let values = [Value::Int(0xdead_beef_0000), Value::Int(-3), Value::Int(1 << 40), Value::Float(1.5)];
        let mut packed = Packed::new(&kinds, &values).unwrap();
        assert_eq!(packed.slot(0), 0xdead_beef_0000);
        let pointers = packed.pointers();
        // SAFETY: each pointer addresses an 8-byte slot of `packed`, which is alive here.
        unsafe {
            assert_eq!(*(pointers[0] as *const u64), 0xdead_beef_0000);
            assert_eq!(*(pointers[1] as *const i32), -3);
            assert_eq!(*(pointers[2] as *const i64), 1 << 40);
            assert_eq!(*(pointers[3] as *const f32), 1.5);
        }
        assert!(pointers[4].is_null());
    }

    #[test]
    fn structs_pass_their_bytes_aligned_and_scalars_keep_their_slots() {
        let kinds = parse_signature("pbi").unwrap();
        let bytes: Vec<u8> = (1..=40).collect();
        let mut packed = Packed::new(&kinds, &[Value::Int(7), Value::Bytes(bytes.clone()), Value::Int(-2)]).unwrap();
        let pointers = packed.pointers();
        assert_eq!(pointers[1] as usize % 16, 0);
        // SAFETY: pointer 1 addresses the struct buffer of `packed` (256 bytes), alive here.
        let passed = unsafe { std::slice::from_raw_parts(pointers[1] as *const u8, bytes.len()) };
        assert_eq!(passed, &bytes[..]);
        // SAFETY: as above, 8-byte slots.
        unsafe {
            assert_eq!(*(pointers[0] as *const u64), 7);
            assert_eq!(*(pointers[2] as *const i32), -2);
        }
        assert!(Packed::new(&kinds, &[Value::Int(7), Value::Int(1), Value::Int(0)]).is_err());
        assert!(Packed::new(&kinds, &[Value::Int(7), Value::Bytes(vec![0; 257]), Value::Int(0)]).is_err());
        assert!(Packed::new(&kinds, &[Value::Int(7), Value::Bytes(vec![]), Value::Int(0)]).is_err());
        assert!(Packed::new(&parse_signature("pi").unwrap(), &[Value::Int(7), Value::Bytes(vec![1])]).is_err());
        assert!(parse_signature("bbb").is_err());
    }

    #[test]
    fn out_of_range_and_miscounted_arguments_are_refused() {
        let kinds = parse_signature("pi").unwrap();
        assert!(Packed::new(&kinds, &[Value::Int(-1), Value::Int(0)]).is_err());
        assert!(Packed::new(&kinds, &[Value::Int(0), Value::Int(1 << 31)]).is_err());
        assert!(Packed::new(&kinds, &[Value::Int(0)]).is_err());
        assert!(Packed::new(&kinds, &[Value::Int(0), Value::Float(2.0)]).is_err());
        let error = Packed::new(&kinds, &[Value::Int(0), Value::Int(1 << 40)]).err().unwrap();
        assert!(error.to_string().contains("argument 1 (i) is out of range for int32"), "{error}");
    }
}

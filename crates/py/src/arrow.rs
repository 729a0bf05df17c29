//! Columns exported through the Arrow C data interface (the `__arrow_c_array__` PyCapsule
//! protocol): a struct array of primitive, boolean and UTF-8 children, its buffers owned
//! here until the consumer calls `release`. Only what the result tables need; no copy of the
//! data through JSON or Python objects.

use std::ffi::{c_char, c_void, CString};
use std::ptr;

/// One column's values.
pub enum Data {
    F64(Vec<Option<f64>>),
    U64(Vec<Option<u64>>),
    U32(Vec<u32>),
    Bool(Vec<bool>),
    Utf8(Vec<String>),
}

/// A named column; nullable when its values may be missing.
pub struct Column {
    pub name: &'static str,
    pub data: Data,
}

impl Data {
    fn len(&self) -> usize {
        match self {
            Data::F64(v) => v.len(),
            Data::U64(v) => v.len(),
            Data::U32(v) => v.len(),
            Data::Bool(v) => v.len(),
            Data::Utf8(v) => v.len(),
        }
    }

    /// The Arrow format string of the type.
    fn format(&self) -> &'static str {
        match self {
            Data::F64(_) => "g",
            Data::U64(_) => "L",
            Data::U32(_) => "I",
            Data::Bool(_) => "b",
            Data::Utf8(_) => "u",
        }
    }

    fn nullable(&self) -> bool {
        matches!(self, Data::F64(_) | Data::U64(_))
    }
}

const FLAG_NULLABLE: i64 = 2;

/// `struct ArrowSchema` of the C data interface.
#[repr(C)]
pub struct ArrowSchema {
    format: *const c_char,
    name: *const c_char,
    metadata: *const c_char,
    flags: i64,
    n_children: i64,
    children: *mut *mut ArrowSchema,
    dictionary: *mut ArrowSchema,
    release: Option<unsafe extern "C" fn(*mut ArrowSchema)>,
    private_data: *mut c_void,
}

/// `struct ArrowArray` of the C data interface.
#[repr(C)]
pub struct ArrowArray {
    length: i64,
    null_count: i64,
    offset: i64,
    n_buffers: i64,
    n_children: i64,
    buffers: *mut *const c_void,
    children: *mut *mut ArrowArray,
    dictionary: *mut ArrowArray,
    release: Option<unsafe extern "C" fn(*mut ArrowArray)>,
    private_data: *mut c_void,
}

struct SchemaPrivate {
    _format: CString,
    _name: CString,
    children: Vec<*mut ArrowSchema>,
}

struct ArrayPrivate {
    /// 8-byte aligned buffers; `pointers` points into them (null for an absent bitmap).
    _buffers: Vec<Vec<u64>>,
    pointers: Vec<*const c_void>,
    children: Vec<*mut ArrowArray>,
}

unsafe extern "C" fn release_schema(schema: *mut ArrowSchema) {
    // SAFETY: called by the consumer once, on a schema this module made with a boxed
    // SchemaPrivate; children are boxes made here too.
    unsafe {
        let s = &mut *schema;
        let private = Box::from_raw(s.private_data as *mut SchemaPrivate);
        for &child in &private.children {
            if let Some(release) = (*child).release {
                release(child);
            }
            drop(Box::from_raw(child));
        }
        s.release = None;
        s.private_data = ptr::null_mut();
    }
}

unsafe extern "C" fn release_array(array: *mut ArrowArray) {
    // SAFETY: as release_schema, for arrays.
    unsafe {
        let a = &mut *array;
        let private = Box::from_raw(a.private_data as *mut ArrayPrivate);
        for &child in &private.children {
            if let Some(release) = (*child).release {
                release(child);
            }
            drop(Box::from_raw(child));
        }
        a.release = None;
        a.private_data = ptr::null_mut();
    }
}

fn schema(format: &str, name: &str, flags: i64, children: Vec<ArrowSchema>) -> ArrowSchema {
    let format = CString::new(format).unwrap_or_default();
    let name = CString::new(name).unwrap_or_default();
    let mut children: Vec<*mut ArrowSchema> = children
        .into_iter()
        .map(|c| Box::into_raw(Box::new(c)))
        .collect();
    let mut private = Box::new(SchemaPrivate {
        _format: CString::default(),
        _name: CString::default(),
        children: Vec::new(),
    });
    let schema = ArrowSchema {
        format: format.as_ptr(),
        name: name.as_ptr(),
        metadata: ptr::null(),
        flags,
        n_children: children.len() as i64,
        children: if children.is_empty() {
            ptr::null_mut()
        } else {
            children.as_mut_ptr()
        },
        dictionary: ptr::null_mut(),
        release: Some(release_schema),
        private_data: ptr::null_mut(),
    };
    // Moving a CString or a Vec into the box keeps its heap pointer.
    private._format = format;
    private._name = name;
    private.children = children;
    ArrowSchema {
        private_data: Box::into_raw(private) as *mut c_void,
        ..schema
    }
}

/// Packs booleans into an Arrow bitmap (least significant bit first).
fn bitmap(bits: impl Iterator<Item = bool>) -> Vec<u64> {
    let mut words = Vec::new();
    for (i, bit) in bits.enumerate() {
        if i % 64 == 0 {
            words.push(0u64);
        }
        if bit {
            if let Some(w) = words.last_mut() {
                *w |= 1 << (i % 64);
            }
        }
    }
    words
}

fn words<T: Copy>(values: &[T], width: usize, bytes: impl Fn(T) -> [u8; 8]) -> Vec<u64> {
    let mut raw = Vec::with_capacity(values.len() * width + 8);
    for &v in values {
        raw.extend_from_slice(&bytes(v)[..width]);
    }
    pack(&raw)
}

fn pack(raw: &[u8]) -> Vec<u64> {
    raw.chunks(8)
        .map(|c| {
            let mut b = [0u8; 8];
            b[..c.len()].copy_from_slice(c);
            u64::from_le_bytes(b)
        })
        .collect()
}

/// The validity bitmap and null count of optional values (no bitmap when none is missing).
fn validity<T>(values: &[Option<T>]) -> (Option<Vec<u64>>, i64) {
    let nulls = values.iter().filter(|v| v.is_none()).count();
    if nulls == 0 {
        (None, 0)
    } else {
        (
            Some(bitmap(values.iter().map(Option::is_some))),
            nulls as i64,
        )
    }
}

/// The buffers of one column (validity first, as the format lays them out) and its null count.
fn buffers(data: &Data) -> (Vec<Option<Vec<u64>>>, i64) {
    match data {
        Data::F64(v) => {
            let (valid, nulls) = validity(v);
            let values: Vec<f64> = v.iter().map(|x| x.unwrap_or(0.0)).collect();
            (
                vec![valid, Some(words(&values, 8, f64::to_le_bytes))],
                nulls,
            )
        }
        Data::U64(v) => {
            let (valid, nulls) = validity(v);
            let values: Vec<u64> = v.iter().map(|x| x.unwrap_or(0)).collect();
            (
                vec![valid, Some(words(&values, 8, u64::to_le_bytes))],
                nulls,
            )
        }
        Data::U32(v) => {
            let wide = |x: u32| u64::from(x).to_le_bytes();
            (vec![None, Some(words(v, 4, wide))], 0)
        }
        Data::Bool(v) => (vec![None, Some(bitmap(v.iter().copied()))], 0),
        Data::Utf8(v) => {
            let mut offsets = Vec::with_capacity(v.len() + 1);
            let mut text = Vec::new();
            offsets.push(0i32);
            for s in v {
                text.extend_from_slice(s.as_bytes());
                offsets.push(i32::try_from(text.len()).unwrap_or(i32::MAX));
            }
            let offsets = words(&offsets, 4, |x| i64::from(x).to_le_bytes());
            (vec![None, Some(offsets), Some(pack(&text))], 0)
        }
    }
}

fn array(
    length: usize,
    nulls: i64,
    bufs: Vec<Option<Vec<u64>>>,
    children: Vec<ArrowArray>,
) -> ArrowArray {
    let pointers: Vec<*const c_void> = bufs
        .iter()
        .map(|b| match b {
            // An empty buffer still needs a valid address for some consumers.
            Some(b) if b.is_empty() => ptr::NonNull::<u64>::dangling().as_ptr() as *const c_void,
            Some(b) => b.as_ptr() as *const c_void,
            None => ptr::null(),
        })
        .collect();
    let children: Vec<*mut ArrowArray> = children
        .into_iter()
        .map(|c| Box::into_raw(Box::new(c)))
        .collect();
    let mut private = Box::new(ArrayPrivate {
        _buffers: bufs.into_iter().flatten().collect(),
        pointers,
        children,
    });
    ArrowArray {
        length: length as i64,
        null_count: nulls,
        offset: 0,
        n_buffers: private.pointers.len() as i64,
        n_children: private.children.len() as i64,
        buffers: private.pointers.as_mut_ptr(),
        children: if private.children.is_empty() {
            ptr::null_mut()
        } else {
            private.children.as_mut_ptr()
        },
        dictionary: ptr::null_mut(),
        release: Some(release_array),
        private_data: Box::into_raw(private) as *mut c_void,
    }
}

/// The table's schema: a struct of its columns.
pub fn export_schema(columns: &[Column]) -> ArrowSchema {
    let fields = columns
        .iter()
        .map(|c| {
            let flags = if c.data.nullable() { FLAG_NULLABLE } else { 0 };
            schema(c.data.format(), c.name, flags, Vec::new())
        })
        .collect();
    schema("+s", "", 0, fields)
}

/// The table's rows: a struct array of its columns (all of the same length).
pub fn export_array(columns: &[Column]) -> ArrowArray {
    let length = columns.first().map_or(0, |c| c.data.len());
    let children = columns
        .iter()
        .map(|c| {
            let (bufs, nulls) = buffers(&c.data);
            array(c.data.len(), nulls, bufs, Vec::new())
        })
        .collect();
    array(length, 0, vec![None], children)
}

/// Releases a schema a consumer did not take over (its release still set).
///
/// # Safety
/// `p` points to a schema made by [`export_schema`].
pub unsafe fn release_schema_if_owned(p: *mut ArrowSchema) {
    // SAFETY: per the caller.
    unsafe {
        if let Some(release) = (*p).release {
            release(p);
        }
    }
}

/// Releases an array a consumer did not take over (its release still set).
///
/// # Safety
/// `p` points to an array made by [`export_array`].
pub unsafe fn release_array_if_owned(p: *mut ArrowArray) {
    // SAFETY: per the caller.
    unsafe {
        if let Some(release) = (*p).release {
            release(p);
        }
    }
}

impl Column {
    /// Number of values.
    pub fn len(&self) -> usize {
        self.data.len()
    }
}

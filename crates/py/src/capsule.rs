//! The Arrow PyCapsule protocol: `__arrow_c_schema__` and `__arrow_c_array__` hand pyarrow
//! (or polars, or any consumer of the protocol) the C structs of [`crate::arrow`].

use std::ffi::{c_void, CStr};

use pyo3::prelude::*;
use pyo3::types::PyCapsule;

use crate::arrow::{export_array, export_schema, ArrowArray, ArrowSchema, Column};

const SCHEMA: &CStr = c"arrow_schema";
const ARRAY: &CStr = c"arrow_array";

/// A table's columns, exported on request (each request makes its own copy of the buffers).
#[pyclass(module = "storlab._native", frozen)]
pub struct ArrowTable {
    columns: Vec<Column>,
}

// SAFETY of Send/Sync: the columns are plain owned vectors.
unsafe impl Send for ArrowTable {}
unsafe impl Sync for ArrowTable {}

impl ArrowTable {
    pub fn new(columns: Vec<Column>) -> ArrowTable {
        ArrowTable { columns }
    }
}

unsafe extern "C" fn drop_schema(capsule: *mut pyo3::ffi::PyObject) {
    // SAFETY: the capsule holds a boxed ArrowSchema made in capsule(); a consumer that took
    // it over set its release to null.
    unsafe {
        let p = pyo3::ffi::PyCapsule_GetPointer(capsule, SCHEMA.as_ptr()) as *mut ArrowSchema;
        if p.is_null() {
            pyo3::ffi::PyErr_Clear();
            return;
        }
        crate::arrow::release_schema_if_owned(p);
        drop(Box::from_raw(p));
    }
}

unsafe extern "C" fn drop_array(capsule: *mut pyo3::ffi::PyObject) {
    // SAFETY: as drop_schema, for an ArrowArray.
    unsafe {
        let p = pyo3::ffi::PyCapsule_GetPointer(capsule, ARRAY.as_ptr()) as *mut ArrowArray;
        if p.is_null() {
            pyo3::ffi::PyErr_Clear();
            return;
        }
        crate::arrow::release_array_if_owned(p);
        drop(Box::from_raw(p));
    }
}

fn capsule<'py, T>(
    py: Python<'py>,
    value: T,
    name: &'static CStr,
    destructor: unsafe extern "C" fn(*mut pyo3::ffi::PyObject),
) -> PyResult<Bound<'py, PyCapsule>> {
    let p = Box::into_raw(Box::new(value)) as *mut c_void;
    // SAFETY: p is a valid pointer the destructor frees; the name is static.
    unsafe {
        let obj = pyo3::ffi::PyCapsule_New(p, name.as_ptr(), Some(destructor));
        if obj.is_null() {
            drop(Box::from_raw(p as *mut T));
            return Err(PyErr::fetch(py));
        }
        Ok(Bound::from_owned_ptr(py, obj).cast_into_unchecked())
    }
}

#[pymethods]
impl ArrowTable {
    /// The schema (a struct of the columns) as an `arrow_schema` capsule.
    fn __arrow_c_schema__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        capsule(py, export_schema(&self.columns), SCHEMA, drop_schema)
    }

    /// The rows as `arrow_schema` and `arrow_array` capsules (a record batch). A requested
    /// schema is not honoured: the columns keep their types.
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_array__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<(Bound<'py, PyCapsule>, Bound<'py, PyCapsule>)> {
        let _ = requested_schema;
        let schema = capsule(py, export_schema(&self.columns), SCHEMA, drop_schema)?;
        let array = capsule(py, export_array(&self.columns), ARRAY, drop_array)?;
        Ok((schema, array))
    }

    /// Number of rows.
    fn __len__(&self) -> usize {
        self.columns.first().map_or(0, |c| c.len())
    }
}

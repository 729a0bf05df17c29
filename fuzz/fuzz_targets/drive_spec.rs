//! A DiskSim parameter file (`NAME.diskspecs`, its model and `.parv`) read by
//! `storlab drive import`: the block syntax alone, then every value as the import asks for it.
#![no_main]

use libfuzzer_sys::fuzz_target;
use storlab_sim::device::drive_spec::{parse, Block, Value};

/// Asks every block for every key the way the import does, nested blocks and lists too.
fn visit(block: &Block) {
    for (key, value) in &block.params {
        let _ = (block.num(key), block.word(key), block.list(key));
        match value {
            Value::Block(b) => visit(b),
            Value::List(items) => items.iter().for_each(visit_value),
            Value::Scalar(_) => {}
        }
    }
}

fn visit_value(value: &Value) {
    match value {
        Value::Block(b) => visit(b),
        Value::List(items) => items.iter().for_each(visit_value),
        Value::Scalar(_) => {}
    }
}

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok(blocks) = parse(text) {
            blocks.iter().for_each(visit);
        }
    }
});

//! Built-in disk models with documented parameters.
//!
//! Values follow the data sheets of typical drives of each class (2006-2012 enterprise FC/SAS
//! HDDs, enterprise SLC and eMLC SSDs, a current NVMe SSD). Where a data sheet gives separate
//! read and write seek times, the read figure is used; the full-stroke time and the command
//! overhead are typical values, not from one data sheet. Users define their own models under
//! `[disk_models.NAME]` (optionally `base = "hdd-10k"` plus the keys that differ).

use super::hdd::{HddParams, Scheduler};
use super::ssd::SsdParams;
use super::DiskModel;

/// Names of the built-in models.
pub const BUILTIN_MODELS: [&str; 6] = [
    "hdd-10k", "hdd-15k", "hdd-7k2", "ssd-slc", "ssd-emlc", "ssd-nvme",
];

fn hdd(
    rpm: u32,
    capacity_gb: f64,
    outer: f64,
    inner: f64,
    (t2t, avg, full, write_settle): (f64, f64, f64, f64),
    interface_mbps: f64,
) -> DiskModel {
    DiskModel::Hdd(HddParams {
        rpm,
        capacity_gb,
        heads: 8,
        zones: 24,
        media_rate_outer_mbps: outer,
        media_rate_inner_mbps: inner,
        seek_track_to_track_ms: t2t,
        seek_avg_ms: avg,
        seek_full_stroke_ms: full,
        head_switch_ms: 0.3,
        write_settle_ms: write_settle,
        command_overhead_ms: 0.1,
        interface_mbps,
        queue_depth: 32,
        scheduler: Scheduler::Sptf,
        readahead_kib: 512,
        max_queue_age_ms: 1000.0,
        seek_curve: Vec::new(),
        zone_table: Vec::new(),
        sparing: Default::default(),
        spare_range_cylinders: 1,
        surface_order: Default::default(),
        command_overheads_ms: None,
        cache_segments: 0,
        cache_keeps_read_data: false,
        cache_segment_kib: 0.0,
        write_cache: false,
        readahead_limit: Default::default(),
        read_watermark: 0.0,
        interface_write_mbps: 0.0,
        write_seek_min_ms: 0.0,
        extra_write_disconnect_ms: None,
        readahead_after_hit: false,
        readahead_min_kib: 0.0,
        write_hit_keeps_readahead: false,
        read_watermark_kib: 0.0,
        partial_hit_waits: false,
        write_data_unreadable: false,
        writes_never_hit: false,
    })
}

/// Where each figure of the built-in HDD models comes from: the drives' datasheets where a
/// datasheet states it, otherwise an assumption named as such (docs/models.md prints this).
pub const HDD_SOURCES: [(&str, &str); 9] = [
    (
        "rpm, capacity_gb",
        "datasheet class: 10,000 rpm 300 GB FC/SAS (Seagate Cheetah 10K.7 class), 15,000 rpm \
         300 GB (Cheetah 15K.5 class), 7,200 rpm 1 TB nearline (Barracuda ES.2 class)",
    ),
    (
        "seek_track_to_track_ms, seek_avg_ms, seek_full_stroke_ms",
        "datasheet read seeks of that class (track-to-track, average, full stroke); the \
         curve between the three points is the model's parametric seek",
    ),
    (
        "write_settle_ms",
        "datasheet write seek minus read seek of that class, about 0.25-0.3 ms on average",
    ),
    (
        "media_rate_outer_mbps, media_rate_inner_mbps",
        "datasheet sustained transfer rate, outer and inner zones",
    ),
    (
        "interface_mbps",
        "the interface: 4 Gb FC or SAS about 400 MB/s, 3 Gb SATA/SAS about 300 MB/s",
    ),
    (
        "heads, zones",
        "assumed (datasheets of the class rarely state them); only the rate per zone, which \
         comes from the media rates, changes a result",
    ),
    (
        "head_switch_ms, command_overhead_ms",
        "assumed 0.3 ms and 0.1 ms (overlapped when queued); the measured drives in \
         references/drives, ten years older, show 0.1-1.0 ms head switches and 0-3.6 ms \
         overheads",
    ),
    (
        "queue_depth, scheduler",
        "tagged command queueing of FC/SAS drives: 32 commands, reordered by rotational \
         position",
    ),
    (
        "readahead_kib, max_queue_age_ms",
        "assumed: 512 KiB read-ahead from an 8-16 MB buffer, a 1 s starvation guard",
    ),
];

/// A built-in model by name.
///
/// - `hdd-10k`: 10,000 rpm FC/SAS, 300 GB, read seeks 0.2 / 4.7 / 10 ms (track-to-track /
///   average / full stroke; Cheetah 10K.7 class), writes settle 0.3 ms longer, 80-42 MB/s
///   media rate, 4 Gb FC interface (400 MB/s).
/// - `hdd-15k`: 15,000 rpm FC/SAS, 300 GB, seeks 0.2 / 3.5 / 7.4 ms, write settle 0.25 ms
///   (Cheetah 15K.5 class), 125-73 MB/s.
/// - `hdd-7k2`: 7,200 rpm nearline SAS/SATA, 1 TB, seeks 0.8 / 8.5 / 17 ms, write settle
///   0.3 ms, 105-55 MB/s, 3 Gb interface (300 MB/s).
///
/// Every HDD: 8 heads, 24 zones, 0.1 ms command overhead (overlapped when queued), 0.3 ms head
/// switch, 32-command queue with SPTF reordering, 512 KiB read-ahead, 1 s age limit.
/// - `ssd-slc`: enterprise SLC, 146 GB, 16 dies, 25 us page read, 200 us program,
///   write amplification 1.2, 400 MB/s interface.
/// - `ssd-emlc`: enterprise MLC, 400 GB, 32 dies, 50 us read, 1,300 us program, write
///   amplification 2.5, 600 MB/s interface.
/// - `ssd-nvme`: NVMe, 1.6 TB, 128 dies, 50 us read, 500 us program, write amplification 2.0,
///   3,200 MB/s interface, 2 us controller time.
pub fn builtin_model(name: &str) -> Option<DiskModel> {
    let m = match name {
        "hdd-10k" => hdd(10_000, 300.0, 80.0, 42.0, (0.2, 4.7, 10.0, 0.3), 400.0),
        "hdd-15k" => hdd(15_000, 300.0, 125.0, 73.0, (0.2, 3.5, 7.4, 0.25), 400.0),
        "hdd-7k2" => hdd(7_200, 1000.0, 105.0, 55.0, (0.8, 8.5, 17.0, 0.3), 300.0),
        "ssd-slc" => DiskModel::Ssd(SsdParams {
            capacity_gb: 146.0,
            page_kib: 4,
            channels: 8,
            dies_per_channel: 2,
            read_us: 25.0,
            program_us: 200.0,
            write_amplification: 1.2,
            channel_mbps: 200.0,
            interface_mbps: 400.0,
            controller_us: 15.0,
            queue_depth: 64,
        }),
        "ssd-emlc" => DiskModel::Ssd(SsdParams {
            capacity_gb: 400.0,
            page_kib: 4,
            channels: 8,
            dies_per_channel: 4,
            read_us: 50.0,
            program_us: 1300.0,
            write_amplification: 2.5,
            channel_mbps: 200.0,
            interface_mbps: 600.0,
            controller_us: 15.0,
            queue_depth: 64,
        }),
        "ssd-nvme" => DiskModel::Ssd(SsdParams {
            capacity_gb: 1600.0,
            page_kib: 4,
            channels: 16,
            dies_per_channel: 8,
            read_us: 50.0,
            program_us: 500.0,
            write_amplification: 2.0,
            channel_mbps: 800.0,
            interface_mbps: 3200.0,
            controller_us: 2.0,
            queue_depth: 1024,
        }),
        _ => return None,
    };
    Some(m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::Mechanism;

    #[test]
    fn every_builtin_model_builds() {
        for name in BUILTIN_MODELS {
            let m = builtin_model(name).expect("exists");
            Mechanism::new(&m, 0).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
        assert!(builtin_model("hdd-5k").is_none());
    }

    #[test]
    fn every_hdd_figure_a_builtin_model_sets_has_a_source() {
        // The measured tables: empty in every built-in model.
        let tables = [
            "seek_curve",
            "zone_table",
            "sparing",
            "spare_range_cylinders",
            "surface_order",
            "command_overheads_ms",
            "cache_segments",
            "cache_keeps_read_data",
            "cache_segment_kib",
            "write_cache",
            "readahead_limit",
            "read_watermark",
            "interface_write_mbps",
            "write_seek_min_ms",
            "extra_write_disconnect_ms",
            "readahead_after_hit",
            "readahead_min_kib",
            "write_hit_keeps_readahead",
            "read_watermark_kib",
            "partial_hit_waits",
            "write_data_unreadable",
            "writes_never_hit",
        ];
        let sourced: Vec<&str> = HDD_SOURCES
            .iter()
            .flat_map(|(keys, _)| keys.split(", "))
            .collect();
        for key in crate::config::keys::HDD_KEYS {
            let name = key.name;
            assert!(
                tables.contains(&name) != sourced.contains(&name),
                "{name}: a built-in figure needs exactly one source line; a table none"
            );
        }
    }
}

use storlab_report::csv::{field, files};

use crate::support::{hostile_study, raid_study};

fn file(study: &storlab_report::Study, name: &str) -> String {
    files(study)
        .into_iter()
        .find(|(n, _)| *n == name)
        .map(|(_, t)| t)
        .unwrap_or_else(|| panic!("no {name}"))
}

#[test]
fn summary_header_is_as_specified() {
    let text = file(&raid_study(["raid5", "raid10"]), "summary.csv");
    let header = text.split("\r\n").next().unwrap_or_default();
    assert_eq!(
        header,
        "configuration,workload,repeat,kind,iops,read_iops,write_iops,mbps,lat_mean_ms,\
         lat_p99_ms,rows_per_s,tx_per_min,wal_mb_per_s,error"
    );
    assert_eq!(text.matches("\r\n").count(), 7, "header and six cells");
}

#[test]
fn commas_and_quotes_are_quoted() {
    assert_eq!(field("plain"), "plain");
    assert_eq!(field("a,b"), "\"a,b\"");
    assert_eq!(field("say \"hi\""), "\"say \"\"hi\"\"\"");
    assert_eq!(field("two\nlines"), "\"two\nlines\"");
    let mut study = raid_study(["raid5", "raid10"]);
    let odd = "raid \"5\", big";
    study.configurations[0].name = odd.into();
    for c in study
        .cells
        .iter_mut()
        .filter(|c| c.configuration == "raid5")
    {
        c.configuration = odd.into();
    }
    let text = file(&study, "summary.csv");
    assert!(
        text.contains("\r\n\"raid \"\"5\"\", big\",randread-8k,1,sim,3000,"),
        "{text}"
    );
}

#[test]
fn failed_cells_keep_their_reason_and_empty_figures() {
    let text = file(&hostile_study(), "summary.csv");
    let row = text
        .lines()
        .find(|l| l.contains("seqwrite-1m"))
        .expect("failed row");
    assert_eq!(
        row,
        "raid10,seqwrite-1m,1,sim,,,,,,,,,,\"disk <full> & \"\"gone\"\"\""
    );
}

#[test]
fn every_table_is_rendered() {
    let study = storlab_report::synthetic::demo_study();
    let files = files(&study);
    let text = |name: &str| {
        files
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, t)| t.clone())
            .unwrap_or_else(|| panic!("{name} missing"))
    };
    for n in [
        "summary.csv",
        "devices.csv",
        "arrays.csv",
        "waits.csv",
        "capacity.csv",
    ] {
        assert!(!text(n).is_empty(), "{n} empty");
    }
    let devices = text("devices.csv");
    assert!(devices.starts_with("configuration,workload,repeat,device,model,iops,"));
    assert!(devices.contains("raid10,randwrite-8k,1,r10-1.d7,hdd-15k-146g,"));
    let capacity = text("capacity.csv");
    assert!(
        capacity.contains("raid5,sim,14,1752,450,,6300,"),
        "{capacity}"
    );
}

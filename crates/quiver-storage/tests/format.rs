//! Format 2 tables: round trips of every stored type, the generation switch,
//! and damage (every byte flipped, truncation, missing files) detected
//! cleanly, never a panic and never different data.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::{
    ArrayRef, BinaryArray, BooleanArray, Date32Array, Decimal128Array, Float64Array, Int32Array,
    Int64Array, Int8Array, RecordBatch, StringArray, TimestampMicrosecondArray, UInt64Array,
};
use arrow_schema::{DataType, Field, Schema, SchemaRef, TimeUnit};
use quiver_storage::table_file::{read_meta, write_table_with, WriteOptions};
use quiver_storage::{open_table, read_table, write_table, Compression};

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("quiver-format-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&d);
    d
}

fn schema() -> SchemaRef {
    let mut meta = std::collections::HashMap::new();
    meta.insert(
        "quiver.collation".to_string(),
        "utf8mb4_general_ci".to_string(),
    );
    meta.insert("quiver.default".to_string(), "it's\t'x'\n".to_string());
    Arc::new(Schema::new(vec![
        Field::new("i8", DataType::Int8, true),
        Field::new("i32", DataType::Int32, false),
        Field::new("i64", DataType::Int64, true),
        Field::new("u64", DataType::UInt64, true),
        Field::new("f", DataType::Float64, true),
        Field::new("d", DataType::Decimal128(15, 2), true),
        Field::new("day", DataType::Date32, true),
        Field::new("ts", DataType::Timestamp(TimeUnit::Microsecond, None), true),
        Field::new("flag", DataType::Utf8, true).with_metadata(meta),
        Field::new("comment", DataType::Utf8, true),
        Field::new("b", DataType::Boolean, true),
        Field::new("bin", DataType::Binary, true),
    ]))
}

fn batch(schema: &SchemaRef, start: i64, n: usize) -> RecordBatch {
    let r = |i: usize| start + i as i64;
    let cols: Vec<ArrayRef> = vec![
        Arc::new(Int8Array::from_iter(
            (0..n).map(|i| (i % 5 != 0).then_some((r(i) % 100) as i8)),
        )),
        Arc::new(Int32Array::from_iter_values(
            (0..n).map(|i| r(i) as i32 * 3),
        )),
        Arc::new(Int64Array::from_iter(
            (0..n).map(|i| (i % 7 != 0).then_some(r(i) * 1_000_003)),
        )),
        Arc::new(UInt64Array::from_iter(
            (0..n).map(|i| Some(u64::MAX - r(i) as u64)),
        )),
        Arc::new(Float64Array::from_iter(
            (0..n).map(|i| (i % 3 != 0).then_some(r(i) as f64 / 7.0)),
        )),
        Arc::new(
            Decimal128Array::from_iter(
                (0..n).map(|i| (i % 11 != 0).then_some(r(i) as i128 * 101 - 5000)),
            )
            .with_precision_and_scale(15, 2)
            .unwrap(),
        ),
        Arc::new(Date32Array::from_iter(
            (0..n).map(|i| Some(8000 + (r(i) % 2500) as i32)),
        )),
        Arc::new(TimestampMicrosecondArray::from_iter(
            (0..n).map(|i| Some(r(i) * 1_000_000)),
        )),
        Arc::new(StringArray::from_iter((0..n).map(|i| match i % 4 {
            0 => None,
            1 => Some("AIR"),
            2 => Some("MAIL "),
            _ => Some("ÉTÉ"),
        }))),
        Arc::new(StringArray::from_iter((0..n).map(|i| {
            (i % 13 != 0).then(|| format!("comment {} {}", r(i), "x".repeat(i % 40)))
        }))),
        Arc::new(BooleanArray::from_iter(
            (0..n).map(|i| (i % 6 != 0).then_some(i % 2 == 0)),
        )),
        Arc::new(BinaryArray::from_iter(
            (0..n).map(|i| (i % 9 != 0).then(|| vec![i as u8, 0, 255])),
        )),
    ];
    RecordBatch::try_new(schema.clone(), cols).unwrap()
}

fn concat(batches: &[RecordBatch]) -> RecordBatch {
    arrow_select::concat::concat_batches(&batches[0].schema(), batches).unwrap()
}

fn options(rows: usize, compression: Compression) -> WriteOptions {
    WriteOptions {
        compression,
        row_group_rows: rows,
        auto_increment: 0,
    }
}

#[test]
fn every_type_round_trips_in_row_groups() {
    let s = schema();
    for comp in [Compression::None, Compression::Lz4, Compression::Zstd] {
        let dir = temp_dir(&format!("round-{comp:?}"));
        // Input batches that do not line up with the row groups: the small
        // ones are gathered, the large one is sliced without a copy.
        let input = vec![batch(&s, 0, 700), batch(&s, 700, 1), batch(&s, 701, 2000)];
        let written = write_table_with(&dir, &s, &input, &options(1000, comp)).unwrap();
        assert_eq!(
            written
                .row_groups
                .iter()
                .map(|b| b.num_rows())
                .collect::<Vec<_>>(),
            vec![701, 1000, 1000]
        );
        let (meta, batches) = read_table(&dir).unwrap();
        assert_eq!(meta.rows, 2701);
        assert_eq!(meta.schema, s, "schema with field metadata survives");
        assert_eq!(batches, written.row_groups);
        assert_eq!(concat(&batches), concat(&input));
        // Only some columns.
        let t = open_table(&dir).unwrap();
        let cols = t.read_columns(&[9, 2]).unwrap();
        assert_eq!(cols.len(), 2);
        assert_eq!(&cols[0][1], batches[1].column(9));
        // The large input batch is sliced, not copied.
        assert_eq!(
            written.row_groups[1].column(9).to_data().buffers()[1].as_ptr(),
            input[2].column(9).to_data().buffers()[1].as_ptr()
        );
        assert_eq!(&cols[1][2], batches[2].column(2));
        // Zone maps: row group 1 of i32 holds rows 701..1701, times 3.
        let zones = t.layout.as_ref().unwrap().zone_stats(&s);
        assert_eq!(zones.len(), 3);
        assert_eq!(
            zones[1][1].min,
            Some(quiver_common::ScalarValue::Int64(2103))
        );
        assert_eq!(
            zones[1][1].max,
            Some(quiver_common::ScalarValue::Int64(5100))
        );
        // 140 of the first 700 rows and the one row after them.
        assert_eq!(zones[0][0].null_count, 141);
        let _ = fs::remove_dir_all(&dir);
    }
}

#[test]
fn empty_and_all_null_tables() {
    let s = schema();
    let dir = temp_dir("empty");
    write_table(&dir, &s, &[]).unwrap();
    let (meta, batches) = read_table(&dir).unwrap();
    assert_eq!((meta.rows, batches.len()), (0, 0));
    let s2 = Arc::new(Schema::new(vec![Field::new("n", DataType::Int64, true)]));
    let b = RecordBatch::try_new(
        s2.clone(),
        vec![Arc::new(Int64Array::from(vec![None::<i64>; 5]))],
    )
    .unwrap();
    write_table(&dir, &s2, std::slice::from_ref(&b)).unwrap();
    assert_eq!(read_table(&dir).unwrap().1, vec![b]);
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn a_new_generation_replaces_the_old_and_leftovers_go() {
    let s = schema();
    let dir = temp_dir("generations");
    write_table(&dir, &s, &[batch(&s, 0, 10)]).unwrap();
    // A file left by a crashed write of generation 2.
    fs::write(dir.join("data-2.qvt"), b"half a file").unwrap();
    let m = write_table(&dir, &s, &[batch(&s, 5, 20)]).unwrap();
    assert_eq!(m.generation, 3, "past every generation on disk");
    let names: Vec<String> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .collect();
    let mut names = names;
    names.sort();
    assert_eq!(names, vec!["data-3.qvt", "table.meta"]);
    assert_eq!(read_table(&dir).unwrap().1, vec![batch(&s, 5, 20)]);
    let _ = fs::remove_dir_all(&dir);
}

fn data_file(dir: &Path) -> PathBuf {
    let m = read_meta(dir).unwrap();
    dir.join(format!("data-{}.qvt", m.generation))
}

/// Flips every byte of a small table's data file and manifest in turn: each
/// read must fail with error 1877 naming the table, or return the same rows.
#[test]
fn every_flipped_byte_is_detected() {
    let s = schema();
    let dir = temp_dir("flip");
    let input = vec![batch(&s, 0, 300)];
    write_table_with(&dir, &s, &input, &options(128, Compression::Lz4)).unwrap();
    let expect = concat(&read_table(&dir).unwrap().1);
    for file in [data_file(&dir), dir.join("table.meta")] {
        let good = fs::read(&file).unwrap();
        let mut detected = 0;
        for i in 0..good.len() {
            let mut bad = good.clone();
            bad[i] ^= 1 << (i % 8);
            fs::write(&file, &bad).unwrap();
            match read_table(&dir) {
                Err(e) => {
                    detected += 1;
                    assert_eq!(e.code, 1877, "byte {i} of {}: {e}", file.display());
                    assert!(e.message.starts_with("table 'quiver-format-flip"), "{e}");
                }
                Ok((_, b)) => assert_eq!(concat(&b), expect, "byte {i} of {}", file.display()),
            }
        }
        // Every byte is covered by some checksum.
        assert_eq!(detected, good.len(), "{}", file.display());
        fs::write(&file, &good).unwrap();
    }
    // A damaged data page names its column and page.
    let file = data_file(&dir);
    let t = open_table(&dir).unwrap();
    let p = &t.layout.as_ref().unwrap().row_groups[1].pages[9];
    let mut bad = fs::read(&file).unwrap();
    bad[p.offset as usize + p.len as usize - 3] ^= 0xff;
    fs::write(&file, &bad).unwrap();
    let e = read_table(&dir).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "ERROR 1877 (HY000): table '{}', column 'comment', page 1: checksum mismatch",
            dir.file_name().unwrap().to_string_lossy()
        )
    );
    // Reading other columns still works: the damage is in that page only.
    assert!(t.read_columns(&[0, 1]).is_ok());
    assert!(t.read_columns(&[9]).is_err());
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn truncated_and_missing_files_are_errors() {
    let s = schema();
    let dir = temp_dir("truncate");
    write_table_with(
        &dir,
        &s,
        &[batch(&s, 0, 300)],
        &options(100, Compression::None),
    )
    .unwrap();
    let file = data_file(&dir);
    let good = fs::read(&file).unwrap();
    for len in [
        0,
        1,
        23,
        24,
        100,
        good.len() / 2,
        good.len() - 25,
        good.len() - 1,
    ] {
        fs::write(&file, &good[..len]).unwrap();
        let e = read_table(&dir).unwrap_err();
        assert_eq!(e.code, 1877, "length {len}: {e}");
    }
    // Extended (garbage appended) is refused as well.
    let mut longer = good.clone();
    longer.extend_from_slice(&[0u8; 10]);
    fs::write(&file, &longer).unwrap();
    assert_eq!(read_table(&dir).unwrap_err().code, 1877);
    fs::remove_file(&file).unwrap();
    let e = read_table(&dir).unwrap_err();
    assert_eq!(e.code, 1812, "{e}");
    assert!(e.message.contains("is missing"), "{e}");
    let _ = fs::remove_dir_all(&dir);
}

/// A table written by format 1 (a fixed file made by the previous writer)
/// is still read, and the next write converts it.
#[test]
fn format_1_tables_are_read_and_converted_on_write() {
    let dir = temp_dir("legacy");
    fs::create_dir_all(&dir).unwrap();
    fs::write(
        dir.join("table.meta"),
        "quiver-table 1\ngeneration 1\nrows 2\ncolumn\ta\tint64\t1\t2\ncolumn\ts\tutf8\t1\t2\n",
    )
    .unwrap();
    // QVRTBL01 | 1 batch | 2 rows | a: no nulls, 16 bytes | s: nulls bitmap, offsets, data | crc
    let mut body = b"QVRTBL01".to_vec();
    body.extend_from_slice(&1u64.to_le_bytes());
    body.extend_from_slice(&2u64.to_le_bytes());
    body.push(0);
    body.extend_from_slice(&16u64.to_le_bytes());
    body.extend_from_slice(&7i64.to_le_bytes());
    body.extend_from_slice(&(-1i64).to_le_bytes());
    body.push(1);
    body.extend_from_slice(&1u64.to_le_bytes());
    body.push(0b01);
    body.extend_from_slice(&12u64.to_le_bytes());
    for o in [0i32, 2, 2] {
        body.extend_from_slice(&o.to_le_bytes());
    }
    body.extend_from_slice(&2u64.to_le_bytes());
    body.extend_from_slice(b"hi");
    let crc = crc32c::crc32c(&body);
    body.extend_from_slice(&crc.to_le_bytes());
    fs::write(dir.join("data-1.bin"), &body).unwrap();
    let (meta, batches) = read_table(&dir).unwrap();
    assert_eq!(meta.format, 1);
    let b = &batches[0];
    assert_eq!(
        b.column(0).as_ref(),
        &Int64Array::from(vec![7, -1]) as &dyn arrow_array::Array
    );
    assert_eq!(
        b.column(1).as_ref(),
        &StringArray::from(vec![Some("hi"), None]) as &dyn arrow_array::Array
    );
    write_table(&dir, &meta.schema, &batches).unwrap();
    let (meta2, batches2) = read_table(&dir).unwrap();
    assert_eq!((meta2.format, meta2.generation), (2, 2));
    assert_eq!(batches2, batches);
    assert!(!dir.join("data-1.bin").exists());
    let _ = fs::remove_dir_all(&dir);
}

//! The two limits `quiver check` cannot beat, measured on the same files:
//!
//! * `read FILE... [--buf-mib N]`: a plain sequential read of every file, one
//!   after the other, into one reused page-aligned buffer of N MiB (default 8),
//!   on one thread, nothing else done with the bytes.
//! * `crc FILE... [--threads N]`: the files are loaded into memory first (not
//!   timed), then CRC-32C of all their bytes is computed (in 1 MiB pieces,
//!   the pieces split into N contiguous parts on N threads).
//!
//! Prints one line: `{"mode":..,"bytes":..,"seconds":..,"gb_per_s":..}`.
//! Used by bench/check.py as the speed of light: the slower of the two.

use std::fs::File;
use std::io::Read;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut files = Vec::new();
    let (mut buf_mib, mut threads) = (8usize, 2usize);
    let mut it = args.iter().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--buf-mib" => buf_mib = it.next().and_then(|v| v.parse().ok()).unwrap_or(8),
            "--threads" => threads = it.next().and_then(|v| v.parse().ok()).unwrap_or(2),
            f => files.push(f.to_string()),
        }
    }
    let mode = args.first().map(String::as_str).unwrap_or("");
    if files.is_empty() || !matches!(mode, "read" | "crc") {
        eprintln!("usage: check_speed_of_light read|crc FILE... [--buf-mib N] [--threads N]");
        std::process::exit(2);
    }
    let (bytes, seconds) = if mode == "read" {
        let len = buf_mib.max(1) << 20;
        let mut raw = vec![0u8; len + 4096];
        let off = raw.as_ptr().align_offset(4096);
        let buf = &mut raw[off..off + len];
        let t = Instant::now();
        let mut total = 0u64;
        for path in &files {
            let mut f = File::open(path).expect("open");
            loop {
                let n = f.read(buf).expect("read");
                if n == 0 {
                    break;
                }
                total += n as u64;
            }
        }
        (total, t.elapsed().as_secs_f64())
    } else {
        let data: Vec<Vec<u8>> = files
            .iter()
            .map(|p| std::fs::read(p).expect("read"))
            .collect();
        let pieces: Vec<&[u8]> = data.iter().flat_map(|d| d.chunks(1 << 20)).collect();
        let threads = threads.max(1);
        let per = pieces.len().div_ceil(threads);
        let t = Instant::now();
        let acc: u32 = std::thread::scope(|s| {
            let handles: Vec<_> = pieces
                .chunks(per.max(1))
                .map(|part| s.spawn(move || part.iter().fold(0u32, |x, p| x ^ crc32c::crc32c(p))))
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap())
                .fold(0, |a, b| a ^ b)
        });
        let secs = t.elapsed().as_secs_f64();
        // Keep the result observable so the work is not optimised away.
        eprintln!("xor of piece CRCs: {acc:08x}");
        (data.iter().map(|d| d.len() as u64).sum(), secs)
    };
    println!(
        "{{\"mode\":\"{mode}\",\"bytes\":{bytes},\"seconds\":{seconds:.6},\"gb_per_s\":{:.3}}}",
        bytes as f64 / seconds / 1e9
    );
}

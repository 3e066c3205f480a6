//! The two limits a page checksum verifier cannot beat, measured on one file:
//!
//! * `read FILE [--buf-mib N]`: a plain sequential read of the whole file into
//!   one reused buffer of N MiB (default 8), nothing else done with the bytes.
//! * `crc FILE [--threads N] [--page BYTES]`: the file is loaded into memory
//!   first (not timed), then CRC-32C of every page (default 16384 bytes) is
//!   computed with the verifier's routine, the pages split into N contiguous
//!   parts on N threads.
//!
//! Prints one line: `{"mode":..,"bytes":..,"seconds":..,"gb_per_s":..}`.
//! Used by bench/innochecksum.py as the speed of light: the slower of the two.

use std::fs::File;
use std::io::Read;
use std::time::Instant;

fn arg(args: &[String], name: &str, default: usize) -> usize {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(mode), Some(path)) = (args.get(1), args.get(2)) else {
        eprintln!("usage: speed_of_light read|crc FILE [--buf-mib N] [--threads N] [--page BYTES]");
        std::process::exit(2);
    };
    let (bytes, seconds) = match mode.as_str() {
        "read" => {
            // Page-aligned, as any careful reader would use: the kernel's copy into
            // a misaligned buffer is several times slower on some CPUs.
            let len = arg(&args, "--buf-mib", 8) << 20;
            let mut raw = vec![0u8; len + 4096];
            let off = raw.as_ptr().align_offset(4096);
            let buf = &mut raw[off..off + len];
            let mut f = File::open(path).expect("open");
            let t = Instant::now();
            let mut total = 0u64;
            loop {
                let n = f.read(buf).expect("read");
                if n == 0 {
                    break;
                }
                total += n as u64;
            }
            (total, t.elapsed().as_secs_f64())
        }
        "crc" => {
            let data = std::fs::read(path).expect("read");
            let threads = arg(&args, "--threads", 2).max(1);
            let page = arg(&args, "--page", 16384).max(1);
            let pages = data.len() / page;
            let per = pages.div_ceil(threads);
            // The same CRC routine the verifier uses for whole pages.
            let crc = quiver_innodb::crc::FixedCrc::new(page);
            let t = Instant::now();
            let acc: u32 = std::thread::scope(|s| {
                let handles: Vec<_> = (0..threads)
                    .map(|i| {
                        let lo = (i * per).min(pages) * page;
                        let hi = ((i + 1) * per).min(pages) * page;
                        let part = &data[lo..hi];
                        s.spawn(move || part.chunks_exact(page).fold(0u32, |x, p| x ^ crc.crc(p)))
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().unwrap())
                    .fold(0, |a, b| a ^ b)
            });
            let secs = t.elapsed().as_secs_f64();
            // Keep the result observable so the work is not optimised away.
            eprintln!("xor of page CRCs: {acc:08x}");
            ((pages * page) as u64, secs)
        }
        _ => {
            eprintln!("unknown mode {mode}");
            std::process::exit(2);
        }
    };
    println!(
        "{{\"mode\":\"{mode}\",\"bytes\":{bytes},\"seconds\":{seconds:.6},\"gb_per_s\":{:.3}}}",
        bytes as f64 / seconds / 1e9
    );
}

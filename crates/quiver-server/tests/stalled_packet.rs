//! A client that announces a huge packet and then stalls holds only the memory
//! of the bytes it sent, not of the length it announced; the server keeps
//! serving everyone else, and the stalled packet, once completed, is read
//! whole. When such clients, and clients sending malformed, truncated or
//! oversized packets, are gone, the heap is back where it was. The process's
//! heap is counted by a global allocator wrapping the system one (one test,
//! so nothing else allocates meanwhile).

mod common;

use std::io::Write;
use std::time::{Duration, Instant};

use common::*;
use quiver_common::heap::{self, CountingHeap};
use quiver_server::ServerConfig;

#[global_allocator]
static HEAP: CountingHeap = CountingHeap;

const MIB: i64 = 1 << 20;
const STALLED: usize = 8;
/// The announced length: one full packet (2^24 - 1 bytes), to be followed by
/// an empty continuation packet.
const ANNOUNCED: usize = 0xFF_FFFF;
/// What each stalled client sends of it.
const SENT: usize = 1 << 20;

#[test]
fn a_stalled_huge_packet_holds_only_what_arrived() {
    let (h, _db) = start(ServerConfig::default());
    let addr = h.local_addr();
    let mut bystander = Client::root(addr);
    let mut stalled: Vec<Client> = (0..STALLED).map(|_| Client::root(addr)).collect();
    for c in &mut stalled {
        c.stream
            .set_read_timeout(Some(Duration::from_secs(60)))
            .unwrap();
    }
    // A COM_QUERY of exactly ANNOUNCED bytes: SELECT 1 and a long comment.
    let mut body = b"\x03SELECT 1 /*".to_vec();
    body.resize(ANNOUNCED - 2, b'x');
    body.extend_from_slice(b"*/");
    let mut header = (ANNOUNCED as u32).to_le_bytes();
    header[3] = 0;

    let base = heap::live();
    for c in &mut stalled {
        c.stream.write_all(&header).unwrap();
        c.stream.write_all(&body[..SENT]).unwrap();
    }
    // Give the server time to take what was sent (a server that sizes the
    // payload by its header allocates it at once).
    let until = Instant::now() + Duration::from_millis(1500);
    let mut grown = 0;
    while Instant::now() < until {
        grown = grown.max(heap::live() - base);
        std::thread::sleep(Duration::from_millis(20));
    }
    // Each stalled connection may hold room for twice what it sent (the
    // payload's capacity doubles as it fills): 2 MiB and a bit, where the
    // announced length would be 16 MiB each.
    let limit = STALLED as i64 * 3 * MIB;
    eprintln!("heap growth: {:.1} MiB", grown as f64 / MIB as f64);
    assert!(
        grown < limit,
        "{STALLED} stalled packets of {} MiB sent / {} MiB announced grew the heap by {:.1} MiB (limit {} MiB)",
        SENT as i64 / MIB,
        (ANNOUNCED as i64 + 1) / MIB,
        grown as f64 / MIB as f64,
        limit / MIB
    );

    // Everyone else is served meanwhile.
    assert_eq!(
        bystander.query("SELECT 1 + 1").scalar().as_deref(),
        Some("2")
    );

    // One stalled client finishes its packet (the rest, then the empty
    // continuation packet): the whole query is read and answered.
    let c = &mut stalled[0];
    c.stream.write_all(&body[SENT..]).unwrap();
    c.stream.write_all(&[0, 0, 0, 1]).unwrap();
    c.seq = 2;
    let out = c.read_result(false);
    assert_eq!(out.scalar().as_deref(), Some("1"), "{out:?}");

    // The others give up: their connections end, the bystander's stays.
    stalled.truncate(0);
    wait_for_connections(&h, 1);
    assert_eq!(bystander.query("SELECT 3").scalar().as_deref(), Some("3"));

    // What the stalled connections held is freed with them.
    settle_near(base, "after the stalled packets' connections ended");

    // Rounds of bad packets, each on a connection of its own, to a server
    // with a 1 MiB packet limit: short, over the limit (announced, and sent
    // after login), truncated, out of order, garbage. Each ends its
    // connection with an error or silence. A first round warms up what a
    // connection makes once.
    let (small, _small_db) = start(ServerConfig {
        max_allowed_packet: 1 << 20,
        ..ServerConfig::default()
    });
    let small_addr = small.local_addr();
    let mut junk = vec![60, 0, 0, 1];
    junk.extend((0..60u8).map(|i| i.wrapping_mul(37)));
    let round = || {
        for bytes in [
            &[3, 0, 0, 1, 1, 2, 3][..],
            &[0xFF, 0xFF, 0xFF, 1],
            &[100, 0, 0, 1, 1, 2],
            &[1, 0, 0, 7, 0],
            &junk,
        ] {
            raw_after_handshake(small_addr, bytes);
        }
        let mut c = Client::root(small_addr);
        c.command(0x17, &[1, 2]);
        assert_eq!(c.read()[0], 0xFF);
        c.seq = 0;
        c.write(&[&[0x03][..], &vec![b'x'; (1 << 20) + 10]].concat());
        assert_eq!(c.read()[0], 0xFF);
    };
    round();
    wait_for_connections(&small, 0);
    let base = heap::live();
    for _ in 0..20 {
        round();
    }
    wait_for_connections(&small, 0);
    settle_near(base, "after 20 rounds of malformed and oversized packets");
    small.shutdown();
    assert_eq!(bystander.query("SELECT 4").scalar().as_deref(), Some("4"));
}

/// Waits (up to 10 s) for the live heap to come back within 1 MiB of `base`.
fn settle_near(base: i64, what: &str) {
    let until = Instant::now() + Duration::from_secs(10);
    while heap::live() - base > MIB && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(50));
    }
    let left = heap::live() - base;
    eprintln!("heap {what}: {:+.2} MiB", left as f64 / MIB as f64);
    assert!(
        left <= MIB,
        "the heap stayed {:.1} MiB above its level {what}",
        left as f64 / MIB as f64
    );
}

//! Packet framing: a 3-byte little-endian payload length and a 1-byte
//! sequence id, payloads of 2^24-1 bytes or more continued in further packets
//! (the last one shorter, possibly empty).

use std::io::{self, Read, Write};

/// The largest payload one packet carries; a payload this long continues.
pub const MAX_CHUNK: usize = 0xFF_FFFF;

/// The most read from the socket at once into the input buffer; longer
/// payloads are read straight into their own memory.
const INPUT_BUFFER: usize = 16 * 1024;

/// The most room made in a payload ahead of its bytes: a longer packet's
/// payload grows by this much at a time as the bytes arrive.
const GROWTH_STEP: usize = 64 * 1024;
/// The first capacity of a payload longer than `GROWTH_STEP`, doubled as it
/// fills.
const LONG_PAYLOAD_START: usize = 1 << 20;

/// Why reading a packet failed.
#[derive(Debug)]
pub enum ReadError {
    /// The connection ended (or timed out) before a whole packet came.
    Io(io::Error),
    /// The logical payload is longer than the server accepts (`max_allowed_packet`).
    TooLarge,
    /// The sequence id is not the one expected next.
    OutOfOrder { expected: u8, got: u8 },
}

impl From<io::Error> for ReadError {
    fn from(e: io::Error) -> Self {
        ReadError::Io(e)
    }
}

/// One connection's packet reader and writer. Writes are buffered until `flush`.
pub struct PacketIo<S> {
    stream: S,
    out: Vec<u8>,
    /// Bytes received: one `recv` usually brings a whole command (header and
    /// payload), where two exact reads took two calls. Allocated once, never
    /// cleared: `input[input_at..input_end]` are the bytes not yet taken.
    input: Box<[u8]>,
    input_at: usize,
    input_end: usize,
    /// The sequence id of the next packet, read or written.
    pub seq: u8,
    /// The longest payload accepted from the client.
    pub max_payload: usize,
}

impl<S: Read + Write> PacketIo<S> {
    pub fn new(stream: S, max_payload: usize) -> Self {
        PacketIo {
            stream,
            out: Vec::with_capacity(16 * 1024),
            input: vec![0; INPUT_BUFFER].into_boxed_slice(),
            input_at: 0,
            input_end: 0,
            seq: 0,
            max_payload,
        }
    }

    pub fn get_ref(&self) -> &S {
        &self.stream
    }

    pub fn get_mut(&mut self) -> &mut S {
        &mut self.stream
    }

    /// Reads one logical payload (joining continuation packets). The payload
    /// is never allocated beyond `max_payload`: a longer announced length is
    /// refused before its bytes are read. Nor beyond what has arrived: a long
    /// packet's memory grows with its bytes, not with its announced length.
    pub fn read_payload(&mut self) -> Result<Vec<u8>, ReadError> {
        let mut payload = Vec::new();
        loop {
            let mut header = [0u8; 4];
            self.read_exact(&mut header)?;
            let len = u32::from_le_bytes([header[0], header[1], header[2], 0]) as usize;
            if header[3] != self.seq {
                return Err(ReadError::OutOfOrder {
                    expected: self.seq,
                    got: header[3],
                });
            }
            self.seq = self.seq.wrapping_add(1);
            if payload.len() + len > self.max_payload {
                return Err(ReadError::TooLarge);
            }
            if len <= GROWTH_STEP {
                let start = payload.len();
                payload.resize(start + len, 0);
                self.read_exact(&mut payload[start..])?;
            } else {
                self.read_growing(&mut payload, len)?;
            }
            if len < MAX_CHUNK {
                return Ok(payload);
            }
        }
    }

    /// Appends `len` bytes to `payload`, growing it only as they arrive: at
    /// most 1 MiB or as much as has been read is made room for ahead of the
    /// bytes, so a client that announces a long packet and stalls holds about
    /// what it has sent, not what it announced.
    fn read_growing(&mut self, payload: &mut Vec<u8>, len: usize) -> io::Result<()> {
        let end = payload.len() + len;
        let mut left = len;
        while left > 0 {
            let step = left.min(GROWTH_STEP);
            let start = payload.len();
            if payload.capacity() - start < step {
                // Doubling, but from 1 MiB on: the allocator keeps the sizes
                // between 64 KiB and 1 MiB in pages of their own per thread,
                // which a payload passing through each of them would all hold.
                let capacity = (start + step)
                    .max(payload.capacity() * 2)
                    .max(LONG_PAYLOAD_START)
                    .min(end);
                payload.reserve_exact(capacity - start);
            }
            payload.resize(start + step, 0);
            self.read_exact(&mut payload[start..])?;
            left -= step;
        }
        Ok(())
    }

    /// Fills `dst` from the input buffer, then from the socket: small reads
    /// through the buffer (one `recv` for what has arrived), a large rest
    /// straight into `dst`.
    fn read_exact(&mut self, mut dst: &mut [u8]) -> io::Result<()> {
        loop {
            let buffered = &self.input[self.input_at..self.input_end];
            let n = buffered.len().min(dst.len());
            dst[..n].copy_from_slice(&buffered[..n]);
            self.input_at += n;
            dst = &mut dst[n..];
            if dst.is_empty() {
                return Ok(());
            }
            // The buffer is empty here.
            if dst.len() >= INPUT_BUFFER {
                return self.stream.read_exact(dst);
            }
            let got = loop {
                match self.stream.read(&mut self.input) {
                    Ok(n) => break n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) => {
                        self.input_at = 0;
                        self.input_end = 0;
                        return Err(e);
                    }
                }
            };
            self.input_at = 0;
            self.input_end = got;
            if got == 0 {
                return Err(io::ErrorKind::UnexpectedEof.into());
            }
        }
    }

    /// Queues one logical payload, split into packets as needed.
    pub fn write_payload(&mut self, payload: &[u8]) {
        let mut rest = payload;
        loop {
            let n = rest.len().min(MAX_CHUNK);
            self.out.extend_from_slice(&(n as u32).to_le_bytes()[..3]);
            self.out.push(self.seq);
            self.seq = self.seq.wrapping_add(1);
            self.out.extend_from_slice(&rest[..n]);
            rest = &rest[n..];
            if n < MAX_CHUNK {
                return;
            }
        }
    }

    /// Bytes queued and not yet sent.
    pub fn pending(&self) -> usize {
        self.out.len()
    }

    pub fn flush(&mut self) -> io::Result<()> {
        if !self.out.is_empty() {
            self.stream.write_all(&self.out)?;
            self.out.clear();
            // A huge row leaves no huge buffer behind for the connection's life.
            if self.out.capacity() > 4 << 20 {
                self.out.shrink_to(64 * 1024);
            }
        }
        self.stream.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stream that reads from a fixed buffer and collects writes.
    struct Pipe {
        input: io::Cursor<Vec<u8>>,
        output: Vec<u8>,
    }
    impl Read for Pipe {
        fn read(&mut self, b: &mut [u8]) -> io::Result<usize> {
            self.input.read(b)
        }
    }
    impl Write for Pipe {
        fn write(&mut self, b: &[u8]) -> io::Result<usize> {
            self.output.extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    fn pipe(input: Vec<u8>) -> PacketIo<Pipe> {
        PacketIo::new(
            Pipe {
                input: io::Cursor::new(input),
                output: vec![],
            },
            64 << 20,
        )
    }

    #[test]
    fn a_long_payload_round_trips_through_continuation_packets() {
        let payload: Vec<u8> = (0..MAX_CHUNK * 2 + 5).map(|i| (i % 251) as u8).collect();
        let mut w = pipe(vec![]);
        w.write_payload(&payload);
        w.flush().unwrap();
        let bytes = std::mem::take(&mut w.stream.output);
        // Three packets: two full ones and the 5-byte rest.
        assert_eq!(bytes.len(), payload.len() + 3 * 4);
        assert_eq!(&bytes[..4], &[0xFF, 0xFF, 0xFF, 0]);
        let mut r = pipe(bytes);
        assert_eq!(r.read_payload().unwrap(), payload);
        assert_eq!(r.seq, 3);
    }

    #[test]
    fn an_exact_multiple_of_the_chunk_ends_with_an_empty_packet() {
        let payload = vec![7u8; MAX_CHUNK];
        let mut w = pipe(vec![]);
        w.write_payload(&payload);
        let out = &w.out;
        assert_eq!(out.len(), MAX_CHUNK + 8);
        assert_eq!(&out[out.len() - 4..], &[0, 0, 0, 1]);
    }

    #[test]
    fn oversized_truncated_and_out_of_order_packets_are_refused() {
        let mut r = pipe(vec![0xFF, 0xFF, 0xFF, 0]);
        r.max_payload = 1000;
        assert!(matches!(r.read_payload(), Err(ReadError::TooLarge)));
        let mut r = pipe(vec![10, 0, 0, 0, 1, 2]);
        assert!(matches!(r.read_payload(), Err(ReadError::Io(_))));
        let mut r = pipe(vec![1, 0, 0, 5, 1]);
        assert!(matches!(
            r.read_payload(),
            Err(ReadError::OutOfOrder {
                expected: 0,
                got: 5
            })
        ));
    }

    /// A reader that hands out at most `step` bytes per call.
    struct Trickle {
        data: Vec<u8>,
        at: usize,
        step: usize,
        calls: usize,
    }
    impl Read for Trickle {
        fn read(&mut self, b: &mut [u8]) -> io::Result<usize> {
            self.calls += 1;
            let n = self.step.min(b.len()).min(self.data.len() - self.at);
            b[..n].copy_from_slice(&self.data[self.at..self.at + n]);
            self.at += n;
            Ok(n)
        }
    }
    impl Write for Trickle {
        fn write(&mut self, b: &[u8]) -> io::Result<usize> {
            Ok(b.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    /// Packets split anywhere by the network, or several in one read, or
    /// longer than the input buffer: each payload comes out whole, in order.
    #[test]
    fn buffered_reads_join_split_packets_and_separate_pipelined_ones() {
        let payloads: Vec<Vec<u8>> = [3usize, 0, 70_000, 1, 16 * 1024 - 4, 16 * 1024, 9]
            .iter()
            .enumerate()
            .map(|(k, &n)| (0..n).map(|i| (i * 7 + k) as u8).collect())
            .collect();
        let mut bytes = vec![];
        for p in &payloads {
            let mut w = pipe(vec![]);
            w.write_payload(p);
            bytes.extend_from_slice(&w.out);
        }
        for step in [1, 3, 4, 5, 1000, 1 << 20] {
            let mut r = PacketIo::new(
                Trickle {
                    data: bytes.clone(),
                    at: 0,
                    step,
                    calls: 0,
                },
                64 << 20,
            );
            for p in &payloads {
                r.seq = 0;
                assert_eq!(&r.read_payload().unwrap(), p, "step {step}");
            }
            assert!(matches!(r.read_payload(), Err(ReadError::Io(_))));
            if step == 1 << 20 {
                // Whole reads: the small packets came with earlier calls.
                assert!(r.stream.calls < payloads.len(), "{} calls", r.stream.calls);
            }
        }
    }
}

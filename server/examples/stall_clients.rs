//! Stalled clients for `scripts/stall-rss`: opens CONNECTIONS connections to ADDR, each
//! sending the head of a batch quote that declares a 16 MiB body under KEY, then SENT
//! bytes of that body, then nothing for SECONDS; prints how each connection ended (the
//! status line of an answer, or that it was still waiting).
//!
//! ```text
//! cargo run --release -p consign-server --example stall_clients -- ADDR KEY CONNECTIONS SENT SECONDS
//! ```

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a measuring tool: a panic is a failed run")]

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [addr, key, connections, sent, seconds] = args.as_slice() else {
        eprintln!("usage: stall_clients ADDR KEY CONNECTIONS SENT SECONDS");
        std::process::exit(2);
    };
    let (connections, sent, seconds): (usize, usize, u64) = (connections.parse().unwrap(), sent.parse().unwrap(), seconds.parse().unwrap());
    let declared = consign::limits::MAX_BODY;
    let head = format!(
        "POST /restapi/v1/customers/C0000001/batch-quote HTTP/1.1\r\nHost: x\r\nAuthorization: RSIS {key}\r\nContent-Length: {declared}\r\n\r\n"
    );
    let until = Instant::now() + Duration::from_secs(seconds);
    let clients: Vec<_> = (0..connections)
        .map(|_| {
            let (addr, head) = (addr.clone(), head.clone());
            std::thread::spawn(move || {
                let mut socket = TcpStream::connect(&addr).unwrap();
                socket.write_all(head.as_bytes()).unwrap();
                let chunk = vec![b' '; 64 << 10];
                let mut left = sent.min(declared - 1);
                while left > 0 {
                    let n = left.min(chunk.len());
                    if socket.write_all(&chunk[..n]).is_err() {
                        break;
                    }
                    left -= n;
                }
                // Stalled: wait for an answer or the end of the run.
                let mut answer = Vec::new();
                let mut buf = [0u8; 4096];
                loop {
                    let left = until.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        break;
                    }
                    socket.set_read_timeout(Some(left)).unwrap();
                    match socket.read(&mut buf) {
                        Ok(0) | Err(_) => break,
                        Ok(n) => answer.extend_from_slice(&buf[..n]),
                    }
                }
                let text = String::from_utf8_lossy(&answer);
                text.lines().next().map_or_else(|| "no answer (still waiting or closed)".to_string(), str::to_string)
            })
        })
        .collect();
    let mut ends = BTreeMap::<String, usize>::new();
    for client in clients {
        *ends.entry(client.join().unwrap()).or_default() += 1;
    }
    for (end, count) in ends {
        println!("{count:>4} x {end}");
    }
}

//! A tiny HTTP CONNECT proxy on 127.0.0.1 for `tests/tls.rs`: it records
//! the head of every request it gets (target and `Proxy-Authorization`) and
//! tunnels CONNECTs to loopback targets, or refuses every request with 407
//! (to see what a client prints when a proxy turns it away).

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

/// One request the proxy received.
#[derive(Clone, Debug)]
pub struct Seen {
    /// The request line (`CONNECT 127.0.0.1:4443 HTTP/1.1`).
    pub line: String,
    /// The `Proxy-Authorization` header, when sent.
    pub auth: Option<String>,
}

/// What the proxy does with a request.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Tunnel CONNECTs to 127.0.0.1 (anything else: 403).
    Tunnel,
    /// Answer 407 Proxy Authentication Required.
    Refuse,
}

/// A running proxy (its threads live as long as the test process).
pub struct ConnectProxy {
    /// `http://127.0.0.1:<port>`.
    pub url: String,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl ConnectProxy {
    /// Binds 127.0.0.1:0 and serves on a thread.
    pub fn start(mode: Mode) -> ConnectProxy {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind the proxy");
        let url = format!("http://{}", listener.local_addr().unwrap());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&seen);
        std::thread::spawn(move || {
            for conn in listener.incoming().flatten() {
                let log = Arc::clone(&log);
                std::thread::spawn(move || serve(conn, mode, &log));
            }
        });
        ConnectProxy { url, seen }
    }

    /// The requests received so far.
    pub fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

/// Handles one client connection.
fn serve(mut client: TcpStream, mode: Mode, log: &Mutex<Vec<Seen>>) {
    let Some((head, rest)) = read_head(&mut client) else {
        return;
    };
    let line = head.lines().next().unwrap_or_default().to_string();
    let auth = head
        .lines()
        .find_map(|l| l.strip_prefix("Proxy-Authorization: "))
        .map(String::from);
    log.lock().unwrap().push(Seen {
        line: line.clone(),
        auth,
    });
    let target = line
        .strip_prefix("CONNECT ")
        .and_then(|t| t.split(' ').next())
        .filter(|t| t.starts_with("127.0.0.1:"));
    match (mode, target) {
        (Mode::Refuse, _) => {
            let _ = client.write_all(
                b"HTTP/1.1 407 Proxy Authentication Required\r\n\
                  Proxy-Authenticate: Basic realm=\"test\"\r\nContent-Length: 0\r\n\r\n",
            );
        }
        (Mode::Tunnel, Some(t)) => tunnel(client, t, &rest),
        (Mode::Tunnel, None) => {
            let _ = client.write_all(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n");
        }
    }
}

/// Reads up to the blank line ending the request head (at most 16 KiB);
/// returns the head and any bytes read past it.
fn read_head(client: &mut TcpStream) -> Option<(String, Vec<u8>)> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let rest = buf.split_off(end + 4);
            return Some((String::from_utf8_lossy(&buf).into_owned(), rest));
        }
        let n = client.read(&mut chunk).ok().filter(|&n| n > 0)?;
        buf.extend_from_slice(&chunk[..n]);
        if buf.len() > 16 * 1024 {
            return None;
        }
    }
}

/// Answers 200 and copies bytes both ways until either side closes.
fn tunnel(mut client: TcpStream, target: &str, early: &[u8]) {
    let Ok(mut upstream) = TcpStream::connect(target) else {
        let _ = client.write_all(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n");
        return;
    };
    if client
        .write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")
        .is_err()
        || upstream.write_all(early).is_err()
    {
        return;
    }
    let (Ok(mut c2), Ok(mut u2)) = (client.try_clone(), upstream.try_clone()) else {
        return;
    };
    let up = std::thread::spawn(move || {
        let _ = std::io::copy(&mut c2, &mut u2);
        let _ = u2.shutdown(Shutdown::Write);
    });
    let _ = std::io::copy(&mut upstream, &mut client);
    let _ = client.shutdown(Shutdown::Write);
    let _ = up.join();
}

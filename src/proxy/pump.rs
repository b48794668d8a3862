//! The message pump: three threads of ours plus the upstream's own.
//!
//! - **client reader** (`proxy-client-in`): reads the client's lines (each
//!   at most `--max-line-bytes`), decides each ([`Enforcer::client`]), and
//!   forwards it with [`Upstream::send`], or queues the proxy's own answer;
//!   it registers a `tools/list` id *before* forwarding it, so the answer
//!   always finds it;
//! - **upstream threads** (for stdio, the server's stdout thread): call
//!   `deliver` with each server message in order, which decides it
//!   ([`Enforcer::server`]) and queues it for the client;
//! - **client writer** (`proxy-client-out`): the only one that writes to
//!   the client; it writes whole lines, one `write_all` each, from a queue
//!   bounded in bytes ([`OUT_BUDGET`]): a client that stops reading
//!   back-pressures the server through its pipe instead of filling memory;
//! - **the caller's thread** waits for the first end (client EOF, the
//!   client gone, a signal, the server closed, a failed send), sets the
//!   stop flag (a client reader waiting for room on a stdio server's stdin
//!   gives up within 50 ms and releases the upstream's lock), shuts the
//!   server down, lets the last server messages through and the writer
//!   finish (each wait bounded), and returns.

use std::boxed::Box;
use std::io::{BufWriter, Read, Write};
use std::string::{String, ToString};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};
use std::vec::Vec;

use crate::mcp::byte_queue::{byte_queue, Receiver, Sender};
use crate::mcp::stdio::{read_lines, Event};

use super::enforce::{Enforcer, Forward};
use super::signals;
use super::upstream::{Deliver, FromServer, Upstream};
use super::Ending;

/// Bytes of lines queued for the client at most (one longer line passes alone).
pub(crate) const OUT_BUDGET: usize = 4 << 20;
/// How often the caller's thread looks for a signal.
const SIGNAL_POLL: Duration = Duration::from_millis(100);
/// After shutdown, how long the server's last messages may take to arrive.
const LAST_MESSAGES: Duration = Duration::from_secs(1);
/// How long the writer may take to hand the last lines to the client.
const LAST_WRITES: Duration = Duration::from_secs(2);
/// The client writer's buffer (a burst of lines, one system call).
const WRITE_BUFFER: usize = 64 * 1024;

/// A line for the client, or `None`: the writer stops.
type Out = Option<Vec<u8>>;

/// Why the session ends.
enum End {
    ClientEof,
    ClientGone(String),
    ClientFailed(String),
    Server(String),
    SendFailed(String),
    Signal(i32),
}

type SharedUpstream = Arc<Mutex<Box<dyn Upstream>>>;

fn lock(u: &SharedUpstream) -> MutexGuard<'_, Box<dyn Upstream>> {
    u.lock().unwrap_or_else(|p| p.into_inner())
}

/// Runs one session; returns how it ended and the message for the user.
/// `stop` is set at the end, before the upstream's lock is taken to shut it
/// down (the stdio upstream's `send` watches it).
pub(crate) fn run<R, W>(
    upstream: Box<dyn Upstream>,
    enforcer: Arc<Enforcer>,
    input: R,
    output: W,
    max_line: usize,
    stop: &AtomicBool,
) -> (Ending, String)
where
    R: Read + Send + 'static,
    W: Write + Send + 'static,
{
    let (end_tx, end_rx) = mpsc::channel();
    let (out_tx, out_rx) = byte_queue::<Out>(OUT_BUDGET);
    let (out_tx, out_rx) = (Arc::new(out_tx), Arc::new(out_rx));
    let upstream: SharedUpstream = Arc::new(Mutex::new(upstream));
    let started = lock(&upstream).start(deliver(enforcer.clone(), out_tx.clone(), end_tx.clone()));
    if let Err(e) = started {
        lock(&upstream).shutdown();
        return (Ending::ServerNotStarted, e.to_string());
    }
    let writer = spawn_writer(output, out_rx.clone(), end_tx.clone());
    let reader = spawn_reader(
        input,
        max_line,
        enforcer,
        upstream.clone(),
        out_tx.clone(),
        end_tx,
    );
    let first = match (&writer, reader) {
        (Some(_), Ok(())) => wait_first(&end_rx),
        _ => End::ClientFailed(String::from("could not start the proxy's threads")),
    };
    let server_closed = matches!(first, End::Server(_));
    stop.store(true, Ordering::Release);
    lock(&upstream).shutdown();
    if !server_closed {
        wait_for_server_close(&end_rx);
    }
    if let Some(done) = writer {
        let stop = Instant::now() + LAST_WRITES;
        if out_tx.send_until(None, 0, Some(stop)).is_ok() {
            let _ = done.recv_timeout(stop.saturating_duration_since(Instant::now()));
        }
    }
    out_rx.close();
    describe(first)
}

/// The ending and message of the first end.
fn describe(first: End) -> (Ending, String) {
    match first {
        End::ClientEof => (
            Ending::ClientClosed,
            String::from("the client closed the proxy's stdin"),
        ),
        End::ClientGone(e) => (
            Ending::ClientClosed,
            std::format!("the client stopped reading the proxy's stdout ({e})"),
        ),
        End::Signal(n) => (
            Ending::Signal(n),
            std::format!("stopped by {}", signals::name(n)),
        ),
        End::ClientFailed(why) => (Ending::ClientFailed, why),
        End::Server(why) | End::SendFailed(why) => (Ending::ServerFailed, why),
    }
}

/// The first end, or a signal.
fn wait_first(rx: &mpsc::Receiver<End>) -> End {
    loop {
        match rx.recv_timeout(SIGNAL_POLL) {
            Ok(e) => return e,
            Err(RecvTimeoutError::Timeout) => {
                if let Some(n) = signals::received() {
                    return End::Signal(n);
                }
            }
            Err(RecvTimeoutError::Disconnected) => {
                return End::Server(String::from("the connection to the server ended"))
            }
        }
    }
}

/// Waits (bounded) until the upstream has delivered everything.
fn wait_for_server_close(rx: &mpsc::Receiver<End>) {
    let until = Instant::now() + LAST_MESSAGES;
    loop {
        match rx.recv_timeout(until.saturating_duration_since(Instant::now())) {
            Ok(End::Server(_)) | Err(_) => return,
            Ok(_) => {}
        }
    }
}

/// The upstream's callback: each server message decided and queued.
fn deliver(enforcer: Arc<Enforcer>, out: Arc<Sender<Out>>, end: mpsc::Sender<End>) -> Deliver {
    Box::new(move |m| match m {
        FromServer::Message(bytes) => match enforcer.server(bytes) {
            Some(line) => {
                let cost = line.capacity();
                out.send(Some(line), cost).is_ok()
            }
            None => true,
        },
        FromServer::Closed(why) => {
            let _ = end.send(End::Server(enforcer.log().mask(&why)));
            false
        }
    })
}

/// The client writer; its receiver tells when it is done.
fn spawn_writer<W: Write + Send + 'static>(
    w: W,
    rx: Arc<Receiver<Out>>,
    end: mpsc::Sender<End>,
) -> Option<mpsc::Receiver<()>> {
    let (done_tx, done_rx) = mpsc::channel();
    let spawned = std::thread::Builder::new()
        .name(String::from("proxy-client-out"))
        .spawn(move || {
            let mut w = BufWriter::with_capacity(WRITE_BUFFER, w);
            while let Ok(Some(line)) = rx.recv() {
                match write_batch(&mut w, line, &rx) {
                    Ok(false) => {}
                    Ok(true) => break,
                    Err(e) => {
                        let _ = end.send(End::ClientGone(e.to_string()));
                        rx.close();
                        break;
                    }
                }
            }
            let _ = w.flush();
            let _ = done_tx.send(());
        });
    spawned.ok().map(|_| done_rx)
}

/// Writes `first` and every line already queued behind it, then flushes:
/// one system call for a burst, none held back when the queue is empty.
/// A line larger than the buffer is written directly, whole. `true` when
/// the stop marker came in the burst.
fn write_batch<W: Write>(
    w: &mut BufWriter<W>,
    first: Vec<u8>,
    rx: &Receiver<Out>,
) -> std::io::Result<bool> {
    w.write_all(&first)?;
    drop(first);
    let mut stop = false;
    loop {
        match rx.recv_timeout(Duration::ZERO) {
            Ok(Some(line)) => w.write_all(&line)?,
            Ok(None) => {
                stop = true;
                break;
            }
            Err(_) => break,
        }
    }
    w.flush()?;
    Ok(stop)
}

/// The client reader.
fn spawn_reader<R: Read + Send + 'static>(
    input: R,
    max_line: usize,
    enforcer: Arc<Enforcer>,
    upstream: SharedUpstream,
    out: Arc<Sender<Out>>,
    end: mpsc::Sender<End>,
) -> std::io::Result<()> {
    let on_event = move |ev: Event| match ev {
        Event::Line(line) => client_line(&line, &enforcer, &upstream, &out, &end),
        Event::Eof => {
            let _ = end.send(End::ClientEof);
            false
        }
        Event::TooLong(n) => {
            let _ = end.send(End::ClientFailed(std::format!(
                "the client wrote a line longer than {n} bytes (the line limit, --max-line-bytes)"
            )));
            false
        }
        Event::Failed(why) => {
            let _ = end.send(End::ClientFailed(std::format!(
                "reading the client's messages failed: {why}"
            )));
            false
        }
    };
    std::thread::Builder::new()
        .name(String::from("proxy-client-in"))
        .spawn(move || read_lines(input, max_line, |ev, _| on_event(ev)))
        .map(|_| ())
}

/// One client line: answered, forwarded, or both (a batch); `false` ends reading.
fn client_line(
    line: &[u8],
    enforcer: &Enforcer,
    upstream: &SharedUpstream,
    out: &Sender<Out>,
    end: &mpsc::Sender<End>,
) -> bool {
    let decided = enforcer.client(line);
    if let Some(reply) = decided.reply {
        let cost = reply.capacity();
        if out.send(Some(reply), cost).is_err() {
            return false;
        }
    }
    let sent = match &decided.forward {
        Forward::Same => lock(upstream).send(line),
        Forward::Replaced(b) => lock(upstream).send(b),
        Forward::Nothing => return true,
    };
    match sent {
        Ok(()) => true,
        Err(e) => {
            let _ = end.send(End::SendFailed(enforcer.log().mask(&e.to_string())));
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::guard::GuardMode;
    use crate::lock::{LockServer, Source};
    use crate::mcp::McpError;
    use crate::proxy::enforce::Policy;
    use crate::proxy::log::EventLog;
    use crate::proxy::OnDrift;
    use std::sync::mpsc::Sender as ChanSender;

    const PINNED: &[u8] = br#"{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}"#;

    /// An upstream whose "server" runs on its own thread: tools/list gets
    /// `a` and an unpinned `evil`, any other request `{}`.
    #[derive(Default)]
    struct Mock {
        tx: Option<ChanSender<Vec<u8>>>,
    }

    impl Upstream for Mock {
        fn start(&mut self, mut deliver: Deliver) -> Result<(), McpError> {
            let (tx, rx) = mpsc::channel::<Vec<u8>>();
            self.tx = Some(tx);
            std::thread::spawn(move || {
                for msg in rx {
                    let text = String::from_utf8(msg).unwrap();
                    let id = text
                        .split("\"id\":")
                        .nth(1)
                        .and_then(|r| r.split(',').next())
                        .unwrap()
                        .to_string();
                    let result = if text.contains("tools/list") {
                        r#"{"tools":[{"name":"a","inputSchema":{"type":"object"}},{"name":"evil","inputSchema":{}}]}"#
                    } else {
                        "{}"
                    };
                    let answer = std::format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{result}}}"#);
                    if !deliver(FromServer::Message(answer.into_bytes())) {
                        return;
                    }
                }
                deliver(FromServer::Closed(String::from("the mock ended")));
            });
            Ok(())
        }

        fn send(&mut self, message: &[u8]) -> Result<(), McpError> {
            let tx = self.tx.as_ref().expect("started");
            tx.send(message.to_vec())
                .map_err(|_| McpError::new(crate::mcp::McpErrorKind::Io, "gone"))
        }

        fn shutdown(&mut self) {
            self.tx = None;
        }
    }

    #[derive(Clone, Default)]
    struct Out(Arc<Mutex<Vec<u8>>>);
    impl Write for Out {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn enforcer() -> Arc<Enforcer> {
        let digests = crate::digest_tools_list(PINNED).unwrap();
        let pinned = LockServer::from_server_digest(Source::File { path: "x".into() }, &digests);
        let policy = Policy {
            server: "m".into(),
            pinned,
            mode: GuardMode::Enforce,
            on_drift: OnDrift::Hide,
            limits: crate::Limits::DEFAULT,
            check_instructions: true,
            max_message: crate::MAX_INPUT,
        };
        Arc::new(Enforcer::new(
            policy,
            EventLog::new(Box::new(std::io::sink()), Vec::new()),
        ))
    }

    #[test]
    fn a_session_with_an_in_memory_upstream() {
        let input = concat!(
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
            "\n",
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"evil"}}"#,
            "\n",
            r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#,
        );
        let out = Out::default();
        let (ending, msg) = run(
            Box::new(Mock::default()),
            enforcer(),
            std::io::Cursor::new(input.as_bytes().to_vec()),
            out.clone(),
            1 << 20,
            &AtomicBool::new(false),
        );
        assert_eq!(ending, Ending::ClientClosed, "{msg}");
        let text = String::from_utf8(out.0.lock().unwrap().clone()).unwrap();
        assert!(text.ends_with('\n'), "{text}");
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3, "{text}");
        assert!(lines.contains(&r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}}"#), "{text}");
        // The last line of input had no newline: still a message.
        assert!(
            lines.contains(&r#"{"jsonrpc":"2.0","id":3,"result":{}}"#),
            "{text}"
        );
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with(r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32602"#)),
            "{text}"
        );
    }

    #[test]
    fn a_client_line_over_the_limit_ends_the_session() {
        let (ending, msg) = run(
            Box::new(Mock::default()),
            enforcer(),
            std::io::Cursor::new(std::vec![b'x'; 5000]),
            Out::default(),
            100,
            &AtomicBool::new(false),
        );
        assert_eq!(ending, Ending::ClientFailed);
        assert!(msg.contains("longer than 100 bytes"), "{msg}");
    }
}

//! What the handshake and pagination need from a transport, and the clock
//! that turns the two timeouts into deadlines.

use std::string::String;
use std::time::{Duration, Instant};
use std::vec::Vec;

use super::error::{McpError, McpErrorKind};
use super::options::ClientOptions;

/// `budget` after `now`, or a year after it when the sum overflows the
/// clock (the one rule for a user's timeout too long to add).
fn later(now: Instant, budget: Duration) -> Instant {
    now.checked_add(budget)
        .unwrap_or(now + Duration::from_secs(86_400 * 365))
}

/// When the current wait must end, and why.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Deadline {
    /// The instant.
    pub at: Instant,
    /// Whether it is the end of the total budget (else the per-request one).
    pub total: bool,
    /// The configured duration that produced it (for messages).
    pub budget: Duration,
}

impl Deadline {
    /// `budget` from now; a budget too long for the clock (`--timeout 1e19`)
    /// ends a year from now, which no session outlives (the HTTP proxies'
    /// waits).
    #[cfg(any(test, feature = "mcp-http"))]
    pub fn after(budget: Duration, total: bool) -> Deadline {
        Deadline {
            at: later(Instant::now(), budget),
            total,
            budget,
        }
    }

    /// Time left (zero when passed).
    pub fn remaining(&self) -> Duration {
        self.at.saturating_duration_since(Instant::now())
    }

    /// Whether the deadline has passed.
    pub fn passed(&self) -> bool {
        Instant::now() >= self.at
    }

    /// The timeout error for a wait on `what` (e.g. `"an answer to tools/list"`).
    pub fn error(&self, what: &str) -> McpError {
        let which = if self.total {
            "total timeout"
        } else {
            "request timeout"
        };
        McpError::new(
            McpErrorKind::Timeout,
            std::format!("no {what} within the {which} of {}", secs(self.budget)),
        )
    }
}

fn secs(d: Duration) -> String {
    if d.subsec_millis() == 0 {
        std::format!("{} s", d.as_secs())
    } else {
        std::format!("{:.1} s", d.as_secs_f64())
    }
}

/// The two timeouts of [`ClientOptions`] as a clock.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Clock {
    end: Instant,
    total: Duration,
    request: Duration,
}

impl Clock {
    /// Starts the total budget now.
    pub fn start(opts: &ClientOptions) -> Clock {
        let now = Instant::now();
        Clock {
            end: later(now, opts.total_timeout),
            total: opts.total_timeout,
            request: opts.request_timeout,
        }
    }

    /// The deadline of a request starting now: the earlier of the request
    /// and the total budget.
    pub fn request(&self) -> Deadline {
        let now = Instant::now();
        match now.checked_add(self.request) {
            Some(r) if r < self.end => Deadline {
                at: r,
                total: false,
                budget: self.request,
            },
            _ => self.total(),
        }
    }

    /// The end of the total budget.
    pub fn total(&self) -> Deadline {
        Deadline {
            at: self.end,
            total: true,
            budget: self.total,
        }
    }
}

/// A connection to a server that can carry JSON-RPC requests.
pub(crate) trait Transport {
    /// Sends `message` (request `id`, method `method`) and waits for the
    /// answer: canonical JSON of `result`, or the JSON-RPC error as an
    /// [`McpErrorKind::JsonRpc`] error.
    fn request(
        &mut self,
        id: u64,
        method: &str,
        message: &[u8],
        deadline: &Deadline,
    ) -> Result<Vec<u8>, McpError>;

    /// Sends a notification.
    fn notify(&mut self, method: &str, message: &[u8], deadline: &Deadline)
        -> Result<(), McpError>;

    /// Tells the transport which protocol version the following requests use
    /// (HTTP sends it as a header; `None` before `initialize` is answered).
    /// `modern` is the `server/discover` generation (HTTP then also names
    /// the method in a header).
    fn set_version(&mut self, _version: Option<&str>, _modern: bool) {}

    /// Stdout lines skipped because they were not JSON-RPC messages.
    fn skipped_lines(&self) -> usize {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A timeout too long to add to the clock is a year, never "now" (a
    /// proxy with `--timeout 1e19` timed every HTTP request out at once).
    #[test]
    fn a_budget_too_long_for_the_clock_ends_a_year_away() {
        let d = Deadline::after(Duration::MAX, false);
        assert!(d.remaining() > Duration::from_secs(86_400 * 364), "{d:?}");
        assert_eq!(d.budget, Duration::MAX);
        let d = Deadline::after(Duration::from_secs(5), true);
        assert!(d.remaining() <= Duration::from_secs(5) && d.total);
    }
}

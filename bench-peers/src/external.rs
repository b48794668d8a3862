//! The peers in other languages: each script digests a payload file, prints
//! its digests, times itself and reports one JSON line.

use std::path::Path;
use std::process::Command;

use crate::peers::Output;
use crate::timing::Timing;

/// One external peer run.
pub struct External {
    /// The digests it computed.
    pub output: Output,
    /// Its own timing of the pipeline (interpreter start-up excluded).
    pub timing: Timing,
}

/// Runs `program args... FILE BUDGET_SECONDS` and parses its JSON report.
pub fn run(program: &str, args: &[&str], file: &Path, budget_s: f64) -> Result<External, String> {
    let out = Command::new(program)
        .args(args)
        .arg(file)
        .arg(format!("{budget_s}"))
        .output()
        .map_err(|e| format!("cannot run {program}: {e}"))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let last = err.lines().last().unwrap_or("").to_string();
        return Err(format!("{program} failed: {last}"));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().last().ok_or("no output")?;
    let v: serde_json::Value =
        serde_json::from_str(line).map_err(|e| format!("bad report: {e}"))?;
    let num = |k: &str| {
        v.get(k)
            .and_then(serde_json::Value::as_f64)
            .unwrap_or(f64::NAN)
    };
    let tools = v
        .get("tools")
        .and_then(serde_json::Value::as_array)
        .ok_or("report without tools")?
        .iter()
        .filter_map(|pair| {
            let a = pair.as_array()?;
            Some((
                a.first()?.as_str()?.to_string(),
                a.get(1)?.as_str()?.to_string(),
            ))
        })
        .collect();
    Ok(External {
        output: Output {
            server: v
                .get("server")
                .and_then(|s| s.as_str())
                .unwrap_or("")
                .to_string(),
            tools,
        },
        timing: Timing {
            median: num("median_s"),
            min: num("min_s"),
            runs: num("runs") as usize,
        },
    })
}

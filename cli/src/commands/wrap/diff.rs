//! A small unified line diff (for `wrap --dry-run`): the library's bounded
//! longest common subsequence ([`contractpin::drift::edits`]) over lines,
//! three lines of context, hunks merged when their context touches.

use contractpin::drift::{edits, Edit as Op};

const CONTEXT: usize = 3;

/// The unified diff of `old` and `new` (empty when they are equal).
pub fn unified(old: &str, new: &str, old_name: &str, new_name: &str) -> String {
    if old == new {
        return String::new();
    }
    let a: Vec<&str> = old.split_inclusive('\n').collect();
    let b: Vec<&str> = new.split_inclusive('\n').collect();
    let script = edit_script(&a, &b);
    let mut out = format!("--- {old_name}\n+++ {new_name}\n");
    for (start, end) in hunks(&script) {
        write_hunk(&mut out, &script[start..end], &a, &b);
    }
    out
}

/// One step of the edit script: the op and the line indexes before it.
type Step = (Op, usize, usize);

fn edit_script(a: &[&str], b: &[&str]) -> Vec<Step> {
    // Beyond the bound (never for a client config) the whole file is
    // shown as one replacement.
    let ops = edits(a, b).unwrap_or_else(|| {
        let mut ops = vec![Op::Delete; a.len()];
        ops.extend(vec![Op::Insert; b.len()]);
        ops
    });
    let (mut i, mut j) = (0, 0);
    ops.into_iter()
        .map(|op| {
            let step = (op, i, j);
            match op {
                Op::Keep => (i, j) = (i + 1, j + 1),
                Op::Delete => i += 1,
                Op::Insert => j += 1,
            }
            step
        })
        .collect()
}

/// Ranges of the script to show: each change with its context.
fn hunks(script: &[Step]) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = Vec::new();
    for (k, step) in script.iter().enumerate() {
        if step.0 == Op::Keep {
            continue;
        }
        let start = k.saturating_sub(CONTEXT);
        let end = (k + 1 + CONTEXT).min(script.len());
        match out.last_mut() {
            Some(last) if start <= last.1 => last.1 = end,
            _ => out.push((start, end)),
        }
    }
    out
}

fn write_hunk(out: &mut String, steps: &[Step], a: &[&str], b: &[&str]) {
    let (_, i0, j0) = steps[0];
    let dels = steps.iter().filter(|s| s.0 != Op::Insert).count();
    let ins = steps.iter().filter(|s| s.0 != Op::Delete).count();
    let at = |start: usize, len: usize| {
        if len == 0 {
            format!("{start},0")
        } else {
            format!("{},{len}", start + 1)
        }
    };
    out.push_str(&format!("@@ -{} +{} @@\n", at(i0, dels), at(j0, ins)));
    for &(op, i, j) in steps {
        let (mark, line) = match op {
            Op::Keep => (' ', a[i]),
            Op::Delete => ('-', a[i]),
            Op::Insert => ('+', b[j]),
        };
        out.push(mark);
        out.push_str(line);
        if !line.ends_with('\n') {
            out.push_str("\n\\ No newline at end of file\n");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::unified;

    #[test]
    fn equal_texts_give_nothing() {
        assert_eq!(unified("a\nb\n", "a\nb\n", "x", "y"), "");
    }

    #[test]
    fn one_change_with_context() {
        let old = "1\n2\n3\n4\n5\n6\n7\n8\n9\n";
        let new = "1\n2\n3\n4\nFIVE\n6\n7\n8\n9\n";
        assert_eq!(
            unified(old, new, "a", "b"),
            "--- a\n+++ b\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+FIVE\n 6\n 7\n 8\n"
        );
    }

    #[test]
    fn far_changes_make_two_hunks_and_near_ones_one() {
        let old: String = (1..=20).map(|i| format!("{i}\n")).collect();
        let two = old.replace("2\n", "two\n").replace("19\n", "nineteen\n");
        let d = unified(&old, &two, "a", "b");
        assert_eq!(d.matches("@@ -").count(), 2, "{d}");
        let one = old.replace("2\n", "two\n").replace("8\n", "eight\n");
        let d = unified(&old, &one, "a", "b");
        assert_eq!(d.matches("@@ -").count(), 1, "{d}");
    }

    #[test]
    fn insertions_deletions_and_missing_final_newline() {
        let d = unified("a\nb\n", "a\nx\ny\nb", "a", "b");
        assert_eq!(
            d,
            "--- a\n+++ b\n@@ -1,2 +1,4 @@\n a\n-b\n+x\n+y\n+b\n\\ No newline at end of file\n"
        );
        let d = unified("", "new\n", "a", "b");
        assert_eq!(d, "--- a\n+++ b\n@@ -0,0 +1,1 @@\n+new\n");
    }
}

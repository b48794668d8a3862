//! A small unified line diff (for `wrap --dry-run`): the longest common
//! subsequence of the lines that differ, three lines of context, hunks
//! merged when their context touches.

/// Past this many cells the middle part is shown as one replacement.
const MAX_CELLS: usize = 4_000_000;
const CONTEXT: usize = 3;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Same,
    Del,
    Ins,
}

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
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let suffix = a[prefix..]
        .iter()
        .rev()
        .zip(b[prefix..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (am, bm) = (&a[prefix..a.len() - suffix], &b[prefix..b.len() - suffix]);
    let mut ops = vec![Op::Same; prefix];
    ops.extend(middle(am, bm));
    ops.extend(std::iter::repeat_n(Op::Same, suffix));
    let (mut i, mut j) = (0, 0);
    ops.into_iter()
        .map(|op| {
            let step = (op, i, j);
            match op {
                Op::Same => (i, j) = (i + 1, j + 1),
                Op::Del => i += 1,
                Op::Ins => j += 1,
            }
            step
        })
        .collect()
}

/// The ops turning `a` into `b` (longest common subsequence).
fn middle(a: &[&str], b: &[&str]) -> Vec<Op> {
    let (n, m) = (a.len(), b.len());
    if (n + 1).saturating_mul(m + 1) > MAX_CELLS {
        let mut ops = vec![Op::Del; n];
        ops.extend(vec![Op::Ins; m]);
        return ops;
    }
    // lcs[i][j]: the LCS length of a[i..] and b[j..].
    let w = m + 1;
    let mut lcs = vec![0u32; (n + 1) * w];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i * w + j] = if a[i] == b[j] {
                lcs[(i + 1) * w + j + 1] + 1
            } else {
                lcs[(i + 1) * w + j].max(lcs[i * w + j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut ops = Vec::with_capacity(n + m);
    while i < n || j < m {
        if i < n && j < m && a[i] == b[j] {
            ops.push(Op::Same);
            (i, j) = (i + 1, j + 1);
        } else if i < n && (j == m || lcs[(i + 1) * w + j] >= lcs[i * w + j + 1]) {
            ops.push(Op::Del);
            i += 1;
        } else {
            ops.push(Op::Ins);
            j += 1;
        }
    }
    ops
}

/// Ranges of the script to show: each change with its context.
fn hunks(script: &[Step]) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = Vec::new();
    for (k, step) in script.iter().enumerate() {
        if step.0 == Op::Same {
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
    let dels = steps.iter().filter(|s| s.0 != Op::Ins).count();
    let ins = steps.iter().filter(|s| s.0 != Op::Del).count();
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
            Op::Same => (' ', a[i]),
            Op::Del => ('-', a[i]),
            Op::Ins => ('+', b[j]),
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

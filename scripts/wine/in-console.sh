#!/usr/bin/env bash
# Runs a Windows program under Wine on a pseudo-terminal, so that it has a
# console: Wine gives a program one only on a terminal, and console control
# events (Ctrl-C) need one. The cargo runner of cli/tests/console_ctrl.rs in
# scripts/test-cross.sh; `script` (util-linux) provides the terminal and
# exits with the program's status.
#
#   scripts/wine/in-console.sh PROGRAM.exe [ARGS...]
set -euo pipefail
cmd=wine
for arg in "$@"; do
  cmd+=" $(printf '%q' "$arg")"
done
exec script -qefc "$cmd" /dev/null

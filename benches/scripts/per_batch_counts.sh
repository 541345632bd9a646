#!/usr/bin/env bash
# per-batch counts of one driver mode: difference of 21 runs and 1 run, over 20
B=${B:-target/release/examples/batch_driver}
m() { perf stat -x, -e instructions:u,instructions:k,task-clock $B $1 $2 2>&1 >/dev/null | awk -F, '{print $1}' | paste -sd' '; }
for mode in ${@:-all floor}; do
a=$(m $mode 1); b=$(m $mode 21)
echo "$a | $b" | awk -v m=$mode '{printf "%-6s per batch: %6.1f M user instr, %5.1f M kernel instr, %6.2f ms task-clock\n", m, ($5-$1)/20/1e6, ($6-$2)/20/1e6, ($7-$3)/20}'
done

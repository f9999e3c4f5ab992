#!/bin/sh
# kernel: stock
# The apply loop on the stock kernel (issue 7, scenario 2) with the rt-apply profile plus
# memory.thp enabled madvise / defrag never: THP is tuned and restored; there are no irq/*
# threads, so the tty-irq rank rule only warns.
. /rtagent/lib.sh
. /rtagent/apply-lib.sh

THP=/sys/kernel/mm/transparent_hugepage
apply_loop 'memory:
  thp:
    enabled: madvise
    defrag: never' '
  expect_grep "THP enabled reads back [madvise]" "\[madvise\]" $THP/enabled
  expect_grep "THP defrag reads back [never]" "\[never\]" $THP/defrag'
finish

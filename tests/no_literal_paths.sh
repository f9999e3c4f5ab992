#!/bin/sh
# One door to the kernel: no source outside src/base/kernel_paths.h spells a kernel path.
# Fails listing every offending line.
cd "$(dirname "$0")/.." || exit 2
hits=$(grep -rnE '"/?(proc|sys|dev|run)/' src --include='*.cc' --include='*.h' \
  | grep -v '^src/base/kernel_paths.h:' | grep -v '_test.cc:' | grep -vE '^[^:]+:[0-9]+:[[:space:]]*//')
if [ -n "$hits" ]; then
  echo "kernel paths spelled outside src/base/kernel_paths.h:"
  echo "$hits"
  exit 1
fi
echo "no kernel paths outside src/base/kernel_paths.h"

#!/bin/sh
# Runs every end-to-end test; prints a summary line; fails if any failed.
cd "$(dirname "$0")"
pass=0 fail=0 skip=0
for t in [a-z]*.sh; do
	case $t in lib.sh|run.sh) continue ;; esac
	if sh "$t"; then pass=$((pass + 1))
	else
		rc=$?
		if [ $rc = 77 ]; then skip=$((skip + 1)); else fail=$((fail + 1)); fi
	fi
done
echo "e2e: $pass passed, $fail failed, $skip skipped"
[ $fail = 0 ]

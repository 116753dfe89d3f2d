#!/bin/sh
# SPDX-License-Identifier: MIT
# The shipped alert rules (tools/pkg/gpuaware-alerts.yml): promtool
# checks them, every alert has a unit test in gpuaware-alerts.test.yml
# and the tests pass, every metric they read is exported and documented
# or else (never both) listed as pending; the rules with their "for:"
# taken out or their metric names changed fail them (the tests bite).
# usage: t-alerts.sh [BUILDDIR]; prints PASS/FAIL lines and a summary.
set -eu
cd "$(dirname "$0")/../.."
RULES=tools/pkg/gpuaware-alerts.yml
TESTS=tests/offline/gpuaware-alerts.test.yml

. tests/offline/lib.sh
off_workdir

command -v promtool >/dev/null ||
	{ bad "promtool installed" "tools/deps.sh --test"; exit 1; }
if promtool check rules "$RULES" >"$w/out" 2>&1; then
	ok "promtool check rules"
else
	bad "promtool check rules" "$(cat "$w/out")"
fi

sed -n 's/^ *- alert: *//p' "$RULES" | sort >"$w/alerts"
sed -n 's/^ *alertname: *//p' "$TESTS" | sort -u >"$w/tested"
if [ -s "$w/alerts" ] && cmp -s "$w/alerts" "$w/tested"; then
	ok "a unit test per alert ($(wc -l <"$w/alerts"))"
else
	bad "a unit test per alert" "$(diff "$w/alerts" "$w/tested" | grep '^[<>]' | tr '\n' ' ')"
fi

if promtool test rules "$TESTS" >"$w/out" 2>&1; then
	ok "promtool test rules"
else
	bad "promtool test rules" "$(cat "$w/out")"
fi

# Each metric a rule reads is exported by the plugin or ibpoold today,
# and listed where their metrics are documented, or is in
# docs/packages.md's table of pending metrics.
METRIC_DOCS="docs/gpuaware.conf.5 docs/ibpoold.md"
pending=$(sed -n 's/^| `\(gpuaware_[a-z_]*\)[`{].*/\1/p' docs/packages.md)
for m in $(grep -v '^ *#' "$RULES" | grep -o 'gpuaware_[a-z_]*[a-z]' | sort -u); do
	suffix=${m#gpuaware_pool_}
	if grep -rqF "\"$m" plugins tools --include=*.c ||
		grep -rqF "\"$suffix\"" tools --include=metrics.c; then
		if echo "$pending" | grep -qx "$m"; then
			bad "$m: exported now, still pending in docs/packages.md"
		elif ! grep -qF -e "$m" -e "\`_$suffix\`" $METRIC_DOCS; then
			bad "$m: exported, but not in $METRIC_DOCS"
		else
			ok "$m: exported and documented"
		fi
	elif echo "$pending" | grep -qx "$m"; then
		ok "$m: pending, in docs/packages.md"
	else
		bad "$m: neither exported nor listed as pending in docs/packages.md"
	fi
done

# mutant NAME SED: the rules changed by SED must fail the tests.
mutant() {
	mkdir -p "$w/m/tools/pkg" "$w/m/tests/offline"
	sed "$2" "$RULES" >"$w/m/$RULES"
	cp "$TESTS" "$w/m/$TESTS"
	if (cd "$w/m/tests/offline" && promtool test rules "$(basename "$TESTS")") \
		>"$w/out" 2>&1; then
		bad "the tests catch $1" "they pass"
	else
		ok "the tests catch $1"
	fi
}
mutant "rules without for:" '/^ *for: /d'
mutant "a renamed metric" 's/gpuaware_pool_relay_synced/gpuaware_pool_relay_sync/'

echo "t-alerts: $pass passed, $fail failed"
[ "$fail" -eq 0 ]

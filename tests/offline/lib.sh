# SPDX-License-Identifier: MIT
# PASS/FAIL counting the offline tests share; source it after `set -eu`.

pass=0
fail=0
ok() {
	pass=$((pass + 1))
	echo "PASS $1"
}
bad() {
	fail=$((fail + 1))
	echo "FAIL $1${2:+: $2}"
}

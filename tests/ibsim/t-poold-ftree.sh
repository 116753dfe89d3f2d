#!/bin/sh
# SPDX-License-Identifier: MIT
# ibpoold end to end under ibsim with OpenSM's own ftree routing, LMC 2,
# and no plugin (no hints): see poold-suite.sh.
set -eu
ENGINE=ftree
LMC=2
. "$(dirname "$0")/poold-suite.sh"

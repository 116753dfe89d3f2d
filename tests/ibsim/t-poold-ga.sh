#!/bin/sh
# SPDX-License-Identifier: MIT
# ibpoold end to end under ibsim with OpenSM routing by the gpuaware
# plugin, LMC 1: see poold-suite.sh.
set -eu
ENGINE=gpuaware
LMC=1
. "$(dirname "$0")/poold-suite.sh"

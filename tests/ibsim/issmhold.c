// SPDX-License-Identifier: MIT
/*
 * Test-only: an SM port that answers nothing.  Under umad2sim (preloaded),
 * opening the issm device sets IsSM on the port of SIM_HOST, as an SM
 * does, but no MAD agent is registered, so another SM's SMInfo Get is
 * never answered.  Holds the device until killed.  umad2sim wraps open()
 * only, not the open64() of perl or a shell, hence this program.
 */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	const char *dev = argc > 1 ? argv[1] : "/dev/infiniband/issm0";

	if (open(dev, O_RDWR) < 0) {
		perror(dev);
		return 1;
	}
	for (;;)
		pause();
}

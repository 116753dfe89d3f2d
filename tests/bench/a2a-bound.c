// SPDX-License-Identifier: MIT
/*
 * a2a-bound NETFILE [GAP]: the least busiest-link load any routing of the
 * fabric's all-to-all could have over minimal up*-down* paths
 * (a2abound.h), LIDs as fab_assign_lids() gives them at LMC 0.
 * Prints "lower upper iterations pairs unroutable"; make bench puts the
 * lower one beside every fat-tree row.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "a2abound.h"
#include "topology/netfile.h"

int main(int argc, char **argv)
{
	double gap = argc > 2 ? strtod(argv[2], NULL) : 0.002;
	struct fabric *f = NULL;
	struct ab_result r;
	struct ft_info ft;
	char err[256];
	int ret;

	if (argc < 2 || argc > 3 || !(gap > 0)) {
		fprintf(stderr, "usage: a2a-bound NETFILE [GAP]\n");
		return 2;
	}
	ret = fab_load_net(argv[1], &f, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "a2a-bound: %s\n", err);
		return 1;
	}
	ret = fab_assign_lids_upto(f, 0, FAB_MAX_LID_EXT);
	if (!ret)
		ret = ft_recognise(f, &ft);
	if (!ret && !ft.tree) {
		fprintf(stderr, "a2a-bound: %s\n", ft.summary);
		ret = -EINVAL;
	}
	if (!ret)
		ret = ab_alltoall(f, &ft, gap, 20000, &r);
	if (!ret)
		printf("%.1f %.1f %u %llu %llu\n", r.lower, r.upper, r.iters,
		       (unsigned long long)r.pairs,
		       (unsigned long long)r.unroutable);
	else if (ret != -EINVAL)
		fprintf(stderr, "a2a-bound: %s\n", strerror(-ret));
	ft_info_release(&ft);
	fab_free(f);
	return ret ? 1 : 0;
}

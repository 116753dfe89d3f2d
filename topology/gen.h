/* SPDX-License-Identifier: MIT */
/*
 * Fabric generators: fat-trees (XGFT), rail-optimised fat-trees, tori and
 * meshes, dragonflies and Dragonfly+, each optionally degraded.
 */
#ifndef GPUAWARE_GEN_H
#define GPUAWARE_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fabric.h"

#define GEN_MAX_LEVELS 4
#define GEN_MAX_DIMS 3
#define GEN_MAX_NODES (1u << 20)

/*
 * What every generated fabric looks like:
 * - Switch i (in generation order, counting omitted ones) has node GUID
 *   GEN_SW_GUID + i; its sysguid is its GUID.  CA k (host-major, counting
 *   omitted ones) has node GUID G = GEN_CA_GUID + k * (ca_ports + 1) and port
 *   p has GUID G + p, as ibsim's caguid= assigns them.  All HCAs of host j
 *   share sysguid GEN_SYS_GUID + j.  So GUIDs survive degradation.
 * - Descriptions are unique: switches "leaf-3", "leaf-p1-3", "core-0",
 *   "leaf-su0-r2", "sw-1-2-3", "g4-sw1", "g4-leaf1"; CAs "node0001 mlx5_0"
 *   (host name, space, HCA name; hosts count from 1).
 * - A switch has as many ports as the undegraded design needs: host ports
 *   first, then ports to lower levels, then to higher levels (torus: per
 *   dimension, + then -; dragonfly: local then global), unless ports are
 *   shuffled.  A degraded fabric keeps the port numbers of the full one.
 * - Only CA port 1 is linked.  No LIDs are assigned.
 */
#define GEN_SW_GUID 0x0002c90200000000ULL
#define GEN_CA_GUID 0x0002c90300000000ULL
#define GEN_SYS_GUID 0x0002c90400000000ULL

/*
 * Options every generator takes; gen_opts_init() sets the defaults.
 *
 * Degradation runs in this order and is deterministic for a given seed:
 * 1. fail_switch: the named switches are omitted, with their cables and any
 *    HCA whose only switch they were.  No connectivity promise.
 * 2. fail_link: one cable between each named pair "SWA:SWB" is removed
 *    (name a pair twice to remove two).  No connectivity promise.
 * 3. drop_switches: that many switches without hosts, chosen at random,
 *    are omitted; never one whose loss splits the switch graph further.
 * 4. drop and fail_links: round(drop * cables present) + fail_links
 *    switch-to-switch cables, chosen uniformly at random, are removed; a
 *    cable whose loss would split the switch graph further is skipped, so
 *    every leaf keeps an uplink and every host still reaches every other.
 * 5. drop_hosts: round(drop_hosts * hosts present) hosts are omitted with
 *    all their HCAs; at least one host remains.
 * When a random step cannot remove as much as asked it fails with -EDOM.
 */
struct gen_opts {
	unsigned int width;		/* lanes: 1, 2, 4, 8, 12 */
	unsigned int speed;		/* lane rate, 100 Mb/s units */
	unsigned int hcas;		/* per host, on its switch */
	unsigned int ca_ports;		/* per HCA; port 1 linked */
	uint64_t seed;			/* steps 3 to 5 */
	bool shuffle;			/* permute port numbers per switch */
	uint64_t shuffle_seed;
	double drop;			/* fraction, [0, 1) */
	unsigned int fail_links;
	unsigned int drop_switches;
	double drop_hosts;		/* fraction, [0, 1) */
	const char *const *fail_link;	/* nfail_link "SWA:SWB" strings */
	size_t nfail_link;
	const char *const *fail_switch;	/* nfail_switch switch names */
	size_t nfail_switch;
};

/* Width 4, speed 250 (EDR), one 1-port HCA per host, nothing degraded. */
void gen_opts_init(struct gen_opts *o);

/*
 * Every generator below builds a new fabric into *out (the caller frees it
 * with fab_free()) and returns 0, or returns a negative errno, leaves *out
 * NULL and writes a message into err that names the offending parameter by
 * its ibtopogen option ("--hosts-per-leaf must be 1..253"):
 * -EINVAL bad parameter, -E2BIG a switch would need more than 254 ports or
 * the fabric more than GEN_MAX_NODES nodes, -ENOENT a named switch or link
 * does not exist, -EDOM a random degradation cannot be met, -ENOMEM.
 */

/*
 * Fat-tree as an extended generalised fat-tree XGFT(L; m; w) with switch
 * levels s = 0 (leaves) .. L-1 (top):
 * - down[0] hosts per leaf; down[s] (s >= 1) child switches per level-s
 *   switch, i.e. how many level-(s-1) subtrees it joins;
 * - up[s] (s < L-1) parent switches per level-s switch (a leaf's uplinks,
 *   a spine's uplinks, ...);
 * - parallel cables per parent-child pair.
 * Level s holds prod(down[s+1..L-1]) * prod(up[0..s-1]) switches; leaves
 * number prod(down[1..L-1]), hosts down[0] times that.  Leaves are
 * oversubscribed when down[0] * hcas > up[0] * parallel.  With three or
 * more levels the switches under one top-level subtree form a pod and are
 * named "leaf-p<pod>-<i>", "spine-p<pod>-<i>" ("agg-" at level 2 of 4),
 * the top ones "core-<i>"; two levels give "leaf-<i>" and "spine-<i>".
 */
struct gen_fattree {
	unsigned int levels;			/* 2..GEN_MAX_LEVELS */
	unsigned int down[GEN_MAX_LEVELS];
	unsigned int up[GEN_MAX_LEVELS];
	unsigned int parallel;
};

/*
 * Classic k-ary n-tree: n levels of k^(n-1) switches, k hosts per leaf,
 * k down and k up ports per switch, the top using its k down ports only
 * (k^n hosts): down = {k, ..., k}, up = {k, ..., k}.
 */
int gen_fattree_kary(struct gen_fattree *ft, unsigned int k,
		     unsigned int levels, char *err, size_t errlen);

/*
 * Folded Clos from switches of even radix R using every port of the top:
 * R/2 hosts and R/2 uplinks per leaf, pods of R/2 leaves and R/2 spines,
 * top switches with R down ports: 2 levels give R leaves, R/2 spines and
 * R^2/2 hosts; 3 levels R pods, (R/2)^2 cores each reaching every pod once,
 * R^3/4 hosts; 4 levels R^4/8 hosts.  down = {R/2, ..., R/2, R},
 * up = {R/2, ...}.
 */
int gen_fattree_radix(struct gen_fattree *ft, unsigned int radix,
		      unsigned int levels, char *err, size_t errlen);

int gen_fattree(const struct gen_fattree *ft, const struct gen_opts *o,
		struct fabric **out, char *err, size_t errlen);

/*
 * Rail-optimised fat-tree (DGX SuperPOD-like): sus scalable units of
 * hosts_per_su hosts with rails HCAs each; every SU has one leaf per rail
 * ("leaf-su<su>-r<rail>") and HCA "mlx5_<r>" of each of its hosts sits on
 * rail leaf r.  The spines ("spine-<i>") split into spine_groups equal
 * groups; rail r's leaves connect, with parallel cables each, to every
 * spine of group r mod spine_groups.  One group: every leaf reaches every
 * spine.  spine_groups == rails: one spine group per rail (DGX A100
 * SuperPOD); the planes are then joined by cores core switches
 * ("core-<i>"), each cabled (parallel times) to every spine, which is why
 * more than one group needs cores > 0.  With one group cores is optional
 * (0: two levels).  opts.hcas must be 1 (the rails are the HCAs).
 */
struct gen_rail {
	unsigned int sus;
	unsigned int hosts_per_su;
	unsigned int rails;
	unsigned int spines;
	unsigned int spine_groups;	/* divides rails and spines */
	unsigned int cores;
	unsigned int parallel;
};

/* 4 SUs x 32 hosts x 8 rails, 32 spines in one group, no cores. */
void gen_rail_init(struct gen_rail *r);

int gen_rail(const struct gen_rail *r, const struct gen_opts *o,
	     struct fabric **out, char *err, size_t errlen);

/*
 * Torus or mesh of dim[0] x ... switches ("sw-x-y-z"), hosts per switch,
 * parallel cables to each neighbour per direction.  A wrapped dimension is
 * a ring; in a wrapped dimension of radix 2 the +1 and -1 neighbours are
 * the same switch and get a cable each, so every switch of a torus has
 * 2 * ndims * parallel switch links.  An unwrapped dimension is a line.
 */
struct gen_torus {
	unsigned int ndims;			/* 1..GEN_MAX_DIMS */
	unsigned int dim[GEN_MAX_DIMS];		/* radix, >= 2 */
	bool wrap[GEN_MAX_DIMS];
	unsigned int hosts;
	unsigned int parallel;
};

/* 4x4x4, one host per switch; wrapped (torus) or not (mesh). */
void gen_torus_init(struct gen_torus *t, bool wrap);

int gen_torus(const struct gen_torus *t, const struct gen_opts *o,
	      struct fabric **out, char *err, size_t errlen);

/*
 * Node index of the switch at coord[0..t->ndims-1] in fabric f, which
 * gen_torus() built from t, or FAB_NONE when that switch was omitted or
 * coord lies outside t.
 */
uint32_t gen_torus_switch(const struct fabric *f, const struct gen_torus *t,
			  const unsigned int *coord);

/*
 * Global link arrangement: group i's global ports are numbered
 * k = switch * global + slot; with g groups, port k leads to the
 * (k mod (g-1))-th other group, absolute: counting groups 0, 1, ... and
 * skipping i; relative: counting from i+1 upwards (mod g).  In the
 * canonical g = a*h+1 each pair of groups has one cable; fewer groups get
 * a*h/(g-1) cables per pair, ports left over stay unused.
 */
enum gen_df_arrangement {
	GEN_DF_ABSOLUTE,
	GEN_DF_RELATIVE,
};

/*
 * Dragonfly: groups of `switches` switches ("g<group>-sw<i>"), all-to-all
 * local cables inside a group, `hosts` hosts and `global` global cables per
 * switch.  Dragonfly+ (plus): each group is a bipartite leaf/spine block,
 * `switches` leaves ("g<group>-leaf<i>") with the hosts, `spines` spines
 * ("g<group>-spine<i>") with the global cables, every leaf cabled to every
 * spine of its group.  groups 0 means the canonical a*h+1 (a = switches,
 * plus: spines).  drop_global / drop_local remove that fraction of the
 * global / local cables before the common degradations, keeping the
 * switch graph connected as gen_opts step 4 does.
 */
struct gen_dragonfly {
	bool plus;
	unsigned int hosts;
	unsigned int switches;
	unsigned int spines;
	unsigned int global;
	unsigned int groups;
	enum gen_df_arrangement arrangement;
	double drop_global;
	double drop_local;
};

/*
 * Dragonfly: 2 hosts, 4 switches, 2 global cables per switch, 9 groups.
 * Dragonfly+: 4 hosts per leaf, 4 leaves, 4 spines, 2 global cables per
 * spine, 9 groups.  Both absolute.
 */
void gen_dragonfly_init(struct gen_dragonfly *d, bool plus);

int gen_dragonfly(const struct gen_dragonfly *d, const struct gen_opts *o,
		  struct fabric **out, char *err, size_t errlen);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * The fabric graph: switches and channel adapters, their ports, links and
 * LIDs.  Everything is index based so 65,536 endpoints stay compact.
 */
#ifndef GPUAWARE_FABRIC_H
#define GPUAWARE_FABRIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FAB_NONE UINT32_MAX
#define FAB_MAX_PORTS 254
#define FAB_MAX_LID 0xbfff	/* last unicast LID of a real subnet */
#define FAB_MAX_LID_EXT 0xffffff	/* offline scale runs beyond IB's space */

enum fab_type {
	FAB_SW = 1,
	FAB_CA = 2,
};

/* One physical port; switches also have port 0 (management, holds the LID). */
struct fab_port {
	uint64_t guid;		/* port GUID: CA ports and switch port 0 */
	uint32_t peer;		/* node index of the remote end, FAB_NONE if none */
	uint32_t lid;		/* base LID (CA ports, switch port 0), 0 if unset */
	uint8_t peer_port;
	uint8_t lmc;
	uint8_t width;		/* active lanes: 1, 2, 4, 8 or 12; 0 unknown */
	uint16_t speed;		/* per-lane rate in 100 Mb/s steps, 0 unknown */
};

struct fab_node {
	uint64_t guid;		/* node GUID */
	uint64_t sysguid;	/* system image GUID: groups a host's HCAs */
	char *desc;		/* node description, owned by the fabric */
	uint32_t port0;		/* ports[port0 + n] is port n (0..nports) */
	uint8_t type;		/* enum fab_type */
	uint8_t nports;		/* physical ports are numbered 1..nports */
};

/*
 * The fabric owns its nodes, ports and descriptions; fab_free() releases all.
 * Node indices are stable: nodes are only ever appended.
 */
struct fabric {
	struct fab_node *nodes;
	struct fab_port *ports;
	size_t nnodes, node_cap;
	size_t nports, port_cap;
	size_t nsw, nca;
	/*
	 * Data VLs the SM can program (SL2VL on, the ports' VLs), 0 when
	 * unknown: an engine whose extra layers would pass it leaves them out.
	 */
	unsigned int vls;
};

struct fabric *fab_new(void);
void fab_free(struct fabric *f);

/* Append a node; returns its index or a negative errno. desc is copied. */
int fab_add_node(struct fabric *f, enum fab_type type, unsigned int nports,
		 uint64_t guid, const char *desc);

/*
 * Connect a:pa with b:pb (ports 1..nports).  Connecting the same pair again
 * is a no-op; a port already linked elsewhere gives -EBUSY.
 */
int fab_link(struct fabric *f, uint32_t a, unsigned int pa, uint32_t b,
	     unsigned int pb, unsigned int width, unsigned int speed);

/* Remove the link on a:pa (both ends); -ENOENT when there is none. */
int fab_unlink(struct fabric *f, uint32_t a, unsigned int pa);

/* The data VLs an engine may use when it would use want: f->vls caps it. */
static inline unsigned int fab_vls_within(const struct fabric *f,
					  unsigned int want)
{
	return f->vls && f->vls < want ? f->vls : want;
}

static inline struct fab_port *fab_port(const struct fabric *f, uint32_t n,
					unsigned int p)
{
	return &f->ports[f->nodes[n].port0 + p];
}

static inline bool fab_is_sw(const struct fabric *f, uint32_t n)
{
	return f->nodes[n].type == FAB_SW;
}

/* Node n's first port (1..nports) with a link, 0 when none has one. */
static inline unsigned int fab_cabled_port(const struct fabric *f,
					   uint32_t n)
{
	unsigned int p;

	for (p = 1; p <= f->nodes[n].nports; p++)
		if (fab_port(f, n, p)->peer != FAB_NONE)
			return p;
	return 0;
}

/* Port that carries the LID of node n's port p: switches route port 0. */
static inline struct fab_port *fab_lid_port(const struct fabric *f,
					    uint32_t n, unsigned int p)
{
	return fab_port(f, n, fab_is_sw(f, n) ? 0 : p);
}

/*
 * The nominal rate of port p's link in bytes a second, 0 when its width
 * or speed is not known.  SDR to QDR links carry 8/10 of it as data.
 */
static inline double fab_port_rate(const struct fab_port *p)
{
	return p->width * p->speed * 1e8 / 8;
}

/*
 * Give every switch (port 0) and every linked CA port a LID, in node order,
 * CA port LIDs aligned to 2^lmc as OpenSM does.  Existing LIDs are kept.
 * Returns 0 or -ERANGE when the unicast LID space runs out.
 */
int fab_assign_lids(struct fabric *f, unsigned int lmc);

/*
 * The same with LIDs up to max; above FAB_MAX_LID only for offline runs
 * (a real subnet has 49,151 unicast LIDs, fewer than 65,536 hosts need).
 */
int fab_assign_lids_upto(struct fabric *f, unsigned int lmc,
			 unsigned int max);

/* Highest LID in use, counting each CA port's 2^lmc LIDs. */
unsigned int fab_max_lid(const struct fabric *f);

/* Number of switch-to-switch cables (each counted once). */
size_t fab_sw_links(const struct fabric *f);

/*
 * Whether a and b are the same fabric to a router: the same nodes in the
 * same order (GUIDs, system GUIDs, types, ports, descriptions), links and
 * LIDs, so that tables built for one serve the other.  Link rates are not
 * compared.
 */
bool fab_same(const struct fabric *a, const struct fabric *b);

/*
 * Host name of a CA: the first word of its description ("node01 mlx5_0"
 * gives "node01"), copied into buf.  Returns the length.
 */
size_t fab_host_name(const struct fabric *f, uint32_t n, char *buf,
		     size_t len);

#endif

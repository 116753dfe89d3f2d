/* SPDX-License-Identifier: MIT */
/*
 * ibpoold's INI configuration: the [pool] settings and one [host NAME]
 * section per GPU host (GPUs, GPU type, HCA ports by rail).  A file with
 * anything wrong in it is refused, never half-used.
 */
#ifndef GPUAWARE_POOL_CONFIG_H
#define GPUAWARE_POOL_CONFIG_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sched.h"

#define POOL_CFG_SOCKET "/run/gpuaware/pool.sock"
#define POOL_CFG_STATE_DIR "/var/lib/gpuaware"
#define POOL_CFG_SM_SOCKET "/run/gpuaware/sm.sock"
#define POOL_CFG_SM_OWNER "ibpoold"	/* of the relayed jobs */
#define POOL_CFG_SMS_MAX 8	/* SM endpoints: a master and standbys */
#define POOL_CFG_TELEMETRY_MS 1000
#define POOL_CFG_SOCKET_MODE 0660	/* rw for owner and group */
#define POOL_CFG_TELEMETRY_MIN 10
#define POOL_CFG_TELEMETRY_MAX 600000
#define POOL_CFG_LEASE_S 3600
#define POOL_CFG_LFT_CHECK_S 60
#define POOL_CFG_LFT_CHECK_MAX 86400
#define POOL_CFG_LEASE_MAX (30 * 86400)
#define POOL_CFG_UID_GPUS_MAX 1048576	/* max_gpus_per_uid's bound */
#define POOL_MAX_GPUS 64	/* per host */
#define POOL_MAX_HCAS 32	/* per host */

/*
 * One HCA port of a host, as the config names it: by port GUID, or (guid
 * 0) by node description, matched against the fabric later.
 */
struct pool_hca {
	uint64_t guid;
	char *desc;		/* owned; NULL when given by GUID */
};

struct pool_host_cfg {
	char *name;		/* owned; lower case, as iniparser stores it */
	char *gpu_type;		/* owned */
	char *domain;		/* owned; accelerator domain, NULL: unknown */
	unsigned int gpus;	/* 1..POOL_MAX_GPUS */
	unsigned int nhca;	/* 1..POOL_MAX_HCAS; hca[i] is rail i */
	struct pool_hca *hca;	/* owned */
};

#define POOL_CFG_GRACE_S 30	/* notice before a preemption */
#define POOL_CFG_RESTART_S 60	/* a checkpoint's reload and warm-up */
#define POOL_CFG_GROUPS_MAX 64	/* quota groups */
#define POOL_CFG_NO_LIMIT UINT_MAX	/* a group's borrowing or lending */
#define POOL_CFG_NAME_MAX 32	/* a class or group name */

/* [sched]: how queued requests are chosen (sched.h). */
struct pool_sched_cfg {
	enum sch_policy policy;
	unsigned int grace_s;	/* notice before a preemption */
	bool preempt;		/* higher classes preempt lower ones */
	unsigned int starve_s;	/* waited this long: goes first; 0 never */
	unsigned int restart_s;	/* run time a preemption costs its victim */
	unsigned int gang_wait_s;	/* gangs wait for a lower level; 0 no */
	double class_weight;	/* of the class in the priority, < 0: default */
	double class_weights[SCH_CLASSES];	/* each class's, lowest first */
	unsigned int nclass_weights;	/* 0: from class_weight */
	char *classes[SCH_CLASSES];	/* owned, lowest first */
	unsigned int nclasses;	/* 0: one class, "" */
	unsigned int default_class;	/* index of the requests' default */
	char **groups;		/* owned, ngroups of them */
	unsigned int *quota;	/* GPUs of groups[i] */
	/*
	 * Kueue's borrowingLimit and lendingLimit of groups[i], GPUs
	 * (POOL_CFG_NO_LIMIT: none); owned, NULL without the key.
	 */
	unsigned int *borrow, *lend;
	size_t ngroups;
};

/* Everything owned; pool_config_release() frees it. */
struct pool_config {
	char *socket;
	char *state_dir;
	char *sm_socket;	/* as written: one or more SM endpoints */
	char **sms;		/* those, each a path or "tcp:HOST:PORT" */
	size_t nsms;		/* 1..POOL_CFG_SMS_MAX */
	char *sm_owner;		/* as a job id: 1..64 of [A-Za-z0-9._:-] */
	char *munge_socket;	/* munged's for TCP requests, NULL: default */
	unsigned int telemetry_interval_ms;
	unsigned int lft_check_s;	/* without the plugin; 0: never */
	unsigned int lease_default_s;
	/*
	 * Caps on every uid but root's, Unix socket and TCP alike: the
	 * GPUs its allocations hold together (0: none) and the lease it
	 * may ask for or renew to.
	 */
	unsigned int max_gpus_per_uid;
	unsigned int max_lease_s;	/* 1..POOL_CFG_LEASE_MAX */
	unsigned int socket_mode;	/* of socket: 0600, 0660 or 0666 */
	char *group;		/* NULL: none set */
	gid_t gid;		/* group's, when group is set */
	char *tcp;		/* "[ADDR:]PORT" to serve reads on, NULL: none */
	bool tcp_loopback;	/* tcp reaches this host only */
	char *node_name_map;	/* switch names for the exports, NULL: none */
	struct pool_sched_cfg sched;
	struct pool_host_cfg *hosts;	/* in file order */
	size_t nhosts;
};

/*
 * Load and check the file at path into c.  Returns 0, or a negative errno
 * with c released and one line in err: "FILE:LINE: [section] key: what is
 * wrong" (LINE is the key's line, the section's for a missing key, 0 when
 * the file has neither).  Refused: unreadable or unparsable files, unknown
 * sections and keys, missing required keys (gpus, gpu_type, hca), bad
 * numbers, an unknown group, a tcp that is not [ADDR:]PORT with a
 * numeric address, an sm_socket entry that is neither an absolute path
 * nor tcp:HOST:PORT, no host, a section or key given twice, a GUID or
 * description named twice.
 */
int pool_config_load(const char *path, struct pool_config *c, char *err,
		     size_t len);

void pool_config_release(struct pool_config *c);

/* Whether [host NAME] takes name: letters, digits, '.', '-', '_'. */
bool pool_host_name_valid(const char *name);

/* The rail (hca index) GPU g of h uses: g * nhca / gpus. */
static inline unsigned int pool_gpu_rail(const struct pool_host_cfg *h,
					 unsigned int g)
{
	return g * h->nhca / h->gpus;
}

#endif

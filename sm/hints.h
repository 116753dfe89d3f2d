/* SPDX-License-Identifier: MIT */
/*
 * The job-hint table: which hosts each GPU job runs on and its weight.
 * Changed through the hints.* requests (all or nothing), read by the
 * router through immutable snapshots, persisted as one file and a log
 * of the changes since, so a change costs its own size on disk.
 */
#ifndef GPUAWARE_HINTS_H
#define GPUAWARE_HINTS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto.h"

#define SM_HINTS_ID_MAX 64	/* job id: 1..64 of SM_HINTS_ID_CHARS */
#define SM_HINTS_OWNER_MAX 64	/* owner: as a job id */
#define SM_HINTS_ID_CHARS "A-Z a-z 0-9 . _ : -"	/* as messages say it */
#define SM_HINTS_HOST_MAX 64	/* host: a node description's 64 bytes */
#define SM_HINTS_WEIGHT_MAX 1000
#define SM_HINTS_MAX_JOBS 4096
#define SM_HINTS_FILE "hints.json"
#define SM_HINTS_LOG "hints.log"	/* changes since hints.json, one a line */

/*
 * Whether id is a job id or an owner as the job table takes them: 1 to
 * SM_HINTS_ID_MAX characters of SM_HINTS_ID_CHARS.  The one check for
 * every id that may reach the table (requests, the saved table,
 * ibpoold's jobs and relay owner), so none is refused later on.
 */
bool sm_hints_id_valid(const char *id);

/*
 * A host is a name (no control characters) or a port GUID "0x" and 1..16
 * hex digits; GUIDs are stored as "0x" and 16 lower-case digits, so
 * "0xA" and "0x000a" are the same host.
 */
struct sm_job {
	char *id;
	char *owner;		/* who set it; NULL: nobody in particular */
	char **hosts;
	size_t nhosts;
	unsigned int weight;	/* 1..SM_HINTS_WEIGHT_MAX */
	atomic_uint *shared;	/* private to hints.c: the snapshots holding
				   these strings, which a change never copies */
};

/*
 * One version of the table, never modified once published; jobs are in
 * the order they were set or added.  A snapshot is a counted reference:
 * hold it as long as needed, without any lock, and drop it with
 * sm_hints_put().  refs is private to hints.c.
 */
struct sm_hints_snap {
	uint64_t generation;
	size_t njobs;
	struct sm_job *jobs;
	atomic_uint refs;
};

#define SM_HOST_UNKNOWN (-1)	/* not in the fabric */
#define SM_HOST_ANY (-2)	/* the fabric is not known yet: taken */

/*
 * Which host of the fabric host (a name or a canonical GUID) is: an id
 * >= 0 that every name of one host shares (its name and its ports'
 * GUIDs), so a job naming it twice is seen to; else SM_HOST_UNKNOWN or
 * SM_HOST_ANY.  Called on the thread that changes the table, holding the
 * writers' lock but never the one snapshots take; it must not call
 * sm_hints_* changes.
 */
typedef long (*sm_host_id_fn)(void *ctx, const char *host);

struct sm_hints;

/*
 * A new empty table at generation 0.  host_id may be NULL (every host
 * is taken, told apart by name only).  dir, when not NULL, is copied:
 * every accepted change is then saved there before it takes effect,
 * appended to dir/hints.log and
 * synced, or (a set, the first change, a log as large as the table)
 * the whole table written as sm_hints_save() does and the log emptied;
 * a change that cannot be saved is refused as internal with the table
 * unchanged.
 * Returns 0 or -ENOMEM; sm_hints_free() releases the table (snapshots
 * still held stay valid until put).
 */
int sm_hints_new(const char *dir, sm_host_id_fn host_id, void *ctx,
		 struct sm_hints **out);
void sm_hints_free(struct sm_hints *h);

/*
 * The requests.  Each returns 0 with the change made and the generation
 * bumped by one (the new one in *gen unless gen is NULL), or a negative
 * errno with e filled (bad_request, unknown_host, duplicate_id,
 * not_found, internal: also at generation INT64_MAX, the last) and the
 * table exactly as it was.  Messages name the job, host and field at
 * fault; one about a single job begins "job 'ID'" (then ':' or ' '),
 * which is how a client sending many (ibpoold's relay) leaves it out.
 *   set:    {"jobs":[JOB, ...]}  replaces the whole table
 *           {"owner":"O","jobs":[JOB, ...]}  replaces O's jobs only,
 *           keeping the others'; the new jobs are O's
 *   add:    {"job":JOB} or {"jobs":[JOB, ...]}, "owner":"O" optional
 *           (the jobs are O's); duplicate_id when an id exists,
 *           bad_request naming the first job past SM_HINTS_MAX_JOBS
 *   remove: {"id":"ID"} or {"ids":["ID", ...]}, "owner":"O" optional
 *           (O's jobs only, else forbidden); not_found when one is not
 *           there
 * JOB is {"id":ID,"hosts":[HOST, ...],"weight":N,"owner":"O"}, weight
 * optional (1), owner optional (none; in an owner's set, that owner).
 * A host may be in several jobs (jobs sharing a node): the table keeps
 * them all, and the router decides whose the host is (docs/protocol.md).
 * The request's "op" is allowed and ignored; other unknown fields are
 * bad_request.
 */
int sm_hints_set(struct sm_hints *h, json_object *req, uint64_t *gen,
		 struct sm_error *e);
int sm_hints_add(struct sm_hints *h, json_object *req, uint64_t *gen,
		 struct sm_error *e);
int sm_hints_remove(struct sm_hints *h, json_object *req, uint64_t *gen,
		    struct sm_error *e);

/* Add "jobs" (with owners) and "generation" of the table to reply. */
int sm_hints_get(struct sm_hints *h, json_object *reply);

/*
 * Serve a hints.set/add/remove/get request: 0 with *reply a new ok or
 * error reply (the caller puts it), -EOPNOTSUPP when op is not a hints op
 * (*reply untouched), -ENOMEM.  Changes need may_write, else forbidden.
 */
int sm_hints_serve(struct sm_hints *h, json_object *req, bool may_write,
		   json_object **reply);

/* The current table; never NULL.  The caller drops it with sm_hints_put(). */
const struct sm_hints_snap *sm_hints_snapshot(struct sm_hints *h);
void sm_hints_put(const struct sm_hints_snap *s);

/*
 * Write the current table, owners and generation to dir/hints.json
 * atomically (version 2; version 1 files, without owners, still load):
 * a temporary file in dir, fsync, rename, fsync of dir.  Returns 0 or a
 * negative errno with err naming the file and the failing step.
 */
int sm_hints_save(struct sm_hints *h, const char *dir, char *err,
		  size_t len);

/*
 * Replace the table with dir/hints.json and its generation, then the
 * changes dir/hints.log holds past that generation (a last line cut
 * short, a change never acknowledged, is dropped); when dir is the
 * table's own, a log with changes is folded into hints.json.  A missing
 * file is an empty table at generation 0; one that cannot be read is
 * the read's errno, err naming the file, and an empty table.  A file
 * with something wrong in it is -EINVAL: its valid jobs are loaded (not
 * a job that is wrong or a later one with the same id; none of a file
 * that is no table of a known version), a generation past INT64_MAX
 * or negative is INT64_MAX; a log record that does not apply ends the
 * replay there; the file is kept as hints.json.bad-TIME (a bad log as
 * hints.log.bad-TIME)
 * (never over another) and what loaded is saved in its place; err says
 * what was wrong, how many jobs loaded and where the file went (512
 * bytes hold it).  Hosts are not checked with host_id: the fabric may not
 * be discovered yet.
 */
int sm_hints_load(struct sm_hints *h, const char *dir, char *err,
		  size_t len);

#endif

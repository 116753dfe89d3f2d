/* SPDX-License-Identifier: MIT */
/*
 * ibpoold's durable state: an append-only journal of JSON records, made
 * durable one by one or in groups (one fdatasync for every record
 * written before it), compacted into an atomically replaced snapshot.
 * What a record means is the caller's (pool.c); this module only frames,
 * orders, checks and replays them.  Its calls may come from several
 * threads: it locks itself.
 */
#ifndef GPUAWARE_POOL_JOURNAL_H
#define GPUAWARE_POOL_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

/*
 * Files in the state directory.  Each holds lines
 *   {"crc":"1234abcd","seq":N,"rec":{...}}      (journal)
 *   {"crc":"1234abcd","seq":N,"state":{...}}    (snapshot, one line)
 * where crc is the CRC-32 (IEEE) of the line's bytes after the first
 * comma, up to the closing brace, and seq counts records from 1 without
 * gaps.  The snapshot holds the state after record seq (0: before any);
 * records up to seq that are still in the journal are skipped on replay.
 */
#define POOL_JOURNAL_FILE "journal.jsonl"
#define POOL_SNAPSHOT_FILE "snapshot.json"
#define POOL_SNAPSHOT_TMP "snapshot.json.tmp"
#define POOL_JOURNAL_LINE_MAX (1 << 20)

/*
 * How replay hands the state back: restore() once with the snapshot's
 * state (not called without a snapshot), then apply() per newer record,
 * in order.  The objects are borrowed for the call.  A non-zero return
 * stops the replay and is returned by pool_journal_open(), with err
 * (already prefixed with file and line) completed by the callback.
 */
struct pool_journal_ops {
	int (*restore)(void *ctx, struct json_object *state, char *err,
		       size_t len);
	int (*apply)(void *ctx, uint64_t seq, struct json_object *rec,
		     char *err, size_t len);
};

struct pool_journal;

/*
 * Open (creating them if needed) the journal in the existing directory
 * dir, replay snapshot and journal through ops, and keep the journal open
 * for appends, locked against a second opener (-EBUSY).  A torn or
 * corrupt last record is cut off, its bytes kept in journal.jsonl.cut-
 * LINE-TIME beside it (pool_journal_note() says so); a bad record before
 * the last one, a gap in the sequence or a bad snapshot is -EBADMSG.  An
 * empty journal found with no snapshot is noted too.  dir and the files
 * must pass sm_check_private() (-EPERM) and are never opened through a
 * symlink (-ELOOP).  Errors leave *out NULL with "FILE[:LINE]: message"
 * in err.
 */
int pool_journal_open(const char *dir, const struct pool_journal_ops *ops,
		      void *ctx, struct pool_journal **out, char *err,
		      size_t len);

/*
 * Append rec (borrowed) as the next record and fsync it.  Returns 0 once
 * it is durable; on error nothing was added (a partial line is cut off
 * again), or, when even that failed, the journal is broken: it refuses
 * every later write, sync and compaction with -EIO.
 */
int pool_journal_append(struct pool_journal *j, struct json_object *rec,
			char *err, size_t len);

/*
 * Append rec (borrowed) as the next record without syncing it: it is
 * durable once a later pool_journal_sync() returns 0.  Errors as append.
 */
int pool_journal_write(struct pool_journal *j, struct json_object *rec,
		       char *err, size_t len);

/*
 * Make every record written before the call durable, with one
 * fdatasync (none when they already are); writes may go on meanwhile.
 * On failure the journal is broken, and the records not durable are cut
 * off if it can be done: a restart replays none of them.
 */
int pool_journal_sync(struct pool_journal *j, char *err, size_t len);

/*
 * Replace the snapshot by state (borrowed: the state after the last
 * record) and empty the journal: temporary file, fsync, rename, fsync of
 * the directory, then truncation of the journal and its fsync.  A crash
 * at any point replays to the same state.
 */
int pool_journal_compact(struct pool_journal *j, struct json_object *state,
			 char *err, size_t len);

/*
 * Sequence number of the last record written, and of the last durable
 * one (0: none yet).  Once broken, the durable one stays below.
 */
uint64_t pool_journal_seq(struct pool_journal *j);
uint64_t pool_journal_durable(struct pool_journal *j);

/*
 * What replay repaired or found ("cut a torn last record at line 7 ...",
 * an empty journal without a snapshot), or "".
 */
const char *pool_journal_note(const struct pool_journal *j);

void pool_journal_close(struct pool_journal *j);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * MUNGE credentials for requests over TCP: a request line travels as the
 * payload of a credential, {"op":"munge","cred":"MUNGE:..."}, so the
 * credential binds that one request, refused a second time by munged's
 * replay cache and by the decoder's own, which a restart of munged does
 * not empty.  The client wraps; the server's decoder runs on threads
 * of its own, since munge_decode() waits on munged.
 */
#ifndef GPUAWARE_SM_MUNGEAUTH_H
#define GPUAWARE_SM_MUNGEAUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <json-c/json.h>

#define SM_MUNGE_OP "munge"	/* the envelope's op */

/*
 * The longest envelope line a request line of n bytes can become: the
 * credential is base64 of the payload and its header, MAC and padding.
 */
size_t sm_munge_line_max(size_t n);

/* Whether req is an envelope (its op is SM_MUNGE_OP). */
bool sm_munge_envelope(json_object *req);

/*
 * The envelope of line[0..n) (one request line, without its '\n'): a
 * credential from munged at socket (NULL or "": libmunge's default) with
 * the line as its payload.  Returns 0 with *out a malloc'ed line ending
 * in '\n' that the caller frees and *outn its length, -ENOMEM, or
 * -EACCES when munged gave no credential (err says why).
 */
int sm_munge_wrap(const char *socket, const char *line, size_t n,
		  char **out, size_t *outn, char *err, size_t len);

/* A credential decoded, or refused: what the decoder hands back. */
struct sm_munge_cred {
	uint64_t ticket;	/* as submitted */
	/*
	 * 0; -EACCES the credential is refused (invalid: another key,
	 * expired, rewound, replayed, malformed; or decoded before by this
	 * decoder); -EIO munged could not be asked.  msg says which.
	 */
	int status;
	char msg[160];
	uid_t uid;		/* with status 0: who encoded it */
	gid_t gid;
	char *payload;		/* with status 0: owned, len bytes */
	size_t len;
};

void sm_munge_cred_free(struct sm_munge_cred *c);

/* Called on a decoder thread with each result, which it owns. */
typedef void (*sm_munge_done_fn)(void *ctx, struct sm_munge_cred *c);

struct sm_munge;

/*
 * Start the decoder threads asking munged at socket (NULL or "": the
 * default; copied).  Returns 0 with *out set, or a negative errno.
 */
int sm_munge_start(const char *socket, sm_munge_done_fn done, void *ctx,
		   struct sm_munge **out);

/*
 * Queue cred (copied) for decoding; done() gets the result with ticket.
 * Returns 0 or -ENOMEM.
 */
int sm_munge_submit(struct sm_munge *m, uint64_t ticket, const char *cred);

/*
 * Let the decodes under way end (their done() calls included), drop the
 * queued ones, join the threads, free.  NULL is fine.
 */
void sm_munge_stop(struct sm_munge *m);

#endif
